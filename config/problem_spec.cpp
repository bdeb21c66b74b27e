#include "config/problem_spec.hpp"

#include "config/deploy_target_toml.hpp"
#include "foundation/vocabulary/enum_text.hpp"

#include "config/configs_reader.hpp"
#include "config/kernel_entry.hpp"
#include "config/defaults.hpp"
#include "config/problem_configs.hpp"
#include "config/resolved_problem.hpp"
#include "config/spec_file.hpp"
#include "config/toml_reader/reader.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>
#include <utility>

namespace warpforge::config {

constexpr vocabulary::enum_word<arg_role> arg_role_words[] = {
    {arg_role::input, "input"},
    {arg_role::output, "output"},
    {arg_role::inout, "inout"},
};
static_assert(vocabulary::covers(arg_role_words, all_arg_roles));

std::string_view to_string(arg_role role) { return vocabulary::word_of(arg_role_words, role); }

std::optional<arg_role> arg_role_from_string(std::string_view text) {
  return vocabulary::value_of(arg_role_words, text);
}

constexpr vocabulary::enum_word<init_kind> init_kind_words[] = {
    {init_kind::uniform, "uniform"},
    {init_kind::normal, "normal"},
    {init_kind::constant, "constant"},
    {init_kind::zeros, "zeros"},
    {init_kind::ones, "ones"},
    {init_kind::iota, "iota"},
};
static_assert(vocabulary::covers(init_kind_words, all_init_kinds));

std::string_view to_string(init_kind kind) { return vocabulary::word_of(init_kind_words, kind); }

std::optional<init_kind> init_kind_from_string(std::string_view text) {
  return vocabulary::value_of(init_kind_words, text);
}

constexpr vocabulary::enum_word<reference_kind> reference_kind_words[] = {
    {reference_kind::self, "self"},
    {reference_kind::kernel, "kernel"},
    {reference_kind::file, "file"},
};
static_assert(vocabulary::covers(reference_kind_words, all_reference_kinds));

std::string_view to_string(reference_kind kind) { return vocabulary::word_of(reference_kind_words, kind); }

std::optional<reference_kind> reference_kind_from_string(std::string_view text) {
  return vocabulary::value_of(reference_kind_words, text);
}

tolerance tolerance_for(const reference_spec& reference, dtype output) {
  tolerance out;
  switch (output) {
  case dtype::f16: out = {defaults::rtol_f16, defaults::atol_f16}; break;
  case dtype::bf16: out = {defaults::rtol_bf16, defaults::atol_bf16}; break;
  case dtype::f32: out = {defaults::rtol_f32, defaults::atol_f32}; break;
  case dtype::f64: out = {defaults::rtol_f64, defaults::atol_f64}; break;
  default: out = {defaults::rtol_integer, defaults::atol_integer}; break;
  }
  if (reference.rtol)
    out.rtol = *reference.rtol;
  if (reference.atol)
    out.atol = *reference.atol;
  return out;
}

const dim_spec* problem_spec::find_dim(std::string_view dim_name) const {
  for (const auto& dim : dims)
    if (dim.name == dim_name)
      return &dim;
  return nullptr;
}

const tunable_spec* problem_spec::find_tunable(std::string_view tunable_name) const {
  for (const auto& tunable : tunables)
    if (tunable.name == tunable_name)
      return &tunable;
  return nullptr;
}

const std::string& arg_name(const arg_spec& arg) {
  return std::visit([](const auto& a) -> const std::string& { return a.name; }, arg);
}

namespace {

using toml_reader::index_key;
using toml_reader::join_key;
using toml_reader::presence;

// Every key the root of a problem spec may hold (a new table is one more entry here).
constexpr std::string_view root_keys[] = {"name",   "kernel",    "dims",    "tunables",
                                          "constraints", "args", "launch", "reference",
                                          "configs", "configs_file", "deploy", "work"};
constexpr std::string_view kernel_keys[] = {"source", "entry", "include_dirs", "flags", "arch"};
constexpr std::string_view tunable_keys[] = {"name", "values", "range", "default", "method"};
constexpr std::string_view range_keys[] = {"from", "to", "step"};
constexpr std::string_view buffer_keys[] = {"name", "dtype", "count", "role", "init"};
constexpr std::string_view scalar_keys[] = {"name", "dtype", "value"};
constexpr std::string_view launch_keys[] = {"grid", "block", "dynamic_smem"};
constexpr std::string_view reference_self_keys[] = {"kind", "rtol", "atol", "allow_lower_precision"};
constexpr std::string_view reference_kernel_keys[] = {"kind",   "source", "entry", "flags",
                                                      "launch", "rtol",   "atol",  "allow_lower_precision"};
constexpr std::string_view reference_file_keys[] = {"kind", "path", "rtol", "atol", "allow_lower_precision"};
constexpr std::string_view init_uniform_keys[] = {"kind", "low", "high"};
constexpr std::string_view init_normal_keys[] = {"kind", "mean", "stddev"};
constexpr std::string_view init_constant_keys[] = {"kind", "value"};
constexpr std::string_view init_plain_keys[] = {"kind"};

using defaults::max_search_space_points;
using defaults::max_tunable_values;

bool mentions_word(std::string_view text, std::string_view word) {
  const auto is_word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  for (std::size_t at = text.find(word); at != std::string_view::npos;
       at = text.find(word, at + 1)) {
    const bool starts = at == 0 || !is_word_char(text[at - 1]);
    const std::size_t end = at + word.size();
    const bool ends = end == text.size() || !is_word_char(text[end]);
    if (starts && ends)
      return true;
  }
  return false;
}

bool is_arch(std::string_view text) {
  // sm_90, sm_90a, sm_100f, compute_90
  std::string_view digits;
  if (text.starts_with("sm_"))
    digits = text.substr(3);
  else if (text.starts_with("compute_"))
    digits = text.substr(8);
  else
    return false;
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f'))
    digits.remove_suffix(1);
  return !digits.empty() &&
         std::all_of(digits.begin(), digits.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

class problem_parser {
public:
  problem_parser(const std::filesystem::path& file, const load_options& options, toml_reader::placed_errors& errors)
      : file_(file), options_(options), r_(file.string(), errors) {}

  void parse(const toml::table& root, problem_spec& spec) {
    r_.set_root_keys(root_keys);
    r_.check_keys(root, "", root_keys);
    if (auto name = r_.string(root, "", "name", presence::required)) {
      if (name->empty())
        r_.error(root.get("name")->source(), "name", "must not be empty",
                 "name the problem, e.g. name = \"vector_add\"");
      spec.name = *name;
    }
    const auto* kernel = r_.table(root, "", "kernel", presence::required);
    if (kernel)
      spec.kernel = parse_kernel(*kernel, "kernel", kernel_keys);
    if (const auto* dims = r_.table(root, "", "dims", presence::optional))
      spec.dims = parse_dims(*dims);
    if (const auto* tunables = r_.array(root, "", "tunables", presence::optional)) {
      spec.tunables = parse_tunables(*tunables);
      check_space_size(spec.tunables);
    }
    detail::read_configs(root, r_, spec, broken_, options_.read_configs_file);
    if (const auto* deploy = r_.table(root, "", "deploy", presence::optional))
      spec.deploy = deploy::read_deploy_table(*deploy, "deploy", r_, file_);
    if (spec.deploy && spec.deploy->kernel.empty()) // observed timing watches the problem's kernel
      spec.deploy->kernel = spec.kernel.entry;
    if (kernel) // relative to the project, which [deploy] may name
      spec.kernel.include_dirs = parse_include_dirs(*kernel, spec);
    if (const auto* constraints = r_.array(root, "", "constraints", presence::optional))
      spec.constraints = parse_constraints(*constraints);
    if (const auto* work = r_.table(root, "", "work", presence::optional)) {
      static constexpr std::string_view work_keys[] = {"flop"};
      r_.check_keys(*work, "work", work_keys);
      if (const auto* flop = work->get("flop"))
        spec.flop = parse_expression(*flop, "work.flop", "a FLOP count");
    }
    if (const auto* args = r_.array(root, "", "args", presence::required))
      spec.args = parse_args(*args);
    if (const auto* launch = r_.table(root, "", "launch", presence::required))
      spec.launch = parse_launch(*launch, "launch");
    if (const auto* reference = r_.table(root, "", "reference", presence::optional)) {
      spec.reference = parse_reference(*reference);
      check_lower_precision(*reference, spec);
    } else
      spec.reference.kind = reference_kind::self;
  }

  const std::set<std::string, std::less<>>& broken_names() const { return broken_; }

private:
  // --- [kernel] and reference kernels ---------------------------------------------------------
  // [kernel] include_dirs: folders relative to the problem's project ([deploy] project, else the
  // spec's folder), each inside it lexically and after resolving symbolic links.
  std::vector<std::filesystem::path> parse_include_dirs(const toml::table& kernel, const problem_spec& spec) {
    namespace fs = std::filesystem;
    std::vector<fs::path> out;
    const auto* dirs = r_.array(kernel, "kernel", "include_dirs", presence::optional);
    if (!dirs)
      return out;
    std::error_code ec;
    const bool declared = spec.deploy && !spec.deploy->project.empty(); // empty: [deploy] has errors
    fs::path project = declared ? spec.deploy->project
                                : fs::weakly_canonical(fs::absolute(detail::resolve_against(file_, ".")), ec);
    if (project.has_parent_path() && project.filename().empty()) // "/a/b/" is "/a/b"
      project = project.parent_path();
    const std::string where = "the project '" + project.string() + "'" +
                              (declared ? " ([deploy] project)" : " (the spec's folder)");
    const auto inside = [&](const fs::path& path) {
      const auto [p, d] = std::mismatch(path.begin(), path.end(), project.begin(), project.end());
      return d == project.end();
    };
    for (std::size_t i = 0; i < dirs->size(); ++i) {
      const auto& node = *dirs->get(i);
      const std::string key = index_key("kernel.include_dirs", i);
      const auto* text = node.as_string();
      if (!text) {
        r_.wrong_type(node, key, "a string", "folders of the project, e.g. include_dirs = [\"include\"]");
        continue;
      }
      const fs::path written{text->get()};
      if (written.empty() || written.is_absolute()) {
        r_.error(node.source(), key, "'" + written.string() + "' is not a folder relative to " + where,
                 "write the folder as it is below the project, e.g. \"include\"");
        continue;
      }
      const fs::path lexical = (project / written).lexically_normal();
      if (!inside(lexical)) {
        r_.error(node.source(), key, "'" + written.string() + "' is outside " + where,
                 "only the project's own folders may be included from; a header elsewhere is not read");
        continue;
      }
      const fs::path resolved = fs::canonical(lexical, ec);
      if (ec || !fs::is_directory(resolved)) {
        r_.error(node.source(), key, "'" + written.string() + "' is not a folder of " + where + " (looked for " +
                   lexical.string() + ")", "paths are relative to the project");
        continue;
      }
      if (!inside(resolved)) {
        r_.error(node.source(), key, "'" + written.string() + "' leads outside " + where + " through a symbolic link (to " +
                   resolved.string() + ")", "only the project's own folders may be included from");
        continue;
      }
      out.push_back(resolved);
    }
    return out;
  }

  kernel_spec parse_kernel(const toml::table& table, const std::string& path,
                           std::span<const std::string_view> known) {
    r_.check_keys(table, path, known);
    kernel_spec out;
    std::optional<std::string> source_text;
    if (auto source = r_.string(table, path, "source", presence::required)) {
      out.source = detail::resolve_against(file_, *source);
      if (auto text = toml_reader::read_text(out.source))
        source_text = std::move(*text);
      else
        r_.error(table.get("source")->source(), join_key(path, "source"),
                 "cannot read the kernel source " + out.source.string() + ": " + text.error(),
                 "paths are relative to the folder of the spec file");
    }
    if (auto entry = r_.string(table, path, "entry", presence::required)) {
      out.entry = *entry;
      const auto& at = table.get("entry")->source();
      const auto parsed = parse_kernel_entry(*entry);
      if (!parsed)
        r_.error(at, join_key(path, "entry"), "'" + *entry + "' is not a kernel entry: " + parsed.error(),
                 "name the __global__ function: transposeNaive, ns::scale, MatrixMulCUDA<32>, "
                 "reduce7<int, 256, true>, or over(float*, int) for one of several overloads");
      else if (source_text && !mentions_word(*source_text, base_name(*parsed)))
        r_.error(at, join_key(path, "entry"),
                 "the source " + out.source.filename().string() + " never mentions '" +
                   std::string{base_name(*parsed)} + "'",
                 "the entry is a __global__ function of the source (or of a header it includes "
                 "from include_dirs, when the source names it)");
    }
    if (const auto* flags = r_.array(table, path, "flags", presence::optional)) {
      for (std::size_t i = 0; i < flags->size(); ++i) {
        const auto& node = *flags->get(i);
        if (const auto* flag = node.as_string())
          out.flags.push_back(flag->get());
        else
          r_.wrong_type(node, index_key(join_key(path, "flags"), i), "a string",
                        "flags are strings, e.g. flags = [\"-use_fast_math\"]");
      }
    }
    if (std::find(known.begin(), known.end(), "arch") != known.end()) {
      if (auto arch = r_.string(table, path, "arch", presence::optional)) {
        if (!is_arch(*arch))
          r_.error(table.get("arch")->source(), join_key(path, "arch"),
                   "'" + *arch + "' is not a GPU architecture",
                   "write it as nvcc does: sm_90, sm_90a, sm_100f, compute_90");
        else
          out.arch = *arch;
      }
    }
    return out;
  }

  // --- [dims] -----------------------------------------------------------------------------------
  std::vector<dim_spec> parse_dims(const toml::table& table) {
    std::vector<dim_spec> out;
    for (const auto& [key, node] : table) {
      const std::string name{key.str()};
      const std::string full_key = join_key("dims", name);
      declared_.insert(name);
      if (!detail::is_identifier(name)) {
        r_.error(key.source(), full_key, "'" + name + "' is not a valid name",
                 "names are C identifiers: letters, digits and '_', not starting with a digit");
        broken_.insert(name);
        continue;
      }
      if (const auto* value = node.as_integer()) {
        out.push_back({name, value->get(), toml_reader::place_of(key.source())});
      } else {
        r_.wrong_type(node, full_key, "an integer",
                      "dims are integers; derived sizes go in expressions (count = \"2*N\")");
        broken_.insert(name);
      }
    }
    // toml++ tables are sorted by key; the spec keeps the file's order.
    std::stable_sort(out.begin(), out.end(), [](const dim_spec& a, const dim_spec& b) {
      return std::pair{a.place.line, a.place.column} < std::pair{b.place.line, b.place.column};
    });
    return out;
  }

  // --- [[tunables]] -----------------------------------------------------------------------------
  std::vector<tunable_spec> parse_tunables(const toml::array& array) {
    std::vector<tunable_spec> out;
    for (std::size_t i = 0; i < array.size(); ++i) {
      const std::string path = index_key("tunables", i);
      const auto* table = array.get(i)->as_table();
      if (table == nullptr) {
        r_.wrong_type(*array.get(i), path, "a table", "write each tunable as [[tunables]]");
        continue;
      }
      if (auto tunable = parse_tunable(*table, path))
        out.push_back(std::move(*tunable));
    }
    return out;
  }

  // The grid is the product of the value counts: past max_search_space_points, the tunable where
  // the product crossed the bound is named.
  void check_space_size(const std::vector<tunable_spec>& tunables) {
    std::uint64_t points = 1;
    for (std::size_t i = 0; i < tunables.size(); ++i) {
      const auto count = static_cast<std::uint64_t>(tunables[i].values.size());
      if (count == 0)
        continue;
      if (points > max_search_space_points / count) {
        r_.error(tunables[i].place, index_key("tunables", i),
                 "the tunables up to '" + tunables[i].name + "' span more than " +
                   std::to_string(max_search_space_points) + " grid points (the product of their value counts)",
                 "list fewer values, or split the problem; constraints do not shrink the grid");
        return;
      }
      points *= count;
    }
  }

  std::optional<tunable_spec> parse_tunable(const toml::table& table, const std::string& path) {
    r_.check_keys(table, path, tunable_keys);
    tunable_spec out;
    out.place = toml_reader::place_of(table.source());
    const auto errors_before = r_.errors().size();
    auto name = r_.string(table, path, "name", presence::required);
    if (name && !declare(*name, table.get("name")->source(), join_key(path, "name")))
      name.reset();
    if (name)
      out.name = *name;
    const toml::node* values = table.get("values");
    const toml::node* range = table.get("range");
    if (values != nullptr && range != nullptr) {
      r_.error(range->source(), join_key(path, "range"), "give `values` or `range`, not both",
               "remove one of them");
    } else if (values != nullptr) {
      out.values = parse_values(*values, join_key(path, "values"));
    } else if (range != nullptr) {
      out.values = parse_range(*range, join_key(path, "range"));
    } else {
      r_.error(table.source(), join_key(path, "values"),
               "missing `values` (or `range`) for the tunable",
               "values = [128, 256] or range = { from = 1, to = 8, step = 1 }");
    }
    if (!out.values.empty())
      out.default_value = out.values.front();
    if (const toml::node* fallback = table.get("default")) {
      if (const auto* value = fallback->as_integer()) {
        const bool listed =
          std::find(out.values.begin(), out.values.end(), value->get()) != out.values.end();
        if (listed)
          out.default_value = value->get();
        else if (!out.values.empty())
          r_.error(fallback->source(), join_key(path, "default"),
                   "default " + std::to_string(value->get()) + " is not one of the values",
                   "the default must be listed in `values` (or lie on the `range`)");
      } else {
        r_.wrong_type(*fallback, join_key(path, "default"), "an integer");
      }
    }
    if (auto method = r_.string(table, path, "method", presence::optional)) {
      if (!detail::is_identifier(*method))
        r_.error(table.get("method")->source(), join_key(path, "method"),
                 "'" + *method + "' is not a method name",
                 "method names are snake_case identifiers, e.g. \"tiling_smem\"");
      else
        out.method = *method;
    }
    if (r_.errors().size() != errors_before) {
      if (name)
        broken_.insert(*name); // expressions using it are not evaluated: no cascade of errors
      return std::nullopt;
    }
    return out;
  }

  std::vector<std::int64_t> parse_values(const toml::node& node, const std::string& key) {
    std::vector<std::int64_t> out;
    const auto* array = node.as_array();
    if (array == nullptr) {
      r_.wrong_type(node, key, "an array of integers", "values = [128, 256, 512]");
      return out;
    }
    if (array->empty()) {
      r_.error(node.source(), key, "must not be empty", "list at least one value");
      return out;
    }
    if (array->size() > max_tunable_values) { // refused before a value is read
      r_.error(node.source(), key,
               "the list has " + std::to_string(array->size()) + " values, more than " +
                 std::to_string(max_tunable_values),
               "a tunable takes at most " + std::to_string(max_tunable_values) + " values; list fewer");
      return {};
    }
    out.reserve(array->size());
    std::unordered_set<std::int64_t> listed; // duplicates in O(n)
    listed.reserve(array->size());
    for (std::size_t i = 0; i < array->size(); ++i) {
      const auto& element = *array->get(i);
      const auto* value = element.as_integer();
      if (value == nullptr) {
        r_.wrong_type(element, index_key(key, i), "an integer",
                      element.is_boolean() ? "write 0 or 1 for on/off tunables" : "");
        return {};
      }
      if (!listed.insert(value->get()).second) {
        r_.error(element.source(), index_key(key, i),
                 "value " + std::to_string(value->get()) + " is listed twice", "remove one");
        return {};
      }
      out.push_back(value->get());
    }
    return out;
  }

  std::vector<std::int64_t> parse_range(const toml::node& node, const std::string& key) {
    const auto* table = node.as_table();
    if (table == nullptr) {
      r_.wrong_type(node, key, "a table", "range = { from = 1, to = 8, step = 1 }");
      return {};
    }
    r_.check_keys(*table, key, range_keys);
    const auto from = r_.integer(*table, key, "from", presence::required);
    const auto to = r_.integer(*table, key, "to", presence::required);
    const auto step = r_.integer(*table, key, "step", presence::optional).value_or(1);
    if (!from || !to)
      return {};
    if (step < 1) {
      r_.error(table->get("step")->source(), join_key(key, "step"),
               "step must be >= 1, got " + std::to_string(step), "the range counts up from `from`");
      return {};
    }
    if (*from > *to) {
      r_.error(node.source(), key,
               "from (" + std::to_string(*from) + ") is greater than to (" + std::to_string(*to) +
                 ")",
               "the range is from, from+step, ... up to and including to");
      return {};
    }
    // Count first, without overflow, then materialise.
    const auto span = static_cast<std::uint64_t>(*to) - static_cast<std::uint64_t>(*from);
    const std::uint64_t count = span / static_cast<std::uint64_t>(step) + 1;
    if (count > max_tunable_values) {
      r_.error(node.source(), key,
               "the range has " + std::to_string(count) + " values, more than " +
                 std::to_string(max_tunable_values),
               "use a larger step, or list the values");
      return {};
    }
    std::vector<std::int64_t> out;
    for (std::uint64_t i = 0; i < count; ++i)
      out.push_back(*from + static_cast<std::int64_t>(i) * step);
    return out;
  }

  // Records a dim or tunable name; false (with an error) when invalid or already taken.
  bool declare(const std::string& name, const toml::source_region& at, const std::string& key) {
    if (!detail::is_identifier(name)) {
      r_.error(at, key, "'" + name + "' is not a valid name",
               "names are C identifiers: letters, digits and '_', not starting with a digit");
      return false;
    }
    if (!declared_.insert(name).second) {
      r_.error(at, key, "the name '" + name + "' is already used by a dim or tunable",
               "dims and tunables share one namespace; rename one");
      return false;
    }
    return true;
  }

  // --- expressions ------------------------------------------------------------------------------
  // A TOML integer or a string holding an expression. Names are checked when evaluated.
  std::optional<spec_expression> parse_expression(const toml::node& node, const std::string& key,
                                                  std::string_view what) {
    spec_expression out;
    out.key = key;
    out.place = toml_reader::place_of(node.source());
    if (const auto* value = node.as_integer()) {
      out.expr = expression::integer_expression::constant(value->get());
      return out;
    }
    const auto* text = node.as_string();
    if (text == nullptr) {
      r_.wrong_type(node, key, std::string{what} + " (an integer or an expression string)",
                    "e.g. 1024 or \"ceil_div(N, BLOCK)\"");
      return std::nullopt;
    }
    out.place = toml_reader::place_in_string(node, 1);
    auto parsed = expression::integer_expression::parse(text->get());
    if (!parsed) {
      const auto& failure = parsed.error();
      r_.error(toml_reader::place_in_string(node, failure.column), key,
               "bad expression \"" + text->get() + "\": " + failure.message,
               "see docs/specs.md, section Expressions");
      return std::nullopt;
    }
    out.expr = std::move(*parsed);
    return out;
  }

  std::vector<spec_expression> parse_constraints(const toml::array& array) {
    std::vector<spec_expression> out;
    for (std::size_t i = 0; i < array.size(); ++i) {
      const auto& node = *array.get(i);
      const std::string key = index_key("constraints", i);
      if (!node.is_string()) {
        r_.wrong_type(node, key, "a string", "constraints = [\"TILE_X * TILE_Y <= 1024\"]");
        continue;
      }
      if (auto constraint = parse_expression(node, key, "a constraint"))
        out.push_back(std::move(*constraint));
    }
    return out;
  }

  // --- [[args]] ---------------------------------------------------------------------------------
  std::vector<arg_spec> parse_args(const toml::array& array) {
    std::vector<arg_spec> out;
    std::set<std::string, std::less<>> names;
    bool has_output = false;
    for (std::size_t i = 0; i < array.size(); ++i) {
      const std::string path = index_key("args", i);
      const auto* table = array.get(i)->as_table();
      if (table == nullptr) {
        r_.wrong_type(*array.get(i), path, "a table", "write each argument as [[args]]");
        continue;
      }
      std::optional<arg_spec> arg;
      const bool scalar = table->contains("value") && !table->contains("count");
      if (scalar)
        arg = parse_scalar(*table, path);
      else
        arg = parse_buffer(*table, path);
      if (!arg)
        continue;
      const std::string& name = arg_name(*arg);
      if (!name.empty() && !names.insert(name).second)
        r_.error(table->get("name")->source(), join_key(path, "name"),
                 "the argument name '" + name + "' is used twice", "argument names are unique");
      if (const auto* buffer = std::get_if<buffer_spec>(&*arg))
        has_output = has_output || buffer->role != arg_role::input;
      out.push_back(std::move(*arg));
    }
    if (array.empty())
      r_.error(array.source(), "args", "the kernel has no arguments",
               "list each kernel parameter as an [[args]] entry, in order");
    else if (!has_output && out.size() == array.size())
      r_.error(array.source(), "args", "no output buffer: nothing to check or compare",
               "mark the buffer the kernel writes with role = \"output\" (or \"inout\")");
    return out;
  }

  std::optional<std::string> parse_arg_name(const toml::table& table, const std::string& path) {
    auto name = r_.string(table, path, "name", presence::required);
    if (name && !detail::is_identifier(*name)) {
      r_.error(table.get("name")->source(), join_key(path, "name"),
               "'" + *name + "' is not a valid name",
               "names are C identifiers: letters, digits and '_', not starting with a digit");
      return std::nullopt;
    }
    return name;
  }

  std::optional<dtype> parse_dtype(const toml::table& table, const std::string& path) {
    const toml::node* node = r_.find(table, path, "dtype", presence::required, "a dtype");
    if (node == nullptr)
      return std::nullopt;
    std::vector<std::string_view> names;
    for (const auto type : all_dtypes)
      names.push_back(to_string(type));
    const auto* text = node->as_string();
    if (text == nullptr) {
      r_.wrong_type(*node, join_key(path, "dtype"),
                    "a string: " + toml_reader::join_alternatives(names));
      return std::nullopt;
    }
    if (auto type = dtype_from_string(text->get()))
      return type;
    std::string hint;
    if (auto alias = dtype_from_alias(text->get()))
      hint = "did you mean '" + std::string{to_string(*alias)} + "'?";
    r_.unknown_value(toml_reader::place_of(node->source()), join_key(path, "dtype"), text->get(),
                     names, std::move(hint));
    return std::nullopt;
  }

  std::optional<arg_spec> parse_buffer(const toml::table& table, const std::string& path) {
    const auto errors_before = r_.errors().size();
    for (const auto& [key, node] : table)
      if (key.str() == "value")
        r_.error(key.source(), join_key(path, "value"),
                 "`value` is for scalar arguments; this one has a `count`, so it is a buffer",
                 "a buffer takes count, role and init; a scalar takes value");
    std::vector<std::string_view> known{std::begin(buffer_keys), std::end(buffer_keys)};
    known.push_back("value"); // reported above, with a better message
    r_.check_keys(table, path, known);
    buffer_spec out;
    out.place = toml_reader::place_of(table.source());
    if (auto name = parse_arg_name(table, path))
      out.name = *name;
    if (auto type = parse_dtype(table, path))
      out.type = *type;
    if (const auto* count = r_.find(table, path, "count", presence::required,
                                    "an element count (integer or expression)"))
      if (auto e = parse_expression(*count, join_key(path, "count"), "an element count"))
        out.count = std::move(*e);
    if (auto role = r_.enumeration(table, path, "role", presence::required, all_arg_roles,
                                   &arg_role_from_string))
      out.role = *role;
    if (const toml::node* init = table.get("init")) {
      if (out.role == arg_role::output && table.contains("role"))
        r_.error(init->source(), join_key(path, "init"),
                 "an output buffer is not initialised (the runner poisons it before the launch)",
                 "remove init, or make the role \"inout\"");
      else
        out.init = parse_init(*init, join_key(path, "init"));
    }
    if (r_.errors().size() != errors_before)
      return std::nullopt;
    return out;
  }

  init_spec parse_init(const toml::node& node, const std::string& key) {
    init_spec out;
    std::vector<std::string_view> names;
    for (const auto kind : all_init_kinds)
      names.push_back(to_string(kind));
    if (const auto* text = node.as_string()) {
      auto kind = init_kind_from_string(text->get());
      if (!kind) {
        r_.unknown_value(toml_reader::place_of(node.source()), key, text->get(), names);
        return out;
      }
      if (*kind == init_kind::constant) {
        r_.error(node.source(), key, "constant needs a value",
                 "init = { kind = \"constant\", value = 1.5 }");
        return out;
      }
      out.kind = *kind;
      return out;
    }
    const auto* table = node.as_table();
    if (table == nullptr) {
      r_.wrong_type(node, key, "a string or a table",
                    "init = \"zeros\" or init = { kind = \"normal\", mean = 0.0, stddev = 1.0 }");
      return out;
    }
    auto kind = r_.enumeration(*table, key, "kind", presence::required, all_init_kinds,
                               &init_kind_from_string);
    if (!kind)
      return out;
    out.kind = *kind;
    switch (*kind) {
    case init_kind::uniform:
      r_.check_keys(*table, key, init_uniform_keys);
      out.low = r_.number(*table, key, "low", presence::optional).value_or(defaults::uniform_low);
      out.high =
        r_.number(*table, key, "high", presence::optional).value_or(defaults::uniform_high);
      if (!(out.low < out.high))
        r_.error(table->source(), key,
                 "uniform needs low < high, got low = " + std::to_string(out.low) +
                   ", high = " + std::to_string(out.high),
                 "for a single value use kind = \"constant\"");
      break;
    case init_kind::normal:
      r_.check_keys(*table, key, init_normal_keys);
      out.mean = r_.number(*table, key, "mean", presence::optional).value_or(defaults::normal_mean);
      out.stddev =
        r_.number(*table, key, "stddev", presence::optional).value_or(defaults::normal_stddev);
      if (!(out.stddev > 0.0))
        r_.error(table->source(), key,
                 "normal needs stddev > 0, got " + std::to_string(out.stddev),
                 "for a single value use kind = \"constant\"");
      break;
    case init_kind::constant:
      r_.check_keys(*table, key, init_constant_keys);
      if (auto value = r_.number(*table, key, "value", presence::required))
        out.value = *value;
      break;
    case init_kind::zeros:
    case init_kind::ones:
    case init_kind::iota: r_.check_keys(*table, key, init_plain_keys); break;
    }
    return out;
  }

  std::optional<arg_spec> parse_scalar(const toml::table& table, const std::string& path) {
    const auto errors_before = r_.errors().size();
    std::vector<std::string_view> known{std::begin(scalar_keys), std::end(scalar_keys)};
    for (const auto& [key, node] : table) {
      const std::string_view name = key.str();
      if (name == "role" || name == "init")
        r_.error(key.source(), join_key(path, name),
                 "`" + std::string{name} + "` is for buffers; this argument has a `value`, so it "
                                           "is a scalar",
                 "a buffer takes count, role and init; a scalar takes value");
    }
    known.push_back("role");
    known.push_back("init");
    r_.check_keys(table, path, known);
    scalar_spec out;
    out.place = toml_reader::place_of(table.source());
    if (auto name = parse_arg_name(table, path))
      out.name = *name;
    const auto type = parse_dtype(table, path);
    if (type)
      out.type = *type;
    const toml::node& value = *table.get("value");
    const std::string key = join_key(path, "value");
    if (const auto* number = value.as_floating_point()) {
      if (type && !is_floating_point(*type))
        r_.error(value.source(), key,
                 "a float value for the integer dtype " + std::string{to_string(*type)},
                 "give an integer, or use a float dtype (f16, bf16, f32, f64)");
      out.float_value = number->get();
      out.value.key = key;
      out.value.place = toml_reader::place_of(value.source());
    } else if (auto e = parse_expression(value, key, "a value")) {
      out.value = std::move(*e);
    }
    if (r_.errors().size() != errors_before)
      return std::nullopt;
    return out;
  }

  // --- [launch] ---------------------------------------------------------------------------------
  launch_spec parse_launch(const toml::table& table, const std::string& path) {
    r_.check_keys(table, path, launch_keys);
    launch_spec out;
    parse_dimensions(table, path, "grid", out.grid);
    parse_dimensions(table, path, "block", out.block);
    const std::string smem_key = join_key(path, "dynamic_smem");
    if (const toml::node* smem = table.get("dynamic_smem")) {
      if (auto e = parse_expression(*smem, smem_key, "bytes of dynamic shared memory"))
        out.dynamic_smem = std::move(*e);
    } else {
      out.dynamic_smem = {expression::integer_expression::constant(defaults::dynamic_smem_bytes),
                          smem_key, toml_reader::place_of(table.source())};
    }
    return out;
  }

  void parse_dimensions(const toml::table& table, const std::string& path, std::string_view key,
                        std::array<spec_expression, 3>& out) {
    const std::string full_key = join_key(path, key);
    const auto* array = r_.array(table, path, key, presence::required);
    if (array == nullptr)
      return;
    if (array->empty() || array->size() > defaults::max_launch_dimensions) {
      r_.error(array->source(), full_key,
               "expected 1 to 3 entries (x, y, z), got " + std::to_string(array->size()),
               "e.g. " + std::string{key} + " = [\"ceil_div(N, BLOCK)\", 1, 1]");
      return;
    }
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (i < array->size()) {
        if (auto e = parse_expression(*array->get(i), index_key(full_key, i), "a dimension"))
          out[i] = std::move(*e);
      } else {
        out[i] = {expression::integer_expression::constant(1), index_key(full_key, i),
                  toml_reader::place_of(array->source())};
      }
    }
  }

  // --- [reference] ------------------------------------------------------------------------------
  // allow_lower_precision speaks of float outputs: on a problem without one it would say nothing.
  void check_lower_precision(const toml::table& table, problem_spec& spec) {
    const auto allowed = r_.boolean(table, "reference", "allow_lower_precision", presence::optional);
    if (!allowed)
      return;
    const bool float_output = std::any_of(spec.args.begin(), spec.args.end(), [](const arg_spec& arg) {
      const auto* b = std::get_if<buffer_spec>(&arg);
      return b != nullptr && b->role != arg_role::input && is_floating_point(b->type);
    });
    if (!float_output && !spec.args.empty()) {
      r_.error(table.get("allow_lower_precision")->source(), "reference.allow_lower_precision",
               "the problem has no float output (output or inout buffer of f16, bf16, f32 or f64)",
               "remove it: lower precision is about float arithmetic narrower than the outputs");
      return;
    }
    spec.reference.allow_lower_precision = *allowed;
  }

  reference_spec parse_reference(const toml::table& table) {
    reference_spec out;
    const std::string path = "reference";
    auto kind = r_.enumeration(table, path, "kind", presence::required, all_reference_kinds,
                               &reference_kind_from_string);
    if (kind)
      out.kind = *kind;
    switch (kind.value_or(reference_kind::self)) {
    case reference_kind::self:
      r_.check_keys(table, path, reference_self_keys);
      break;
    case reference_kind::kernel:
      out.kernel = parse_kernel(table, path, reference_kernel_keys);
      if (const auto* launch = r_.table(table, path, "launch", presence::optional))
        out.launch = parse_launch(*launch, join_key(path, "launch"));
      break;
    case reference_kind::file:
      r_.check_keys(table, path, reference_file_keys);
      if (auto file = r_.string(table, path, "path", presence::required)) {
        out.expected_file = detail::resolve_against(file_, *file);
        std::error_code ec;
        if (!std::filesystem::is_regular_file(out.expected_file, ec))
          r_.error(table.get("path")->source(), join_key(path, "path"),
                   "expected-values file not found: " + out.expected_file.string(),
                   "paths are relative to the folder of the spec file");
      }
      break;
    }
    for (const std::string_view name : {"rtol", "atol"}) {
      if (auto value = r_.number(table, path, name, presence::optional)) {
        if (!(*value >= 0.0))
          r_.error(table.get(name)->source(), join_key(path, name),
                   std::string{name} + " must be >= 0, got " + std::to_string(*value),
                   "tolerances are |got - want| <= atol + rtol * |want|");
        else
          (name == "rtol" ? out.rtol : out.atol) = *value;
      }
    }
    return out;
  }

  std::filesystem::path file_;
  load_options options_;
  toml_reader::reader r_;
  std::set<std::string, std::less<>> declared_; // dims and tunables, even broken ones
  std::set<std::string, std::less<>> broken_;   // declared, but rejected: skip dependent checks
};

void check_expected_file(const problem_spec& spec, const resolved_problem& at_default,
                         toml_reader::place at, toml_reader::placed_errors& errors) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(spec.reference.expected_file, ec);
  if (ec || size == at_default.output_bytes)
    return;
  errors.push_back({spec.file, at.line, at.column, "reference.path",
                    "the expected-values file has " + std::to_string(size) +
                      " bytes; the output and inout buffers take " +
                      std::to_string(at_default.output_bytes) + " at the default point",
                    "the file holds every output and inout buffer, raw little-endian, "
                    "concatenated in argument order (docs/specs.md)"});
}

// Every expression at the default point of each configuration (an error names the config).
void check_every_config(const problem_spec& spec, const std::set<std::string, std::less<>>& broken,
                        toml_reader::placed_errors& errors) {
  const auto point = default_point(spec);
  for (const auto& config : problem_configs(spec))
    if (auto resolved = resolve_problem_all(spec, point, config, broken); !resolved)
      errors.insert(errors.end(), resolved.error().begin(), resolved.error().end());
}

} // namespace

expected<problem_spec, toml_reader::placed_errors>
parse_problem(std::string_view text, const std::filesystem::path& file, const load_options& options) {
  toml_reader::placed_errors errors;
  auto root = toml_reader::parse(text, file.string());
  if (!root)
    return unexpected(toml_reader::placed_errors{std::move(root).error()});
  problem_spec spec;
  spec.file = file.string();
  spec.raw_text = std::string{text};
  problem_parser parser{file, options, errors};
  parser.parse(*root, spec);
  // Every expression at the default point: names, division by zero, sizes, launch limits.
  auto at_default = resolve_problem_all(spec, default_point(spec), parser.broken_names());
  if (!at_default) {
    errors.insert(errors.end(), at_default.error().begin(), at_default.error().end());
  } else {
    if (!spec.configs.empty())
      check_every_config(spec, parser.broken_names(), errors);
    if (spec.reference.kind == reference_kind::file && errors.empty())
      if (const toml::node* path = root->at_path("reference.path").node()) {
        if (!spec.configs.empty())
          errors.push_back({spec.file, toml_reader::place_of(path->source()).line,
                            toml_reader::place_of(path->source()).column, "reference.path",
                            "an expected-values file holds the outputs of one size; this problem "
                            "has [[configs]]",
                            "use kind = \"self\" or a reference kernel"});
        else
          check_expected_file(spec, *at_default, toml_reader::place_of(path->source()), errors);
      }
  }
  if (!errors.empty()) {
    toml_reader::sort_by_place(errors);
    return unexpected(std::move(errors));
  }
  return spec;
}

expected<problem_spec, toml_reader::placed_errors> load_problem(const std::filesystem::path& path,
                                                                const load_options& options) {
  auto text = toml_reader::read_file(path, "the problem spec");
  if (!text)
    return unexpected(toml_reader::placed_errors{std::move(text).error()});
  return parse_problem(*text, path, options);
}

} // namespace warpforge::config
