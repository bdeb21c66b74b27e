# warpforge_gpu_host: the host-side, CUDA-free half of measurement and checking, linked by both the
# coordinator and warpforge-runner (docs/measurement.md). Included from gpu/CMakeLists.txt, so the
# source paths are relative to gpu/.
#
#   stats/  sample statistics (median, CIs, CV), round statistics with the re-measurement interval,
#           the settle rule of the warm-up and the stopping rule of a race's rounds
#   check/  f16/bf16 converters, output poisoning, tolerance comparison, deterministic input fill

warpforge_library(gpu_host
  SOURCES
    stats/sample_stats.cpp
    stats/round_stats.cpp
    stats/warmup_rule.cpp
    stats/order_settled.cpp
    stats/stopping_rule.cpp
    check/float16.cpp
    check/element_access.cpp
    check/poison.cpp
    check/compare.cpp
    check/input_fill.cpp
  DEPS
    warpforge::config
    warpforge::foundation)

# counter_generator.hpp and compare.cpp must give the device's bits: IEEE operations in double,
# never contracted into an FMA (the device side compiles with NVRTC's -fmad=false).
target_compile_options(warpforge_gpu_host PRIVATE -ffp-contract=off)
