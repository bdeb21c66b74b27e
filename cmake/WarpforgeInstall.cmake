# Install rules for the two executables and every shared library they need that a GPU node
# (Ubuntu 24.04 + CUDA 13 toolkit + NVIDIA driver) does not provide: the relocatable bundle
# built by scripts/bundle.sh (docs/deploy.md). Layout: bin/{warpforge,warpforge-runner},
# lib/<bundled .so files>. The executables carry DT_RPATH $ORIGIN/../lib:/usr/local/cuda/lib64
# (root CMakeLists.txt); the bundled libraries get RUNPATH $ORIGIN.
#
# Components, one per executable, so the runner can be bundled alone while the coordinator does
# not build: `cmake --install <build> --component runner`. A plain `cmake --install` installs both.
#
# Not bundled (the node has them, newer or matched to its driver): glibc, libstdc++/libgcc_s,
# libcuda (the driver) and the CUDA toolkit's NVRTC, CUPTI and nvperf libraries.
include_guard(GLOBAL)

find_program(WARPFORGE_PATCHELF patchelf)

set(_warpforge_not_bundled
  [[^ld-linux.*]] [[^linux-vdso.*]]
  [[^libc\.so.*]] [[^libm\.so.*]] [[^libpthread\.so.*]] [[^libdl\.so.*]] [[^librt\.so.*]]
  [[^libutil\.so.*]] [[^libresolv\.so.*]]
  [[^libstdc\+\+\.so.*]] [[^libgcc_s\.so.*]]
  [[^libcuda\.so.*]] [[^libnvidia.*]]
  [[^libnvrtc.*]] [[^libcupti.*]] [[^libnvperf.*]] [[^libcudart.*]])

# warpforge-runner -> component "runner"; warpforge -> component "coordinator".
foreach(_pair "warpforge-runner;runner" "warpforge;coordinator")
  list(GET _pair 0 _exe)
  list(GET _pair 1 _component)
  if(NOT TARGET ${_exe})
    continue() # apps/warpforge may not define its target yet
  endif()
  # Link with the install RPATH directly. Otherwise CMake links a colon-padded build RPATH and
  # rewrites it at install time, but GNU ld drops the empty entries, so the rewrite fails
  # ("could not write new RPATH"). The build-tree binary then runs with the same search path as
  # the bundle: $ORIGIN/../lib (absent in the build tree; system libraries serve) and the CUDA
  # toolkit. Our own libraries are static, so nothing in the build tree is missed.
  set_target_properties(${_exe} PROPERTIES BUILD_WITH_INSTALL_RPATH ON)
  install(TARGETS ${_exe}
    RUNTIME_DEPENDENCY_SET warpforge_${_component}_deps
    RUNTIME DESTINATION bin COMPONENT ${_component})
  install(RUNTIME_DEPENDENCY_SET warpforge_${_component}_deps
    PRE_EXCLUDE_REGEXES ${_warpforge_not_bundled}
    POST_EXCLUDE_REGEXES [[.*/cuda[^/]*/.*]] [[.*/nvidia/.*]]
    DESTINATION lib COMPONENT ${_component})
endforeach()

# Bundled libraries find each other next to themselves.
install(CODE "set(WARPFORGE_PATCHELF \"${WARPFORGE_PATCHELF}\")" ALL_COMPONENTS)
install(CODE [[
  file(GLOB _libs "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/*.so*")
  if(_libs AND NOT WARPFORGE_PATCHELF)
    message(FATAL_ERROR "patchelf is needed to install warpforge's bundled libraries "
                        "(apt-get install patchelf, or scripts/setup.sh)")
  endif()
  foreach(_lib IN LISTS _libs)
    if(NOT IS_SYMLINK "${_lib}")
      execute_process(COMMAND "${WARPFORGE_PATCHELF}" --set-rpath "$ORIGIN" "${_lib}"
                      RESULT_VARIABLE _rc)
      if(NOT _rc EQUAL 0)
        message(FATAL_ERROR "patchelf --set-rpath failed on ${_lib}")
      endif()
    endif()
  endforeach()
]] ALL_COMPONENTS)

# The CUPTI injection library `warpforge observe` has CUDA load into a user's program
# (deploy/observe/inject/): lib/libwarpforge_observe_inject.so, with the coordinator. Unlike the other
# bundled libraries it keeps the CUDA toolkit in its RPATH ($ORIGIN:/usr/local/cuda/lib64): CUDA
# dlopens it into the user's program, whose own search path need not know where CUPTI is. Set
# after the $ORIGIN pass above (which may have seen a copy from an earlier install).
if(TARGET warpforge_observe_inject)
  install(TARGETS warpforge_observe_inject LIBRARY DESTINATION lib COMPONENT coordinator)
  install(CODE [[
    set(_inject "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/libwarpforge_observe_inject.so")
    execute_process(COMMAND "${WARPFORGE_PATCHELF}" --set-rpath "$ORIGIN:/usr/local/cuda/lib64" "${_inject}"
                    RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "patchelf --set-rpath failed on ${_inject}")
    endif()
  ]] COMPONENT coordinator)
endif()
