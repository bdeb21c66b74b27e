#include "messages/status.hpp"

#include "foundation/vocabulary/enum_text.hpp"

namespace warpforge::messages {

constexpr vocabulary::enum_word<component_state> component_state_words[] = {
    {component_state::starting, "starting"},
    {component_state::running, "running"},
    {component_state::degraded, "degraded"},
    {component_state::stopping, "stopping"},
    {component_state::stopped, "stopped"},
    {component_state::failed, "failed"},
};
static_assert(vocabulary::covers(component_state_words, all_component_states));

std::string_view to_string(component_state state) { return vocabulary::word_of(component_state_words, state); }

std::optional<component_state> component_state_from_string(std::string_view text) {
  return vocabulary::value_of(component_state_words, text);
}

} // namespace warpforge::messages
