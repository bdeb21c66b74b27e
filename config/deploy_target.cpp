#include "config/deploy_target.hpp"

#include "config/deploy_target_toml.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include <algorithm>
#include <cctype>
#include <system_error>

namespace warpforge::deploy {

namespace fs = std::filesystem;

using toml_reader::join_key;
using toml_reader::presence;

namespace {

constexpr std::string_view deploy_keys[] = {
  "project", "file",   "region",     "build",  "verify",         "time",           "timing",
  "result_key", "kernel", "repeats", "gain_threshold", "build_timeout_s", "run_timeout_s"};

// Whether `path` (lexically normal, absolute) is `base` or below it.
bool lexically_inside(const fs::path& base, const fs::path& path) {
  auto b = base.begin();
  auto p = path.begin();
  for (; b != base.end(); ++b, ++p) {
    if (b->empty()) // a trailing separator of base
      continue;
    if (p == path.end() || *p != *b)
      return false;
  }
  return true;
}

bool is_result_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
  });
}

// The place of `key` in `table`, else of the table.
toml_reader::place place_of_key(const toml::table& table, std::string_view key) {
  if (const auto* node = table.get(key))
    return toml_reader::place_of(node->source());
  return toml_reader::place_of(table.source());
}

class deploy_parser {
public:
  deploy_parser(const toml::table& table, std::string_view path, toml_reader::reader& r,
                const fs::path& spec_file)
      : table_(table), path_(path), r_(r), spec_dir_(fs::absolute(spec_file).parent_path()) {}

  std::optional<deploy_target> parse() {
    const auto errors_before = r_.errors().size();
    r_.check_keys(table_, path_, deploy_keys);
    deploy_target out;
    out.spec_file = r_.file();
    out.place = toml_reader::place_of(table_.source());
    read_project(out);
    if (!out.project.empty())
      read_file(out);
    read_commands(out);
    read_timing(out);
    read_limits(out);
    if (r_.errors().size() != errors_before)
      return std::nullopt;
    return out;
  }

private:
  void fail(std::string_view key, std::string message, std::string hint = {}) {
    r_.error(place_of_key(table_, key), join_key(path_, key), std::move(message), std::move(hint));
  }

  void read_project(deploy_target& out) {
    auto project = r_.string(table_, path_, "project", presence::required);
    if (!project)
      return;
    const fs::path folder = (spec_dir_ / *project).lexically_normal();
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) {
      fail("project", "the project folder " + folder.string() + " does not exist or is not a folder",
           "paths are relative to the folder of the spec file");
      return;
    }
    out.project = fs::canonical(folder, ec);
    if (ec)
      fail("project", "cannot resolve " + folder.string() + ": " + ec.message());
  }

  void read_file(deploy_target& out) {
    auto file = r_.string(table_, path_, "file", presence::required);
    if (!file)
      return;
    const fs::path written{*file};
    if (written.empty() || written.is_absolute()) {
      fail("file", "'" + *file + "' must be a path relative to the project",
           "write it from the project folder, e.g. file = \"src/kernel.cuh\"");
      return;
    }
    const fs::path lexical = (out.project / written).lexically_normal();
    if (!lexically_inside(out.project, lexical) || lexical == out.project) {
      fail("file", "'" + *file + "' leads outside the project " + out.project.string(),
           "the deployer writes only inside the project: name a file below it");
      return;
    }
    std::error_code ec;
    const fs::path resolved = fs::weakly_canonical(lexical, ec);
    if (ec || !lexically_inside(out.project, resolved)) {
      fail("file", "'" + *file + "' resolves to " + resolved.string() +
                     " through a symbolic link, outside the project " + out.project.string(),
           "the deployer writes only inside the project: name the real file below it");
      return;
    }
    if (!fs::is_regular_file(resolved, ec)) {
      fail("file", "no such file: " + lexical.string(),
           "the file holding the kernel must exist in the project");
      return;
    }
    out.file = lexical;
    out.relative_file = lexical.lexically_relative(out.project);
    if (auto region = r_.string(table_, path_, "region", presence::optional))
      read_region(out, *region);
  }

  void read_region(deploy_target& out, const std::string& region) {
    if (region.empty() || region.find_first_of(" \t\r\n") != std::string::npos) {
      fail("region", "'" + region + "' is not a region name", "one word, e.g. region = \"transpose\"");
      return;
    }
    out.region = region;
    auto text = toml_reader::read_text(out.file);
    if (!text) {
      fail("region", "cannot read " + out.file.string() + ": " + text.error());
      return;
    }
    const auto begin = text->find(region_begin_marker(region));
    const auto end = text->find(region_end_marker(region));
    if (begin == std::string::npos || end == std::string::npos || end < begin)
      fail("region", out.relative_file.string() + " has no region '" + region + "'",
           "mark it with a line `" + region_begin_marker(region) + "` and a later line `" +
             region_end_marker(region) + "`");
  }

  void read_commands(deploy_target& out) {
    auto command = [&](std::string_view key, presence need) -> std::string {
      auto text = r_.string(table_, path_, key, need);
      if (text && text->find_first_not_of(" \t") == std::string::npos) {
        fail(key, "must not be empty", "a shell command, run with /bin/sh -c in the project");
        return {};
      }
      return text.value_or("");
    };
    out.build = command("build", presence::required);
    out.verify = command("verify", presence::required);
    out.time = command("time", presence::optional);
    if (out.time.empty())
      out.time = out.verify;
  }

  void read_timing(deploy_target& out) {
    if (auto timing = r_.enumeration(table_, path_, "timing", presence::optional,
                                     all_timing_sources, timing_source_from_string))
      out.timing = *timing;
    if (auto key = r_.string(table_, path_, "result_key", presence::optional)) {
      if (!is_result_name(*key))
        fail("result_key", "'" + *key + "' is not a RESULT name", "names are [A-Za-z0-9_.]+");
      out.result_key = *key;
    }
    if (out.timing == timing_source::result && out.result_key.empty() &&
        table_.get("result_key") == nullptr)
      fail("timing", "timing \"result\" needs result_key",
           "name the value the time command prints: RESULT: kernel_ms=1.25 -> result_key = "
           "\"kernel_ms\"; or timing = \"observed\"");
    if (auto kernel = r_.string(table_, path_, "kernel", presence::optional))
      out.kernel = *kernel;
  }

  void read_limits(deploy_target& out) {
    if (auto repeats = r_.integer(table_, path_, "repeats", presence::optional)) {
      if (*repeats < 1 || *repeats > target_defaults::max_repeats)
        fail("repeats", "must be 1 to " + std::to_string(target_defaults::max_repeats) + ", got " +
                          std::to_string(*repeats),
             "timing runs of the real program, before and after");
      out.repeats = *repeats;
    }
    if (auto gain = r_.number(table_, path_, "gain_threshold", presence::optional)) {
      if (!(*gain >= 0.0 && *gain < 100.0))
        fail("gain_threshold", "must be >= 0, got " + std::to_string(*gain),
             "a fraction: 0.02 = 2% faster standalone");
      out.gain_threshold = *gain;
    }
    auto seconds = [&](std::string_view key, std::chrono::seconds& into) {
      if (auto value = r_.integer(table_, path_, key, presence::optional)) {
        if (*value <= 0)
          fail(key, "must be positive, got " + std::to_string(*value), "seconds");
        into = std::chrono::seconds{*value};
      }
    };
    seconds("build_timeout_s", out.build_timeout);
    seconds("run_timeout_s", out.run_timeout);
  }

  const toml::table& table_;
  std::string path_;
  toml_reader::reader& r_;
  fs::path spec_dir_;
};

} // namespace

