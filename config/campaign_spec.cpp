#include "config/campaign_spec.hpp"

#include "feed/endpoint.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include "config/hosts_spec_toml.hpp"
#include "config/spec_file.hpp"
#include "config/toml_reader/reader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>
#include <set>
#include <utility>

namespace warpforge::config {

constexpr vocabulary::enum_word<proposer_kind> proposer_kind_words[] = {
    {proposer_kind::tune, "tune"},
    {proposer_kind::llm, "llm"},
    {proposer_kind::replay, "replay"},
};
static_assert(vocabulary::covers(proposer_kind_words, all_proposer_kinds));

std::string_view to_string(proposer_kind kind) { return vocabulary::word_of(proposer_kind_words, kind); }

std::optional<proposer_kind> proposer_kind_from_string(std::string_view text) {
  return vocabulary::value_of(proposer_kind_words, text);
}

constexpr vocabulary::enum_word<search_strategy> search_strategy_words[] = {
    {search_strategy::exhaustive, "exhaustive"},
    {search_strategy::random, "random"},
    {search_strategy::annealing, "annealing"},
};
static_assert(vocabulary::covers(search_strategy_words, all_search_strategies));

std::string_view to_string(search_strategy strategy) { return vocabulary::word_of(search_strategy_words, strategy); }

std::optional<search_strategy> search_strategy_from_string(std::string_view text) {
  return vocabulary::value_of(search_strategy_words, text);
}

constexpr vocabulary::enum_word<llm_provider> llm_provider_words[] = {
    {llm_provider::anthropic, "anthropic"},
    {llm_provider::openai, "openai"},
};
static_assert(vocabulary::covers(llm_provider_words, all_llm_providers));

std::string_view to_string(llm_provider provider) { return vocabulary::word_of(llm_provider_words, provider); }

std::optional<llm_provider> llm_provider_from_string(std::string_view text) {
  return vocabulary::value_of(llm_provider_words, text);
}

constexpr vocabulary::enum_word<log_level> log_level_words[] = {
    {log_level::trace, "trace"},
    {log_level::debug, "debug"},
    {log_level::info, "info"},
    {log_level::warn, "warn"},
    {log_level::error, "error"},
};
static_assert(vocabulary::covers(log_level_words, all_log_levels));

std::string_view to_string(log_level level) { return vocabulary::word_of(log_level_words, level); }

std::optional<log_level> log_level_from_string(std::string_view text) {
  return vocabulary::value_of(log_level_words, text);
}

constexpr vocabulary::enum_word<profile_tool> profile_tool_words[] = {
    {profile_tool::cupti, "cupti"},
    {profile_tool::ncu, "ncu"},
};
static_assert(vocabulary::covers(profile_tool_words, all_profile_tools));

std::string_view to_string(profile_tool tool) { return vocabulary::word_of(profile_tool_words, tool); }

std::optional<profile_tool> profile_tool_from_string(std::string_view text) {
  return vocabulary::value_of(profile_tool_words, text);
}

constexpr vocabulary::enum_word<champion_profiles> champion_profiles_words[] = {
    {champion_profiles::each, "each"},
    {champion_profiles::final, "final"},
    {champion_profiles::none, "none"},
};
static_assert(vocabulary::covers(champion_profiles_words, all_champion_profiles));

std::string_view to_string(champion_profiles profiles) { return vocabulary::word_of(champion_profiles_words, profiles); }

std::optional<champion_profiles> champion_profiles_from_string(std::string_view text) {
  return vocabulary::value_of(champion_profiles_words, text);
}

champion_profiles profiled_champions_of(const campaign_spec& spec) {
  if (spec.profiled_champions)
    return *spec.profiled_champions;
  return spec.proposer.kind == proposer_kind::tune ? champion_profiles::final : champion_profiles::each;
}

constexpr vocabulary::enum_word<campaign_kind> campaign_kind_words[] = {
    {campaign_kind::optimize, "optimize"},
    {campaign_kind::calibrate, "calibrate"},
};
static_assert(vocabulary::covers(campaign_kind_words, all_campaign_kinds));

std::string_view to_string(campaign_kind kind) { return vocabulary::word_of(campaign_kind_words, kind); }

std::optional<campaign_kind> campaign_kind_from_string(std::string_view text) {
  return vocabulary::value_of(campaign_kind_words, text);
}

constexpr vocabulary::enum_word<gpu_selection_kind> gpu_selection_kind_words[] = {
    {gpu_selection_kind::all, "all"},
    {gpu_selection_kind::listed, "listed"},
};
static_assert(vocabulary::covers(gpu_selection_kind_words, all_gpu_selection_kinds));

std::string_view to_string(gpu_selection_kind kind) { return vocabulary::word_of(gpu_selection_kind_words, kind); }

std::optional<gpu_selection_kind> gpu_selection_kind_from_string(std::string_view text) {
  return vocabulary::value_of(gpu_selection_kind_words, text);
}

std::optional<std::string> job_name_problem(std::string_view name) {
  if (name.empty())
    return std::string{"is empty"};
  if (name.size() > defaults::max_job_name_chars)
    return "has " + std::to_string(name.size()) + " characters, more than " +
           std::to_string(defaults::max_job_name_chars);
  if (name.front() == '.' || name.front() == '-')
    return "'" + std::string{name} + "' starts with '" + name.front() + "'";
  for (char c : name) {
    const bool allowed = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
    if (!allowed) {
      const auto shown = std::isprint(static_cast<unsigned char>(c)) != 0
                           ? "'" + std::string(1, c) + "'"
                           : "byte " + std::to_string(static_cast<unsigned>(static_cast<unsigned char>(c)));
      return "'" + std::string{name.substr(0, 64)} + (name.size() > 64 ? "..." : "") + "' holds " + shown;
    }
  }
  return std::nullopt;
}

namespace {

using toml_reader::index_key;
using toml_reader::join_key;
using toml_reader::presence;

bool is_env_name(std::string_view text) {
  return detail::is_identifier(text);
}

// The host of an http(s) URL as written: after the scheme and any userinfo, before the port or
// path; an IPv6 literal without its brackets. Only for the clear-text rule below (the LLM client
// parses the URL itself).
std::string_view url_host(std::string_view url) {
  auto rest = url.substr(url.find("://") + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const auto at = rest.rfind('@'); at != std::string_view::npos)
    rest.remove_prefix(at + 1);
  if (rest.starts_with('['))
    return rest.substr(1, rest.find(']') - 1);
  return rest.substr(0, rest.find(':'));
}

class campaign_parser {
public:
  campaign_parser(const std::filesystem::path& file, toml_reader::placed_errors& errors)
      : file_(file), r_(file.string(), errors) {}

