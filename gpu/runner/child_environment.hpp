#pragma once
// The environment every child of warpforge starts with: the runner, nvcc, ncu, cuobjdump and
// nvdisasm, compute-sanitizer, the user's program under `warpforge observe` and `program`, and a
// deploy's build, verify and time commands. All of them are started by gpu::child_process, which
// asks child_environment() and nothing else, so this is the one place that decides.
//
// What is left out: every variable that holds a secret, known by its name (is_secret_variable),
// and every variable registered with withhold_from_children (the campaign's configured
// `[llm] api_key_env`, whatever its name). No child needs an LLM key or a token: the coordinator
// alone talks to the model, and a user's build script or program must not be able to read it.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpforge::gpu {

/// Key variables of the providers warpforge knows, withheld even if the name rule below changed.
inline constexpr std::string_view known_secret_variables[] = {
  "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "OPENROUTER_KEY",
  "OPENROUTER_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "HF_TOKEN"};

/// Whether an environment variable holds a secret by its name, in any case: a known provider's
/// key variable, a name ending in _KEY, _TOKEN, _SECRET or _PASSWORD, or one containing API_KEY
/// or APIKEY (MY_LLM_KEY, OPENROUTER_KEY, GITHUB_TOKEN, DB_PASSWORD, OPENAI_APIKEY_2).
/// TOKEN_BUCKET_SIZE or KEYBOARD are not secrets.
bool is_secret_variable(std::string_view name);

/// Withholds the variable `name` from every child started from now on, whatever its name looks
/// like (the configured `[llm] api_key_env`). Thread-safe; empty names are ignored; idempotent.
void withhold_from_children(std::string_view name);

/// Whether `name` is withheld: a secret by its name, or registered with withhold_from_children.
bool is_withheld_from_children(std::string_view name);

/// NAME=value strings for a child: `parent` (a null-terminated array like `environ`) without the
/// withheld variables, then `overrides` (replacing an inherited value of the same name; an
/// override is always passed, it is warpforge's own setting).
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& overrides,
                                           const char* const* parent);

/// The same over this process's environment.
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& overrides);

} // namespace warpforge::gpu
