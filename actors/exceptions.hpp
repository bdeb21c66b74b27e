#pragma once
// The boundary where exceptions stop. Libraries throw only for broken invariants (and a few
// actors throw when they cannot start); CAF would end such an actor with a bare
// sec::runtime_error. This keeps the exception's text in the exit reason, so the supervisor's
// restart and give-up events, and the campaign's recorded reason, say what actually happened.

#include <caf/error.hpp>
#include <caf/scheduled_actor.hpp>
#include <caf/sec.hpp>

#include <exception>
#include <string>

namespace warpforge::actors {

inline caf::error describe_exception(caf::scheduled_actor*, std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    return caf::make_error(caf::sec::runtime_error, std::string{e.what()});
  } catch (...) {
    return caf::make_error(caf::sec::runtime_error, std::string{"unknown exception"});
  }
}

/// Call first thing in an actor's behaviour function.
template <class Self>
void keep_exception_text(Self* self) {
  self->set_exception_handler(describe_exception);
}

} // namespace warpforge::actors