  void parse(const toml::table& root, campaign_spec& spec) {
    static constexpr std::string_view root_keys[] = {
      "name", "kind", "run_root", "run_dir_mode", "jobs", "gpus", "budget", "proposer", "llm", "feed", "log",
      "supervision", "calibrate", "deploy", "verify", "profile", "hosts"};
    r_.set_root_keys(root_keys);
    r_.check_keys(root, "", root_keys);
    if (auto name = r_.string(root, "", "name", presence::required)) {
      if (name->empty())
        r_.error(root.get("name")->source(), "name", "must not be empty",
                 "name the campaign, e.g. name = \"nightly\"");
      spec.name = *name;
    }
    const auto run_root =
      r_.string(root, "", "run_root", presence::optional).value_or(std::string{defaults::run_root});
    if (run_root.empty())
      r_.error(root.get("run_root")->source(), "run_root", "must not be empty",
               "a folder for run directories, e.g. \"runs\"");
    spec.run_root = detail::resolve_against(file_, run_root);
    parse_run_dir_mode(root, spec.run_dir_mode);
    parse_gpus(root, spec.gpus);
    if (const auto* budget = r_.table(root, "", "budget", presence::optional))
      parse_budget(*budget, spec.budget);
    if (const auto* proposer = r_.table(root, "", "proposer", presence::optional))
      parse_proposer(*proposer, spec.proposer);
    if (const auto* llm = r_.table(root, "", "llm", presence::optional))
      spec.llm = parse_llm(*llm);
    if (spec.proposer.kind == proposer_kind::llm && !root.contains("llm")) {
      const auto* kind = root.at_path("proposer.kind").node();
      r_.error(kind != nullptr ? kind->source() : root.source(), "proposer.kind",
               "the llm proposer needs an [llm] table",
               "add [llm] with provider, model and api_key_env, or use kind = \"tune\"");
    }
    if (const auto* feed = r_.table(root, "", "feed", presence::optional))
      parse_feed(*feed, spec.feed);
    if (const auto* log = r_.table(root, "", "log", presence::optional)) {
      static constexpr std::string_view log_keys[] = {"level"};
      r_.check_keys(*log, "log", log_keys);
      if (auto level = r_.enumeration(*log, "log", "level", presence::optional, all_log_levels,
                                      &log_level_from_string))
        spec.log = *level;
    }
    if (const auto* supervision = r_.table(root, "", "supervision", presence::optional))
      parse_supervision(*supervision, spec.supervision);
    if (const auto* deploy = r_.table(root, "", "deploy", presence::optional)) {
      static constexpr std::string_view deploy_keys[] = {"at_end"};
      r_.check_keys(*deploy, "deploy", deploy_keys);
      if (auto at_end = r_.boolean(*deploy, "deploy", "at_end", presence::optional))
        spec.deploy_at_end = *at_end;
    }
    if (const auto* verify = r_.table(root, "", "verify", presence::optional)) {
      static constexpr std::string_view verify_keys[] = {"sanitize"};
      r_.check_keys(*verify, "verify", verify_keys);
      if (auto sanitize = r_.boolean(*verify, "verify", "sanitize", presence::optional))
        spec.sanitize_champion = *sanitize;
    }
    if (const auto* profile = r_.table(root, "", "profile", presence::optional)) {
      static constexpr std::string_view profile_keys[] = {"tool", "champions"};
      r_.check_keys(*profile, "profile", profile_keys);
      if (auto tool = r_.enumeration(*profile, "profile", "tool", presence::optional, all_profile_tools,
                                     &profile_tool_from_string))
        spec.profiler = *tool;
      if (auto champions = r_.enumeration(*profile, "profile", "champions", presence::optional,
                                          all_champion_profiles, &champion_profiles_from_string))
        spec.profiled_champions = *champions;
    }
    if (const auto* hosts = r_.table(root, "", "hosts", presence::optional))
      spec.hosts = read_hosts_table(*hosts, r_);
    if (auto kind = r_.enumeration(root, "", "kind", presence::optional, all_campaign_kinds,
                                   &campaign_kind_from_string))
      spec.kind = *kind;
    if (spec.kind == campaign_kind::calibrate)
      parse_calibrate_campaign(root, spec);
    else if (const auto* jobs = r_.array(root, "", "jobs", presence::required))
      parse_jobs(*jobs, spec.jobs);
    if (spec.kind == campaign_kind::optimize && root.contains("calibrate"))
      r_.error(root.get("calibrate")->source(), "calibrate", "[calibrate] belongs to a calibrate campaign",
               "add kind = \"calibrate\" at the top, or remove [calibrate]");
  }

private:
  // A non-negative integer that fits T; reports a value out of [min, max].
  template <class T>
  std::optional<T> bounded(const toml::table& table, std::string_view path, std::string_view key,
                           std::int64_t min, std::int64_t max, std::string_view unit) {
    auto value = r_.integer(table, path, key, presence::optional);
    if (!value)
      return std::nullopt;
    if (*value < min || *value > max) {
      r_.error(table.get(key)->source(), join_key(path, key),
               "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "]" +
                 (unit.empty() ? "" : " " + std::string{unit}) + ", got " +
                 std::to_string(*value));
      return std::nullopt;
    }
    return static_cast<T>(*value);
  }

