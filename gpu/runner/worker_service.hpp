#pragma once
// Whether a GPU's worker could take an order: the answers to a race (messages::race_reply) and
// a profile (gpu::metric_set) say it the same way, this enum and the worker's reason; a
// calibration answer (messages::measured_parameter) carries the enum.
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
