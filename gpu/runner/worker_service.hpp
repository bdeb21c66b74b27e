#pragma once
// Whether a GPU's worker could take an order: the answer to a race (messages::race_reply), a
// profile (gpu::metric_set) and a calibration order all say it the same way, an enum and the
// worker's reason.
//
//   if (reply.service == gpu::worker_service::out_of_service) requeue(order, reply.why_out_of_service);
//
// out_of_service: its runner could not be started or kept running (the keeper gave up, the GPU's
// lock was not had, its host is lost); it answers every order at once, nothing run, and its GPU
// should get no more work.

#include <cstdint>

namespace warpforge::gpu {

enum class worker_service : std::uint8_t { in_service, out_of_service };

} // namespace warpforge::gpu