  // Octal text, as chmod takes it: "0750" lets the group read the run; the owner keeps rwx.
  void parse_run_dir_mode(const toml::table& root, std::uint32_t& out) {
    const auto text = r_.string(root, "", "run_dir_mode", presence::optional);
    if (!text)
      return;
    std::uint32_t mode = 0;
    const bool octal = !text->empty() && text->size() <= 4 &&
                       text->find_first_not_of("01234567") == std::string::npos;
    if (octal)
      mode = static_cast<std::uint32_t>(std::stoul(*text, nullptr, 8));
    if (!octal || (mode & 0700) != 0700)
      r_.error(root.get("run_dir_mode")->source(), "run_dir_mode",
               "'" + *text + "' is not an octal mode that keeps the owner's rwx",
               "e.g. \"0700\" (owner only, the default) or \"0750\" (the group may read)");
    else
      out = mode;
  }

  void parse_gpus(const toml::table& root, gpu_selection& out) {
    const toml::node* node = root.get("gpus");
    if (node == nullptr)
      return; // all
    out.place = toml_reader::place_of(node->source());
    if (const auto* text = node->as_string()) {
      if (text->get() != "all")
        r_.error(node->source(), "gpus", "unknown value '" + text->get() + "'",
                 "write gpus = \"all\" or a list of ordinals, gpus = [0, 1]");
      return;
    }
    const auto* array = node->as_array();
    if (array == nullptr) {
      r_.wrong_type(*node, "gpus", "\"all\" or an array of GPU ordinals", "gpus = [0, 1]");
      return;
    }
    if (array->empty()) {
      r_.error(node->source(), "gpus", "the list of GPUs is empty",
               "write gpus = \"all\" or list at least one ordinal");
      return;
    }
    out.kind = gpu_selection_kind::listed;
    for (std::size_t i = 0; i < array->size(); ++i) {
      const auto& element = *array->get(i);
      const auto* ordinal = element.as_integer();
      if (ordinal == nullptr || ordinal->get() < 0 ||
          ordinal->get() > std::numeric_limits<std::int32_t>::max()) {
        r_.error(element.source(), index_key("gpus", i), "expected a GPU ordinal (an integer >= 0)",
                 "ordinals as CUDA numbers them: 0, 1, ...");
        continue;
      }
      const auto value = static_cast<std::uint32_t>(ordinal->get());
      if (std::find(out.ordinals.begin(), out.ordinals.end(), value) != out.ordinals.end())
        r_.error(element.source(), index_key("gpus", i),
                 "GPU " + std::to_string(value) + " is listed twice", "remove one");
      else
        out.ordinals.push_back(value);
    }
  }

