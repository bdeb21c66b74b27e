#include "deploy/observe/draft/draft_problem.hpp"

#include "config/dtype.hpp"
#include "deploy/observe/draft/kernel_signature.hpp"
#include "deploy/observe/draft/kernel_source.hpp"
#include "deploy/regions/region_markers.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

namespace warpforge::observe {
namespace {

namespace fs = std::filesystem;

/// Threads a block may hold (every CUDA GPU since compute capability 2.0).
constexpr std::int64_t max_block_threads = 1024;
/// A proposed tunable's values span its default / spread .. default * spread (powers of two).
constexpr std::int64_t tunable_spread = 4;

/// A TOML basic string: quotes, backslashes and control characters escaped, so a value taken
/// from the program (its arguments, its paths) stays one value.
std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// Text for a TOML comment: a line break in it (an argument, a path) would end the comment and
/// let the rest be read as TOML, so control characters become '?'.
std::string one_line(std::string_view text) {
  std::string out{text};
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

std::string hex_address(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

bool is_power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// A template argument as an integer ("256u", "32", "-1"); nullopt for a type or bool.
std::optional<std::int64_t> integer_argument(std::string_view arg) {
  while (!arg.empty() && (arg.back() == 'u' || arg.back() == 'U' || arg.back() == 'l' || arg.back() == 'L'))
    arg.remove_suffix(1);
  if (arg.empty()) return std::nullopt;
  std::int64_t value = 0;
  std::size_t i = arg.front() == '-' ? 1 : 0;
  if (i == arg.size()) return std::nullopt;
  for (; i < arg.size(); ++i) {
    if (arg[i] < '0' || arg[i] > '9') return std::nullopt;
    value = value * 10 + (arg[i] - '0');
  }
  return arg.front() == '-' ? -value : value;
}

/// One observed configuration: its representative and the launch standing for it.
struct observed_config {
  const representative_config* rep = nullptr;
  const launch_record* launch = nullptr;
};

struct dim_guess {
  std::string name;
  std::size_t param = 0;
  std::vector<std::int64_t> values; // per config
};

struct tunable_guess {
  std::string name;
  std::int64_t value = 0;       // the observed (default) value
  std::string found;            // how: "#define at line N" / "template parameter 'blockSize'"
  std::optional<std::size_t> template_position; // for a template parameter: its argument's position
  bool in_block = false;        // sets a block size (so it is proposed)
  bool used = false;            // appears in a launch expression
};

/// An integer expression guess: its text and how it was found.
struct expression_guess {
  std::string text;
  std::string how;
};

class drafter {
public:
  explicit drafter(const draft_request& request) : r_(request) {}

  expected<drafted_problem, std::string> run() {
    if (r_.launches.empty())
      return unexpected{std::string{"the kernel never launched in the observed run: nothing to draft from"}};
    if (auto one = one_instantiation(); !one) return unexpected{one.error()};
    auto signature = parse_kernel_signature(r_.launches.front().demangled);
    if (!signature) return unexpected{"the kernel's signature: " + signature.error()};
    sig_ = std::move(*signature);
    for (const auto& launch : r_.launches)
      if (launch.params.size() != sig_.params.size())
        return unexpected{"launch " + std::to_string(launch.sequence) + " has " + std::to_string(launch.params.size()) +
                          " parameter values for the signature's " + std::to_string(sig_.params.size()) +
                          (launch.params.empty() ? " (observed without argument values: init needs the injection library, not ncu)" : "")};
    if (auto source = read_source(); !source) return unexpected{source.error()};
    auto selection = select_representative(r_.launches, r_.options);
    if (!selection) return unexpected{"choosing the configurations: " + selection.error()};
    selection_ = std::move(*selection);
    if (selection_.configs.empty())
      return unexpected{std::string{"no launch of the kernel has a duration, so no configuration can be chosen"}};
    for (const auto& rep : selection_.configs) {
      auto launch = std::find_if(r_.launches.begin(), r_.launches.end(),
                                 [&](const launch_record& l) { return l.sequence == rep.median_sequence; });
      configs_.push_back({&rep, launch == r_.launches.end() ? &r_.launches.front() : &*launch});
    }
    guess_dims();
    guess_tunables();
    if (auto launch = guess_launch(); !launch) return unexpected{launch.error()};
    if (auto args = guess_args(); !args) return unexpected{args.error()};
    drafted_problem out;
    out.kernel_file_name = unqualified_base() + ".kernel.cu";
    out.kernel_text = kernel_text();
    out.region = region_.name;
    out.spec_text = spec_text(out.kernel_file_name);
    out.review = review_;
    return out;
  }

private:
  // --- reading ---------------------------------------------------------------------------------

  expected<void, std::string> one_instantiation() {
    std::set<std::string> seen;
    for (const auto& launch : r_.launches) seen.insert(launch.demangled);
    if (seen.size() == 1) return {};
    std::string list;
    for (const auto& name : seen) list += "\n  " + kernel_template_id(name);
    return unexpected{"the name matches " + std::to_string(seen.size()) +
                      " kernels (template instantiations); name one with --kernel:" + list};
  }

  std::string unqualified_base() const {
    const auto at = sig_.base_name.rfind("::");
    return at == std::string::npos ? sig_.base_name : sig_.base_name.substr(at + 2);
  }

  expected<void, std::string> read_source() {
    const std::string origin = r_.source_file.string();
    auto definition = find_kernel_definition(r_.source_text, unqualified_base(), sig_.params.size(), origin);
    if (!definition)
      return unexpected{definition.error() + " (found by " + r_.source_found_by + "; give the file that defines it with --source)"};
    def_ = std::move(*definition);
    auto regions = deploy::read_regions(r_.source_text, origin);
    if (!regions) return unexpected{regions.error()};
    for (const auto& region : *regions)
      if (region.begin_line < def_.line && def_.line < region.end_line) region_ = region;
    if (region_.name.empty())
      return unexpected{origin + ":" + std::to_string(def_.line) + ": the kernel " + unqualified_base() +
                        " is not inside a region: put a line `// warpforge:begin " + unqualified_base() +
                        "` before it and `// warpforge:end " + unqualified_base() +
                        "` after it, around everything it needs to compile on its own (the CUDA headers it "
                        "includes, its helpers, the #defines it uses) and no host code; a deploy replaces only "
                        "those lines"};
    region_text_ = r_.source_text.substr(region_.content_begin, region_.content_end - region_.content_begin);
    return {};
  }

  std::string param_name(std::size_t i) const {
    if (i < def_.param_names.size() && !def_.param_names[i].empty()) return def_.param_names[i];
    return "arg" + std::to_string(i);
  }

  bool name_taken(const std::string& name) const {
    for (const auto& d : dims_) if (d.name == name) return true;
    for (const auto& t : tunables_) if (t.name == name) return true;
    return false;
  }

  // --- dims: one per integer scalar --------------------------------------------------------------

  void guess_dims() {
    for (std::size_t i = 0; i < sig_.params.size(); ++i) {
      const auto& p = sig_.params[i];
      if (p.kind != param_kind::scalar || config::is_floating_point(p.dtype)) continue;
      dim_guess dim{upper_snake(param_name(i)), i, {}};
      bool positive = true;
      for (const auto& c : configs_) {
        auto value = config::is_signed_integer(p.dtype) ? as_signed(c.launch->params[i])
                                                       : std::optional<std::int64_t>{static_cast<std::int64_t>(
                                                           as_unsigned(c.launch->params[i]).value_or(0))};
        dim.values.push_back(value.value_or(0));
        positive = positive && value && *value >= 1;
      }
      if (!positive) continue; // dims are >= 1: such a scalar is written as its value
      while (name_taken(dim.name) || uses_identifier(region_text_, dim.name)) dim.name += "_DIM";
      dims_.push_back(std::move(dim));
    }
  }

  const dim_guess* dim_of_param(std::size_t i) const {
    for (const auto& d : dims_) if (d.param == i) return &d;
    return nullptr;
  }

  // --- tunables: template parameters and #defines --------------------------------------------------

  void guess_tunables() {
    for (std::size_t j = 0; j < sig_.template_args.size() && j < def_.template_params.size(); ++j) {
      auto value = integer_argument(sig_.template_args[j]);
      const std::string& param = def_.template_params[j];
      if (!value || param.empty() || sig_.template_args[j] == "true" || sig_.template_args[j] == "false") continue;
      std::string name = upper_snake(param);
      // A macro spelled like the template parameter would rewrite the template's own declaration.
      while (name == param || uses_identifier(r_.source_text, name) || name_taken(name)) name = "WF_" + name;
      tunables_.push_back({name, *value, "template parameter '" + param + "' (" + sig_.template_args[j] + " in the observed instantiation)", j});
    }
    const std::string body = r_.source_text.substr(def_.body_begin, def_.body_end - def_.body_begin);
    for (const auto& define : integer_defines(region_text_)) {
      if (!uses_identifier(body, define.name) || name_taken(define.name)) continue;
      tunables_.push_back({define.name, define.value,
                           "#define at " + r_.source_file.filename().string() + ":" +
                             std::to_string(region_.begin_line + define.line),
                           std::nullopt});
    }
  }

  // --- launch -------------------------------------------------------------------------------------

  /// `values[c]` at every config: a dim, a tunable, or the literal when all agree.
  std::optional<expression_guess> block_guess(const std::vector<std::int64_t>& values, std::set<std::string>& taken) {
    const bool constant = std::all_of(values.begin(), values.end(), [&](auto v) { return v == values.front(); });
    if (constant && values.front() > 1) {
      // A tunable of that value; one not yet used by another axis first ((TILE, ROWS) = (32, 8)),
      // then one already used ((BLOCK, BLOCK) = (32, 32)).
      for (bool reuse : {false, true})
        for (auto& t : tunables_)
          if (t.value == values.front() && taken.contains(t.name) == reuse) {
            taken.insert(t.name);
            t.in_block = t.used = true;
            return expression_guess{t.name, "the observed " + std::to_string(values.front()) + " is " + t.name + "'s value"};
          }
    }
    if (constant) return expression_guess{std::to_string(values.front()), "observed"};
    for (const auto& d : dims_)
      if (d.values == values) return expression_guess{d.name, "equals " + d.name + " at every configuration"};
    return std::nullopt;
  }

  std::optional<expression_guess> grid_guess(const std::vector<std::int64_t>& values, const std::string& block_axis) {
    // Divisors, most likely first: the block size of the same axis, the other tunables, 1.
    std::vector<std::pair<std::string, std::int64_t>> divisors;
    for (const auto& t : tunables_)
      if (t.name == block_axis) divisors.insert(divisors.begin(), {t.name, t.value});
      else divisors.push_back({t.name, t.value});
    if (auto number = integer_argument(block_axis); number && *number > 1) divisors.push_back({block_axis, *number});
    for (const auto& d : dims_) {
      if (d.values == values) return expression_guess{d.name, "equals " + d.name + " at every configuration"};
      for (const auto& [name, q] : divisors) {
        if (q <= 1) continue;
        bool all = true;
        for (std::size_t c = 0; c < values.size() && all; ++c) all = (d.values[c] + q - 1) / q == values[c];
        if (all) {
          for (auto& t : tunables_) if (t.name == name) t.used = true;
          return expression_guess{"ceil_div(" + d.name + ", " + name + ")",
                                  "ceil_div(" + d.name + ", " + name + ") gives every observed value"};
        }
      }
    }
    const bool constant = std::all_of(values.begin(), values.end(), [&](auto v) { return v == values.front(); });
    if (constant) return expression_guess{std::to_string(values.front()), "observed; no dim divides into it"};
    return std::nullopt;
  }

  expected<void, std::string> guess_launch() {
    std::set<std::string> taken;
    for (int axis = 0; axis < 3; ++axis) {
      std::vector<std::int64_t> values;
      for (const auto& c : configs_) values.push_back(c.rep->block[axis]);
      auto guess = block_guess(values, taken);
      if (!guess) {
        guess = expression_guess{std::to_string(values.front()), "observed at the first configuration; it differs between configurations and no dim matches"};
        review_.push_back("block axis " + std::to_string(axis) + ": differs between configurations; written as the first's");
      }
      block_[axis] = *guess;
    }
    for (int axis = 0; axis < 3; ++axis) {
      std::vector<std::int64_t> values;
      for (const auto& c : configs_) values.push_back(c.rep->grid[axis]);
      auto guess = grid_guess(values, block_[axis].text);
      if (!guess) {
        guess = expression_guess{std::to_string(values.front()), "observed at the first configuration; no expression of the dims gives every configuration's"};
        review_.push_back("grid axis " + std::to_string(axis) + ": no expression of the dims reproduces every configuration; written as the first's");
      }
      grid_[axis] = *guess;
    }
    std::vector<std::int64_t> smem;
    for (const auto& c : configs_) smem.push_back(c.rep->dynamic_smem);
    smem_ = smem_guess(smem);
    return {};
  }

  expression_guess smem_guess(const std::vector<std::int64_t>& values) {
    const bool constant = std::all_of(values.begin(), values.end(), [&](auto v) { return v == values.front(); });
    if (values.front() == 0 && constant) return {"0", "observed"};
    for (auto& t : tunables_)
      if (t.in_block && constant && values.front() % t.value == 0)
        return {std::to_string(values.front() / t.value) + " * " + t.name,
                "observed " + std::to_string(values.front()) + " bytes = " + std::to_string(values.front() / t.value) +
                  " x " + t.name + "; review"};
    smem_literal_ = true;
    review_.push_back("dynamic shared memory: written as the observed " + std::to_string(values.front()) +
                      " bytes; if it depends on a tunable, write it as an expression of it");
    return {std::to_string(values.front()), "observed, a literal"};
  }

  // --- arguments ----------------------------------------------------------------------------------

  struct arg_guess {
    std::string name;
    const kernel_param* param = nullptr;
    std::string count, count_how;
    std::string role, role_how;
    std::string value, value_how; // scalars
  };

  std::optional<std::string> count_expression(const std::vector<std::int64_t>& counts) {
    // A product of up to three dims (repetition allowed) equal to the count at every configuration.
    std::vector<std::vector<std::size_t>> products;
    for (std::size_t a = 0; a < dims_.size(); ++a) {
      products.push_back({a});
      for (std::size_t b = a; b < dims_.size(); ++b) {
        products.push_back({a, b});
        for (std::size_t c = b; c < dims_.size(); ++c) products.push_back({a, b, c});
      }
    }
    // Fewest factors first; among those, distinct dims before a repeated one (ROWS * COLS before
    // ROWS * ROWS, which a square matrix makes equal).
    auto repeats = [](const std::vector<std::size_t>& p) {
      return p.size() - std::set<std::size_t>(p.begin(), p.end()).size();
    };
    std::stable_sort(products.begin(), products.end(), [&](const auto& x, const auto& y) {
      return std::pair{x.size(), repeats(x)} < std::pair{y.size(), repeats(y)};
    });
    for (const auto& product : products) {
      bool all = true;
      for (std::size_t c = 0; c < counts.size() && all; ++c) {
        std::int64_t value = 1;
        for (auto d : product) value *= dims_[d].values[c];
        all = value == counts[c];
      }
      if (!all) continue;
      std::string text;
      for (auto d : product) text += (text.empty() ? "" : " * ") + dims_[d].name;
      return text;
    }
    return std::nullopt;
  }

  expected<void, std::string> guess_args() {
    std::map<std::uint64_t, std::string> allocation_owner;
    for (std::size_t i = 0; i < sig_.params.size(); ++i) {
      const auto& p = sig_.params[i];
      arg_guess arg{param_name(i), &p, {}, {}, {}, {}, {}, {}};
      if (p.kind == param_kind::scalar) {
        if (const auto* dim = dim_of_param(i)) {
          arg.value = toml_string(dim->name);
          arg.value_how = "the observed value is the dim " + dim->name;
        } else if (config::is_floating_point(p.dtype)) {
          arg.value = std::to_string(as_float(configs_.front().launch->params[i]).value_or(0.0));
          arg.value_how = "observed (first configuration)";
        } else {
          arg.value = std::to_string(as_signed(configs_.front().launch->params[i]).value_or(0));
          arg.value_how = "observed (first configuration); below 1, so not a dim";
        }
        args_.push_back(std::move(arg));
        continue;
      }
      std::vector<std::int64_t> counts;
      for (const auto& c : configs_) {
        const auto address = as_unsigned(c.launch->params[i]).value_or(0);
        auto buffer = std::find_if(c.launch->buffers.begin(), c.launch->buffers.end(),
                                   [&](const buffer_observation& b) { return b.param == i; });
        if (buffer == c.launch->buffers.end())
          return unexpected{"parameter " + std::to_string(i + 1) + " (" + arg.name + ", " + p.type + ") of launch " +
                            std::to_string(c.launch->sequence) + " holds " + hex_address(address) +
                            ", which is in no device allocation the program made (host memory? a null pointer?): "
                            "a problem spec needs a device buffer there"};
        const std::uint64_t end = buffer->allocation + buffer->allocation_bytes;
        counts.push_back(static_cast<std::int64_t>((end - address) / config::size_of(p.dtype)));
        if (address != buffer->allocation && c.launch == configs_.front().launch)
          review_.push_back(arg.name + ": points " + std::to_string(address - buffer->allocation) +
                            " bytes into its allocation; the count is what follows it");
        if (auto [owner, inserted] = allocation_owner.emplace(buffer->allocation, arg.name); !inserted)
          review_.push_back(arg.name + " and " + owner->second +
                            " point into the same allocation; the spec gives each its own buffer");
      }
      if (auto expression = count_expression(counts)) {
        arg.count = toml_string(*expression);
        arg.count_how = "the allocation it points into holds " + *expression + " elements at every configuration";
      } else {
        const auto largest = *std::max_element(counts.begin(), counts.end());
        arg.count = std::to_string(largest);
        arg.count_how = "elements from the pointer to the end of its allocation" +
                        std::string{counts.size() > 1 ? " (the largest of the configurations'; no product of dims matches)" : ""};
      }
      guess_role(i, arg);
      args_.push_back(std::move(arg));
    }
    return {};
  }

  void guess_role(std::size_t i, arg_guess& arg) {
    std::size_t hashed = 0, changed_in = 0;
    for (const auto& launch : r_.launches)
      for (const auto& buffer : launch.buffers)
        if (buffer.param == i)
          if (auto c = changed(buffer)) {
            ++hashed;
            changed_in += *c ? 1 : 0;
          }
    if (arg.param->const_pointee) {
      arg.role = "input";
      arg.role_how = "const in the signature: the kernel cannot write it";
    } else if (changed_in > 0) {
      arg.role = "output";
      arg.role_how = "its bytes changed in " + std::to_string(changed_in) + " of " + std::to_string(hashed) +
                     " hashed launches; inout if the kernel also reads it";
      review_.push_back(arg.name + ": output (the launch changed it); make it inout if the kernel reads it first");
    } else if (hashed > 0) {
      arg.role = "input";
      arg.role_how = "its bytes were the same before and after " + std::to_string(hashed) + " hashed launches";
    } else {
      arg.role = "inout";
      arg.role_how = "not hashed (over the hash budget); not const, so it may be written";
      review_.push_back(arg.name + ": role unknown (not hashed): inout");
    }
  }

  // --- writing --------------------------------------------------------------------------------------

  std::vector<std::int64_t> tunable_values(const tunable_guess& t) const {
    if (!is_power_of_two(t.value)) return {t.value};
    std::vector<std::int64_t> values;
    const std::int64_t top = smem_literal_ && t.in_block ? t.value : std::min(t.value * tunable_spread, max_block_threads);
    for (std::int64_t v = std::max<std::int64_t>(1, t.value / tunable_spread); v <= top; v *= 2) values.push_back(v);
    return values;
  }

  std::string entry() const {
    std::string out = sig_.base_name;
    if (sig_.template_args.empty()) return out;
    out += '<';
    for (std::size_t j = 0; j < sig_.template_args.size(); ++j) {
      std::string arg = sig_.template_args[j];
      for (const auto& t : tunables_)
        if (t.template_position == j && t.used) arg = t.name;
      out += (j ? ", " : "") + arg;
    }
    return out + '>';
  }

  std::string relative(const fs::path& path) const {
    return path.lexically_normal().lexically_relative(r_.problem_dir.lexically_normal()).generic_string();
  }

  std::string command_text() const {
    std::string out;
    for (const auto& word : r_.command) {
      // A shell word: as it is when plain, else single-quoted (a quote in it as '\'').
      const bool plain = word.find_first_of(" \t\n'\"$\\;&|<>()*?`~#{}[]!") == std::string::npos && !word.empty();
      std::string quoted_word = "'";
      for (char c : word) quoted_word += c == '\'' ? std::string{"'\\''"} : std::string(1, c);
      out += (out.empty() ? "" : " ") + (plain ? word : quoted_word + "'");
    }
    return out;
  }

  std::string kernel_text() const {
    // Each proposed #define is guarded, so the campaign's -DNAME=v (and a deployed champion's
    // own guarded value before it) wins over the value written in the code.
    std::string out;
    std::size_t at = 0;
    for (const auto& define : integer_defines(region_text_)) {
      auto t = std::find_if(tunables_.begin(), tunables_.end(), [&](const auto& x) { return x.name == define.name && x.used; });
      if (t == tunables_.end() || t->template_position) continue;
      out += region_text_.substr(at, define.offset - at);
      out += "#ifndef " + define.name + "\n" + region_text_.substr(define.offset, define.length) + "\n#endif";
      at = define.offset + define.length;
    }
    return out + region_text_.substr(at);
  }

  std::string spec_text(const std::string& kernel_file) const {
    std::string s;
    const std::string name = r_.name.empty() ? unqualified_base() : r_.name;
    s += "# Drafted by `warpforge init` from an observed run of:\n#   " + one_line(command_text()) + "\n";
    s += "# Kernel: " + one_line(r_.launches.front().demangled) + " (" + std::to_string(r_.launches.size()) + " launches)\n";
    s += "# Source: " + one_line(r_.source_file.string()) + ":" + std::to_string(def_.line) + ", found by " + one_line(r_.source_found_by) +
         "; region '" + region_.name + "' (lines " + std::to_string(region_.begin_line) + "-" +
         std::to_string(region_.end_line) + ") copied to " + kernel_file + "\n";
    s += "# Every value below is a guess; the comment beside it says how it was found. Review them.\n";
    if (!review_.empty()) {
      s += "# To review:\n";
      for (const auto& line : review_) s += "#   - " + one_line(line) + "\n";
    }
    s += "\nname = " + toml_string(name) + "\n";
    std::vector<std::string> constraints;
    std::string threads;
    for (const auto& axis : block_)
      if (std::any_of(tunables_.begin(), tunables_.end(), [&](const auto& t) { return t.used && t.name == axis.text; }))
        threads += (threads.empty() ? "" : " * ") + axis.text;
    if (!threads.empty())
      s += "constraints = [" + toml_string(threads + " <= " + std::to_string(max_block_threads)) +
           "]   # a block holds at most 1024 threads\n";
    if (configs_.size() > 1)
      s += "# several observed configurations: [[configs]] at the end; [dims] holds the first's\n";

    s += "\n[kernel]\nsource = " + toml_string(kernel_file) + "   # the region's code (" + one_line(region_.name) + ")\n";
    s += "entry = " + toml_string(entry()) + "   # the observed " + toml_string(sig_.template_id);
    if (entry() != sig_.template_id) s += ", its template arguments tunable";
    s += "\n";
    if (region_text_.find("#include \"") != std::string::npos)
      s += "include_dirs = [" + toml_string(relative(r_.source_file.parent_path())) +
           "]   # the region includes project headers (\"...\"): the source file's folder\n";

    if (!dims_.empty()) {
      s += "\n[dims]\n";
      for (const auto& d : dims_)
        s += d.name + " = " + std::to_string(d.values.front()) + "   # parameter " + toml_string(param_name(d.param)) +
             " (" + sig_.params[d.param].type + "), observed\n";
    }

    for (const auto& t : tunables_) {
      if (!t.used) {
        s += "\n# Not proposed: " + t.name + " = " + std::to_string(t.value) + " (" + one_line(t.found) +
             "): no launch dimension follows it\n";
        continue;
      }
      s += "\n[[tunables]]   # proposed from the " + one_line(t.found) + "; it sets a launch dimension: review\n";
      s += "name = " + toml_string(t.name) + "\nvalues = [";
      const auto values = tunable_values(t);
      for (std::size_t k = 0; k < values.size(); ++k) s += (k ? ", " : "") + std::to_string(values[k]);
      s += "]\ndefault = " + std::to_string(t.value) + "   # the observed value\n";
      if (t.template_position)
        s += "# The program's host code picks the instantiation it launches: a champion with another value\n"
             "# changes the program only where the host code launches that instantiation.\n";
    }

    for (const auto& a : args_) {
      s += "\n[[args]]\nname = " + toml_string(a.name) + "\n";
      s += "dtype = " + toml_string(config::to_string(a.param->dtype)) + "   # " + a.param->type + " in the signature\n";
      if (a.param->kind == param_kind::scalar) {
        s += "value = " + a.value + "   # " + a.value_how + "\n";
        continue;
      }
      s += "count = " + a.count + "   # " + a.count_how + "\n";
      s += "role = " + toml_string(a.role) + "   # " + a.role_how + "\n";
    }

    s += "\n[launch]   # the observed geometry, as expressions where one reproduces every configuration\n";
    auto triple = [](const std::array<expression_guess, 3>& g) {
      std::string out = "[";
      for (int k = 0; k < 3; ++k) {
        const bool number = g[k].text.find_first_not_of("0123456789") == std::string::npos;
        out += (k ? ", " : "") + (number ? g[k].text : toml_string(g[k].text));
      }
      return out + "]";
    };
    s += "grid = " + triple(grid_) + "   # " + grid_[0].how + "\n";
    s += "block = " + triple(block_) + "   # " + block_[0].how + "\n";
    if (smem_.text != "0") {
      const bool number = smem_.text.find_first_not_of("0123456789") == std::string::npos;
      s += "dynamic_smem = " + (number ? smem_.text : toml_string(smem_.text)) + "   # " + smem_.how + "\n";
    }

    s += "\n[reference]   # the program's own kernel: correct means the same output as it gives\n";
    s += "kind = \"kernel\"\nsource = " + toml_string(kernel_file) + "\nentry = " + toml_string(sig_.template_id) +
         "   # the observed instantiation, at the default point\n";

    // One [[configs]] per distinct dims (a geometry's fast and slow buckets are one size), its
    // weight the launches observed there.
    std::vector<std::pair<std::vector<std::int64_t>, std::size_t>> sizes;
    for (std::size_t c = 0; c < configs_.size(); ++c) {
      std::vector<std::int64_t> point;
      for (const auto& d : dims_) point.push_back(d.values[c]);
      auto same = std::find_if(sizes.begin(), sizes.end(), [&](const auto& x) { return x.first == point; });
      if (same == sizes.end()) sizes.push_back({point, configs_[c].rep->launches});
      else same->second += configs_[c].rep->launches;
    }
    if (sizes.size() > 1)
      for (std::size_t c = 0; c < sizes.size(); ++c) {
        s += "\n[[configs]]   # " + std::to_string(sizes[c].second) + " launches observed at this size\n";
        s += "name = " + toml_string("config-" + std::to_string(c + 1)) + "\nweight = " +
             std::to_string(sizes[c].second) + "   # its launch count\ndims = {";
        for (std::size_t k = 0; k < dims_.size(); ++k)
          s += std::string{k ? ", " : " "} + dims_[k].name + " = " + std::to_string(sizes[c].first[k]);
        s += " }\n";
      }

    const std::string project = relative(r_.source_file.parent_path());
    const bool commands = !r_.build.empty() && !r_.verify.empty();
    const std::string c = commands ? "" : "# ";
    s += "\n" + std::string{commands ? "" : "# Give init --build and --verify (or write them here) to deploy:\n"};
    s += c + "[deploy]   # the champion goes back between the region's markers in the program's own file\n";
    s += c + "project = " + toml_string(project.empty() ? "." : project) + "\n";
    s += c + "file = " + toml_string(r_.source_file.filename().string()) + "\n";
    s += c + "region = " + toml_string(region_.name) + "\n";
    s += c + "build = " + toml_string(r_.build.empty() ? "make" : r_.build) + "\n";
    s += c + "verify = " + toml_string(r_.verify.empty() ? command_text() : r_.verify) + "\n";
    s += c + "time = " + toml_string(command_text()) + "   # the observed command\n";
    s += c + "timing = \"observed\"   # the kernel's summed launch durations in that run\n";
    s += c + "kernel = " + toml_string(sig_.template_id) + "\n";
    s += c + "repeats = 5\n";
    return s;
  }

  const draft_request& r_;
  kernel_signature sig_;
  kernel_definition def_;
  deploy::marked_region region_;
  std::string region_text_;
  representative_selection selection_;
  std::vector<observed_config> configs_;
  std::vector<dim_guess> dims_;
  std::vector<tunable_guess> tunables_;
  std::array<expression_guess, 3> grid_, block_;
  expression_guess smem_;
  bool smem_literal_ = false;
  std::vector<arg_guess> args_;
  std::vector<std::string> review_;
};

} // namespace

std::string upper_snake(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool upper = c >= 'A' && c <= 'Z';
    if (upper && i > 0 && name[i - 1] >= 'a' && name[i - 1] <= 'z') out += '_';
    out += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return out;
}

expected<drafted_problem, std::string> draft_problem(const draft_request& request) {
  return drafter{request}.run();
}

} // namespace warpforge::observe
