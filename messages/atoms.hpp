#pragma once
// Atoms shared by several interfaces. CAF 0.17 atoms: at most 10 characters.

#include <caf/atom.hpp>

namespace warpforge::messages {

using status_atom = caf::atom_constant<caf::atom("status")>;   // ask any actor for its status
using stop_atom = caf::atom_constant<caf::atom("stop")>;       // drain in-flight work, then quit
using flush_atom = caf::atom_constant<caf::atom("flush")>;     // persist everything buffered
using query_atom = caf::atom_constant<caf::atom("query")>;     // ask a gpu_worker for its device
using next_seq_atom = caf::atom_constant<caf::atom("next_seq")>; // store: where event seq resumes
using endpoint_atom = caf::atom_constant<caf::atom("endpoint")>; // feed: the bound address
using wait_atom = caf::atom_constant<caf::atom("wait")>;         // feed: wait for subscribers
using restart_atom = caf::atom_constant<caf::atom("restart")>; // supervisor: a back-off elapsed
using interrupt_atom = caf::atom_constant<caf::atom("interrupt")>; // Ctrl-C: end in-flight work interrupted
using tick_atom = caf::atom_constant<caf::atom("tick")>;           // a timer: look at budgets and idle work

} // namespace warpforge::messages