  void parse_budget(const toml::table& table, budget_spec& out) {
    static constexpr std::string_view keys[] = {"iterations", "branches", "wall_time_s", "patience",
                                                "noise_threshold"};
    r_.check_keys(table, "budget", keys);
    constexpr std::int64_t max_u32 = std::numeric_limits<std::uint32_t>::max();
    if (auto v = bounded<std::uint32_t>(table, "budget", "iterations", 1, max_u32, "iterations"))
      out.iterations = *v;
    if (auto v = bounded<std::uint32_t>(table, "budget", "branches", 1, defaults::max_branches,
                                        "branches"))
      out.branches = *v;
    if (auto v = bounded<std::uint32_t>(table, "budget", "patience", 1, max_u32, "iterations"))
      out.patience = *v;
    if (auto v = r_.number(table, "budget", "wall_time_s", presence::optional)) {
      if (!(*v > 0.0) || !std::isfinite(*v))
        r_.error(table.get("wall_time_s")->source(), "budget.wall_time_s",
                 "must be a positive number of seconds, got " + std::to_string(*v),
                 "8 hours is 28800");
      else
        out.wall_time_s = *v;
    }
    if (auto v = r_.number(table, "budget", "noise_threshold", presence::optional)) {
      if (!(*v >= 0.0 && *v < 1.0))
        r_.error(table.get("noise_threshold")->source(), "budget.noise_threshold",
                 "must be in [0, 1), got " + std::to_string(*v),
                 "a fraction: 0.02 means gains under 2% count as noise");
      else
        out.noise_threshold = *v;
    }
  }