constexpr vocabulary::enum_word<timing_source> timing_source_words[] = {
    {timing_source::result, "result"},
    {timing_source::observed, "observed"},
};
static_assert(vocabulary::covers(timing_source_words, all_timing_sources));

std::string_view to_string(timing_source source) { return vocabulary::word_of(timing_source_words, source); }

std::optional<timing_source> timing_source_from_string(std::string_view text) {
  return vocabulary::value_of(timing_source_words, text);
}

std::string region_begin_marker(std::string_view region) {
  return "// warpforge:begin " + std::string{region};
}

std::string region_end_marker(std::string_view region) {
  return "// warpforge:end " + std::string{region};
}

std::optional<deploy_target> read_deploy_table(const toml::table& table, std::string_view path,
                                               toml_reader::reader& r, const fs::path& spec_file) {
  return deploy_parser{table, path, r, spec_file}.parse();
}

expected<std::optional<deploy_target>, toml_reader::placed_errors>
read_deploy_target(std::string_view spec_text, const fs::path& spec_file) {
  auto root = toml_reader::parse(spec_text, spec_file.string());
  if (!root)
    return unexpected{toml_reader::placed_errors{std::move(root).error()}};
  toml_reader::placed_errors errors;
  toml_reader::reader r{spec_file.string(), errors};
  const auto* table = r.table(*root, "", "deploy", presence::optional);
  if (table == nullptr) {
    if (!errors.empty())
      return unexpected{std::move(errors)};
    return std::optional<deploy_target>{};
  }
  auto target = read_deploy_table(*table, "deploy", r, spec_file);
  if (!target) {
    toml_reader::sort_by_place(errors);
    return unexpected{std::move(errors)};
  }
  // Observed timing without `kernel`: the problem's own entry point.
  if (target->kernel.empty())
    if (auto entry = root->at_path("kernel.entry").value<std::string>())
      target->kernel = *entry;
  return std::optional<deploy_target>{std::move(*target)};
}

expected<std::optional<deploy_target>, toml_reader::placed_errors>
load_deploy_target(const fs::path& spec_file) {
  auto text = toml_reader::read_file(spec_file, "the problem spec");
  if (!text)
    return unexpected{toml_reader::placed_errors{std::move(text).error()}};
  return read_deploy_target(*text, spec_file);
}

std::string outside_target_reason(const deploy_target& target, const fs::path& path) {
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(fs::absolute(path), ec);
  if (ec)
    return "cannot resolve " + path.string() + ": " + ec.message();
  if (!lexically_inside(target.project, resolved))
    return path.string() + " resolves to " + resolved.string() + ", outside the project " +
           target.project.string();
  const fs::path file = fs::weakly_canonical(target.file, ec);
  if (resolved == file || resolved == marker_path(target))
    return {};
  return path.string() + " is neither the target file " + target.file.string() +
         " nor the deploy marker";
}

fs::path marker_path(const deploy_target& target) {
  return target.project / marker_file_name;
}

} // namespace warpforge::deploy
