#include "llm/reply/parse.hpp"

namespace warpforge::embedded {
extern const std::string_view envelope_instructions_md; // llm/reply/envelope_instructions.md
}

namespace warpforge::llm {

std::string_view envelope_instructions() { return embedded::envelope_instructions_md; }

} // namespace warpforge::llm
