# Every third-party dependency, found once. All come from Debian's packages (scripts/setup.sh)
# or the CUDA toolkit ($CUDA_HOME, else /usr/local/cuda).

if(NOT CUDAToolkit_ROOT)
  if(DEFINED ENV{CUDA_HOME})
    set(CUDAToolkit_ROOT "$ENV{CUDA_HOME}")
  else()
    set(CUDAToolkit_ROOT "/usr/local/cuda")
  endif()
endif()
find_package(CUDAToolkit 13 QUIET)
if(NOT CUDAToolkit_FOUND)
  message(FATAL_ERROR
    "warpforge needs the CUDA 13 toolkit (NVRTC, cudart, CUPTI) and found none at "
    "'${CUDAToolkit_ROOT}'. Set CUDA_HOME (or -DCUDAToolkit_ROOT=...) to its folder.")
endif()

find_package(Threads REQUIRED)
find_package(CAF 0.17 REQUIRED)
find_package(Boost 1.74 REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(simdjson CONFIG REQUIRED)
find_package(spdlog CONFIG REQUIRED)
find_package(cppzmq CONFIG REQUIRED)
find_package(tomlplusplus CONFIG REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(GTest CONFIG REQUIRED)
