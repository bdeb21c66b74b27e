# What `warpforge --version` prints besides the version: the source's git commit, the build type
# and the versions of the CUDA toolkit and CAF it was built against, known at configure time and
# written into a generated header (build/generated/warpforge/version_info.hpp, read by
# apps/warpforge/cli/version.cpp). The commit is `git describe --always --dirty` when the source is a git
# checkout, else "unknown" (a source tarball); it is as of the last configure.
set(WARPFORGE_GIT_COMMIT "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" describe --always --dirty
                  WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
                  OUTPUT_VARIABLE _warpforge_describe OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _warpforge_describe_result ERROR_QUIET)
  if(_warpforge_describe_result EQUAL 0 AND _warpforge_describe)
    set(WARPFORGE_GIT_COMMIT "${_warpforge_describe}")
  endif()
endif()
set(WARPFORGE_BUILD_TYPE "${CMAKE_BUILD_TYPE}")
if(NOT WARPFORGE_BUILD_TYPE)
  set(WARPFORGE_BUILD_TYPE "unspecified (multi-config generator: chosen at build time)")
endif()
set(WARPFORGE_CUDA_VERSION "${CUDAToolkit_VERSION}")
if(NOT WARPFORGE_CUDA_VERSION)
  set(WARPFORGE_CUDA_VERSION "unknown")
endif()
set(WARPFORGE_CAF_VERSION "${CAF_VERSION}")
if(NOT WARPFORGE_CAF_VERSION)
  set(WARPFORGE_CAF_VERSION "unknown")
endif()
set(WARPFORGE_GENERATED_INCLUDE_DIR "${CMAKE_CURRENT_BINARY_DIR}/generated")
# configure_file leaves the header untouched when nothing changed: no rebuild on a re-configure.
configure_file("${CMAKE_CURRENT_SOURCE_DIR}/cmake/version_info.hpp.in"
               "${WARPFORGE_GENERATED_INCLUDE_DIR}/warpforge/version_info.hpp" @ONLY)