  void parse_proposer(const toml::table& table, proposer_spec& out) {
    static constexpr std::string_view keys[] = {"kind", "strategy", "seed", "max_evaluations",
                                                "replay_from"};
    r_.check_keys(table, "proposer", keys);
    if (auto kind = r_.enumeration(table, "proposer", "kind", presence::optional,
                                   all_proposer_kinds, &proposer_kind_from_string))
      out.kind = *kind;
    if (auto strategy = r_.enumeration(table, "proposer", "strategy", presence::optional,
                                       all_search_strategies, &search_strategy_from_string))
      out.strategy = *strategy;
    if (auto seed = bounded<std::uint64_t>(table, "proposer", "seed", 0,
                                           std::numeric_limits<std::int64_t>::max(), ""))
      out.seed = *seed;
    if (auto cap = bounded<std::uint64_t>(table, "proposer", "max_evaluations", 1,
                                          std::numeric_limits<std::int64_t>::max(), "candidates"))
      out.max_evaluations = *cap;
    const auto replay_from = r_.string(table, "proposer", "replay_from", presence::optional);
    if (replay_from) {
      out.replay_from = detail::resolve_against(file_, *replay_from);
      std::error_code ec;
      if (!std::filesystem::is_directory(out.replay_from, ec))
        r_.error(table.get("replay_from")->source(), "proposer.replay_from",
                 "run directory not found: " + out.replay_from.string(),
                 "paths are relative to the folder of the campaign file");
    }
    if (out.kind == proposer_kind::replay && !table.contains("replay_from"))
      r_.error(table.get("kind")->source(), "proposer.kind",
               "the replay proposer needs replay_from (the earlier run's directory)",
               "add replay_from = \"runs/<run>\"");
  }

  llm_spec parse_llm(const toml::table& table) {
    static constexpr std::string_view keys[] = {
      "provider", "model", "api_key_env", "base_url", "max_tokens", "temperature", "max_concurrent",
      "max_reasks", "max_fix_tries", "budget_usd", "budget_tokens", "judge", "compaction_model",
      "compaction_threshold_chars", "first_byte_timeout_s", "total_timeout_s", "max_attempts"};
    r_.check_keys(table, "llm", keys);
    llm_spec out;
    if (auto provider = r_.enumeration(table, "llm", "provider", presence::required,
                                       all_llm_providers, &llm_provider_from_string))
      out.provider = *provider;
    if (auto model = r_.string(table, "llm", "model", presence::required)) {
      if (model->empty())
        r_.error(table.get("model")->source(), "llm.model", "must not be empty",
                 "the model name as the provider spells it");
      out.model = *model;
    }
    out.api_key_env = std::string{out.provider == llm_provider::openai
                                    ? defaults::openai_api_key_env
                                    : defaults::anthropic_api_key_env};
    if (auto env = r_.string(table, "llm", "api_key_env", presence::optional)) {
      if (env->empty())
        out.api_key_env.clear(); // a local server that wants no key
      else if (!is_env_name(*env))
        r_.error(table.get("api_key_env")->source(), "llm.api_key_env",
                 "not the name of an environment variable",
                 "give the NAME of the variable holding the key (e.g. \"ANTHROPIC_API_KEY\"), "
                 "never the key itself");
      else
        out.api_key_env = *env;
    }
    if (auto url = r_.string(table, "llm", "base_url", presence::optional)) {
      if (!url->starts_with("https://") && !url->starts_with("http://"))
        r_.error(table.get("base_url")->source(), "llm.base_url",
                 "expected an http:// or https:// URL, got '" + *url + "'",
                 "e.g. \"https://api.anthropic.com\"");
      else if (url->starts_with("http://") && !out.api_key_env.empty() &&
               !feed::is_loopback_host(url_host(*url)))
        // The key would cross the network in clear text: refused before anything is sent.
        r_.error(table.get("base_url")->source(), "llm.base_url",
                 "http:// to '" + std::string{url_host(*url)} + "', a host other than this one, would send "
                   "the key in " + out.api_key_env + " unencrypted",
                 "use https://, or a server on this host (127.0.0.1, localhost, ::1); "
                 "api_key_env = \"\" for a server that needs no key");
      else
        out.base_url = *url;
    }
    parse_llm_limits(table, out);
    return out;
  }

