#pragma once
// Where the gpu tests find the executables they start: the build tree's (compile definitions),
// unless $WARPFORGE_RUNNER / $WARPFORGE_FAKE_RUNNER say otherwise (e.g. on a GPU node, running
// these test binaries against an unpacked bundle; docs/deploy.md).

#include <cstdlib>
#include <string>

namespace warpforge::gpu::test {

inline std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

inline std::string runner_path() {
  return env_or("WARPFORGE_RUNNER", WARPFORGE_RUNNER_PATH);
}

inline std::string fake_runner_path() {
  return env_or("WARPFORGE_FAKE_RUNNER", WARPFORGE_FAKE_RUNNER_PATH);
}

} // namespace warpforge::gpu::test
