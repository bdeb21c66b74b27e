#pragma once
// What the device's comparison kernels leave in device memory for the runner to read back: one
// small record per compared buffer, and nothing else crosses to the host (docs/measurement.md,
// "Correctness"). Shared by the host (check_module.cpp) and the device (check_kernels.cu, compiled
// by NVRTC after this header): plain 64-bit fields, no includes.

namespace warpforge::gpu {

/// One output compared with the reference's (warpforge_compare_<dtype>), or one input compared
/// with its pristine copy (warpforge_first_difference: only first_complement is used, in bytes).
/// All zero means "nothing found", so a record is reset with a memset.
struct device_check_record {
  unsigned long long mismatches;       // elements outside tolerance
  unsigned long long first_complement; // ~(first mismatching element or byte), 0 when none: the
                                       // first index has the largest complement (atomicMax)
  unsigned long long max_abs_bits;  // bits of the largest |got - want| (a non-negative double:
                                    // its bits order like its values, so atomicMax works)
  unsigned long long max_rel_bits;  // bits of the largest |got - want| / |want|
  unsigned long long got_poisoned;  // elements of got still holding the poison pattern
  unsigned long long want_poisoned; // elements of want (the reference) holding it
};

} // namespace warpforge::gpu