  void parse_llm_limits(const toml::table& table, llm_spec& out) {
    constexpr std::int64_t max_u32 = std::numeric_limits<std::uint32_t>::max();
    if (auto v = bounded<std::uint32_t>(table, "llm", "max_tokens", 16, 1'000'000, "tokens"))
      out.max_tokens = *v;
    if (auto v = bounded<std::uint32_t>(table, "llm", "max_concurrent", 1, 256, "requests"))
      out.max_concurrent = *v;
    if (auto v = bounded<std::uint32_t>(table, "llm", "max_reasks", 0, 10, "re-asks"))
      out.max_reasks = *v;
    if (auto v = bounded<std::uint32_t>(table, "llm", "max_fix_tries", 0, 10, "tries"))
      out.max_fix_tries = *v;
    if (auto v = bounded<std::uint32_t>(table, "llm", "max_attempts", 1, 20, "tries"))
      out.max_attempts = *v;
    if (auto v = bounded<std::uint32_t>(table, "llm", "compaction_threshold_chars", 1000, max_u32, "characters"))
      out.compaction_threshold_chars = *v;
    if (auto v = bounded<std::int64_t>(table, "llm", "budget_tokens", 1, std::numeric_limits<std::int64_t>::max(), "tokens"))
      out.budget_tokens = *v;
    if (auto v = r_.boolean(table, "llm", "judge", presence::optional))
      out.judge = *v;
    if (auto v = r_.string(table, "llm", "compaction_model", presence::optional))
      out.compaction_model = *v;
    positive_number(table, "temperature", 0, 2, [&](double v) { out.temperature = v; });
    positive_number(table, "budget_usd", 0, 1e6, [&](double v) { out.budget_usd = v; });
    positive_number(table, "first_byte_timeout_s", 0.001, 86400, [&](double v) { out.first_byte_timeout_s = v; });
    positive_number(table, "total_timeout_s", 0.001, 86400, [&](double v) { out.total_timeout_s = v; });
  }

  // An [llm] number in [min, max], handed to `set`; an error names the key and the range.
  template <class Set>
  void positive_number(const toml::table& table, std::string_view key, double min, double max, Set set) {
    auto v = r_.number(table, "llm", key, presence::optional);
    if (!v)
      return;
    auto text = [](double x) {
      std::ostringstream out;
      out << x; // shortest natural form: 0.001, 2, 86400
      return out.str();
    };
    if (!(*v >= min && *v <= max))
      r_.error(table.get(key)->source(), join_key("llm", key),
               "must be in [" + text(min) + ", " + text(max) + "], got " + text(*v));
    else
      set(*v);
  }

  void parse_feed(const toml::table& table, feed_spec& out) {
    static constexpr std::string_view keys[] = {"endpoint", "allow_remote", "high_water_mark"};
    r_.check_keys(table, "feed", keys);
    if (auto allow = r_.boolean(table, "feed", "allow_remote", presence::optional))
      out.allow_remote = *allow;
    if (auto hwm = bounded<std::uint32_t>(table, "feed", "high_water_mark", 1,
                                          std::numeric_limits<std::uint32_t>::max(), "messages"))
      out.high_water_mark = *hwm;
    if (auto endpoint = r_.string(table, "feed", "endpoint", presence::optional)) {
      const auto& at = table.get("endpoint")->source();
      // One parser for endpoints: the feed's, which is also what binds the socket.
      auto address = feed::parse_endpoint(*endpoint);
      if (!address)
        r_.error(at, "feed.endpoint", "'" + *endpoint + "': " + address.error().message,
                 "e.g. \"" + std::string{feed::default_endpoint} + "\"");
      else if (!out.allow_remote && !address->local)
        r_.error(at, "feed.endpoint",
                 "'" + *endpoint + "' is reachable from other hosts, and allow_remote is false",
                 "events may reveal kernels and prompts: use 127.0.0.1, or set "
                 "allow_remote = true in [feed] if you mean it");
      else
        out.endpoint = *endpoint;
    }
  }

  void parse_supervision(const toml::table& table, supervision_policy& out) {
    static constexpr std::string_view keys[] = {"max_restarts", "window_s", "backoff_initial_ms",
                                                "backoff_factor", "backoff_max_ms"};
    r_.check_keys(table, "supervision", keys);
    constexpr std::int64_t max_u32 = std::numeric_limits<std::uint32_t>::max();
    if (auto v = bounded<std::uint32_t>(table, "supervision", "max_restarts", 0, max_u32,
                                        "restarts"))
      out.max_restarts = *v;
    if (auto v = bounded<std::uint32_t>(table, "supervision", "window_s", 1, max_u32, "seconds"))
      out.window_s = *v;
    if (auto v = bounded<std::uint32_t>(table, "supervision", "backoff_initial_ms", 1, max_u32,
                                        "milliseconds"))
      out.backoff_initial_ms = *v;
    if (auto v = bounded<std::uint32_t>(table, "supervision", "backoff_max_ms", 1, max_u32,
                                        "milliseconds"))
      out.backoff_max_ms = *v;
    if (auto v = r_.number(table, "supervision", "backoff_factor", presence::optional)) {
      if (!(*v >= 1.0) || !std::isfinite(*v))
        r_.error(table.get("backoff_factor")->source(), "supervision.backoff_factor",
                 "must be >= 1.0, got " + std::to_string(*v),
                 "each restart waits backoff_factor times longer than the one before");
      else
        out.backoff_factor = *v;
    }
    if (out.backoff_max_ms < out.backoff_initial_ms) {
      const toml::node* at = table.get("backoff_max_ms");
      r_.error(at != nullptr ? at->source() : table.source(), "supervision.backoff_max_ms",
               "the cap (" + std::to_string(out.backoff_max_ms) +
                 " ms) is below the initial back-off (" + std::to_string(out.backoff_initial_ms) +
                 " ms)",
               "backoff_max_ms >= backoff_initial_ms");
    }
  }

  // kind = "calibrate": the parameters come from the catalog, so there are no jobs.
  void parse_calibrate_campaign(const toml::table& root, campaign_spec& spec) {
    if (const auto* jobs = root.get("jobs"))
      r_.error(jobs->source(), "jobs", "a calibrate campaign has no jobs: its parameters come from the catalog",
               "remove [[jobs]]; choose parameters with [calibrate] only = [\"fp32_fma_latency\"]");
    if (const auto* table = r_.table(root, "", "calibrate", presence::optional))
      parse_calibrate(*table, spec.calibrate);
  }

  void parse_calibrate(const toml::table& table, calibrate_spec& out) {
    static constexpr std::string_view keys[] = {"max_priority", "only", "reset", "trials", "trial_watchdog_s",
                                                "arch", "catalog", "notes"};
    r_.check_keys(table, "calibrate", keys);
    if (auto v = bounded<std::uint32_t>(table, "calibrate", "max_priority", 1, 4, ""))
      out.max_priority = *v;
    if (auto v = bounded<std::uint32_t>(table, "calibrate", "trials", 1, 1000, "trials"))
      out.trials = *v;
    if (auto v = r_.number(table, "calibrate", "trial_watchdog_s", presence::optional)) {
      if (!(*v > 0.0 && *v <= 86400.0))
        r_.error(table.get("trial_watchdog_s")->source(), "calibrate.trial_watchdog_s",
                 "must be in (0, 86400] seconds, got " + std::to_string(*v), "60 is the default");
      else
        out.trial_watchdog_s = *v;
    }
    out.only = parameter_names(table, "only");
    out.reset = parameter_names(table, "reset");
    if (auto arch = r_.string(table, "calibrate", "arch", presence::optional))
      out.arch = *arch;
    if (auto catalog = r_.string(table, "calibrate", "catalog", presence::optional))
      out.catalog = detail::resolve_against(file_, *catalog);
    if (auto notes = r_.string(table, "calibrate", "notes", presence::optional))
      out.notes = detail::resolve_against(file_, *notes);
  }

  // A list of catalog names ([a-z0-9_]); whether each is in the catalog is checked at the run.
  std::vector<std::string> parameter_names(const toml::table& table, std::string_view key) {
    std::vector<std::string> names;
    auto entries = r_.strings(table, "calibrate", key, presence::optional);
    if (!entries)
      return names;
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const auto& entry = (*entries)[i];
      const bool valid = !entry.value.empty() && std::all_of(entry.value.begin(), entry.value.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      });
      if (!valid)
        r_.error(entry.at, index_key(join_key("calibrate", key), i), "'" + entry.value + "' is not a parameter name",
                 "catalog names are lower case, digits and '_', e.g. \"fp32_fma_latency\"");
      else
        names.push_back(entry.value);
    }
    return names;
  }

  void parse_jobs(const toml::array& array, std::vector<job_spec>& out) {
    if (array.empty()) {
      r_.error(array.source(), "jobs", "the campaign has no jobs",
               "add [[jobs]] with problem = \"path/to/problem.toml\"");
      return;
    }
    std::set<std::string, std::less<>> names;
    for (std::size_t i = 0; i < array.size(); ++i) {
      const std::string path = index_key("jobs", i);
      const auto* table = array.get(i)->as_table();
      if (table == nullptr) {
        r_.wrong_type(*array.get(i), path, "a table", "write each job as [[jobs]]");
        continue;
      }
      static constexpr std::string_view keys[] = {"problem", "name"};
      r_.check_keys(*table, path, keys);
      job_spec job;
      job.place = toml_reader::place_of(table->source());
      const auto name = r_.string(*table, path, "name", presence::optional);
      const auto problem = r_.string(*table, path, "problem", presence::required);
      if (!problem)
        continue;
      const auto& at = table->get("problem")->source();
      // Absolute: the run records it, and `warpforge deploy` or `resume` may start elsewhere.
      job.problem_path = std::filesystem::absolute(detail::resolve_against(file_, *problem));
      std::error_code ec;
      if (!std::filesystem::is_regular_file(job.problem_path, ec)) {
        r_.error(at, join_key(path, "problem"),
                 "problem spec not found: " + job.problem_path.string(),
                 "paths are relative to the folder of the campaign file");
        continue;
      }
      auto loaded = load_problem(job.problem_path);
      if (!loaded) {
        const auto count = loaded.error().size();
        r_.error(at, join_key(path, "problem"),
                 "the problem spec " + job.problem_path.string() + " has " +
                   std::to_string(count) + (count == 1 ? " error" : " errors"),
                 "they are listed under that file's name");
        problem_errors_.insert(problem_errors_.end(), loaded.error().begin(),
                               loaded.error().end());
        continue;
      }
      job.problem = std::move(*loaded);
      job.name = name.value_or(job.problem.name);
      const toml::node* given = table->get("name");
      if (auto why = job_name_problem(job.name)) {
        r_.error(given != nullptr ? given->source() : at, join_key(path, "name"),
                 (given != nullptr ? "the job name " : "the job name (the problem's name) ") + *why,
                 "a job name becomes a folder: 1 to " + std::to_string(defaults::max_job_name_chars) +
                   " letters, digits, '_', '-' or '.', not starting with '.' or '-'; set name = \"...\"");
        continue;
      }
      if (!names.insert(job.name).second) {
        const toml::node* name_node = table->get("name");
        r_.error(name_node != nullptr ? name_node->source() : at, join_key(path, "name"),
                 "the job name '" + job.name + "' is used twice",
                 "give each job a distinct name = \"...\"");
        continue;
      }
      out.push_back(std::move(job));
    }
  }

public:
  toml_reader::placed_errors take_problem_errors() { return std::move(problem_errors_); }

private:
  std::filesystem::path file_;
  toml_reader::reader r_;
  toml_reader::placed_errors problem_errors_; // in job problem files, after the campaign's
};

} // namespace

expected<campaign_spec, toml_reader::placed_errors>
parse_campaign(std::string_view text, const std::filesystem::path& file) {
  auto root = toml_reader::parse(text, file.string());
  if (!root)
    return unexpected(toml_reader::placed_errors{std::move(root).error()});
  toml_reader::placed_errors errors;
  campaign_spec spec;
  spec.file = file.string();
  spec.raw_text = std::string{text};
  campaign_parser parser{file, errors};
  parser.parse(*root, spec);
  toml_reader::sort_by_place(errors);
  auto problem_errors = parser.take_problem_errors();
  errors.insert(errors.end(), problem_errors.begin(), problem_errors.end());
  if (!errors.empty())
    return unexpected(std::move(errors));
  return spec;
}

expected<campaign_spec, toml_reader::placed_errors>
load_campaign(const std::filesystem::path& path) {
  auto text = toml_reader::read_file(path, "the campaign spec");
  if (!text)
    return unexpected(toml_reader::placed_errors{std::move(text).error()});
  return parse_campaign(*text, path);
}

} // namespace warpforge::config
