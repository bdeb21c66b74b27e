#include "llm/reply/launch.hpp"

#include <limits>
#include <optional>

namespace warpforge::llm {

namespace {

std::string names_of(const expression::integer_values& values) {
  std::string out;
  for (const auto& [name, value] : values)
    out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "(none)" : out;
}

// Collects the failures of one launch's expressions.
class launch_evaluator {
public:
  explicit launch_evaluator(const expression::integer_values& values) : values_(values) {}

  std::optional<std::int64_t> evaluate(const std::string& key, const std::string& text) {
    const std::string place = key + " \"" + text + "\": ";
    auto parsed = expression::integer_expression::parse(text);
    if (!parsed) {
      fail(place + parsed.error().message + " (column " + std::to_string(parsed.error().column) +
           ")");
      return std::nullopt;
    }
    auto value = parsed->evaluate(values_);
    if (!value) {
      std::string message = place + value.error().message;
      if (value.error().kind == expression::error_kind::unknown_name)
        message += "; the names are the problem's dims and the variant's defines: " +
                   names_of(values_);
      fail(std::move(message));
      return std::nullopt;
    }
    return *value;
  }
  // The value of `text` if it is in [low, high]; records why not otherwise.
  std::optional<std::uint32_t> in_range(const std::string& key, const std::string& text,
                                        std::int64_t low, std::int64_t high, std::string_view unit) {
    const auto value = evaluate(key, text);
    if (!value)
      return std::nullopt;
    if (*value < low || *value > high) {
      fail(key + " \"" + text + "\" is " + std::to_string(*value) + ", outside [" +
           std::to_string(low) + ", " + std::to_string(high) + "] " + std::string{unit});
      return std::nullopt;
    }
    return static_cast<std::uint32_t>(*value);
  }
  void fail(std::string message) { errors_ += (errors_.empty() ? "" : "; ") + std::move(message); }
  const std::string& errors() const { return errors_; }

private:
  const expression::integer_values& values_;
  std::string errors_;
};

void evaluate_axes(launch_evaluator& in, const std::vector<std::string>& texts,
                   const std::string& key, const std::array<std::uint32_t, 3>& limits,
                   std::string_view unit, std::array<std::uint32_t, 3>& out) {
  if (texts.empty() || texts.size() > 3) {
    in.fail(key + " has " + std::to_string(texts.size()) + " entries; give 1 to 3 (x, y, z)");
    return;
  }
  for (std::size_t i = 0; i < texts.size(); ++i)
    if (auto value = in.in_range(key + "[" + std::to_string(i) + "]", texts[i], 1, limits[i], unit))
      out[i] = *value;
}

} // namespace

expected<config::launch_geometry, std::string>
evaluate_launch(const variant_launch& launch, const expression::integer_values& dims_and_defines,
                const device_limits& limits) {
  launch_evaluator in{dims_and_defines};
  config::launch_geometry out;
  evaluate_axes(in, launch.grid, "launch.grid", limits.max_grid, "blocks (the device's limit)", out.grid);
  evaluate_axes(in, launch.block, "launch.block", limits.max_block, "threads (the device's limit)",
                out.block);
  if (auto bytes = in.in_range("launch.shared_bytes", launch.shared_bytes, 0,
                               limits.max_shared_per_block, "bytes (the device's limit per block)"))
    out.dynamic_smem_bytes = *bytes;
  const std::uint64_t threads = std::uint64_t{out.block[0]} * out.block[1] * out.block[2];
  if (in.errors().empty() && threads > limits.max_threads_per_block)
    in.fail("launch.block is " + std::to_string(out.block[0]) + " x " +
            std::to_string(out.block[1]) + " x " + std::to_string(out.block[2]) + " = " +
            std::to_string(threads) + " threads, above the device's " +
            std::to_string(limits.max_threads_per_block) + " per block");
  if (!in.errors().empty())
    return unexpected(in.errors());
  return out;
}

namespace {

void check_one(const std::optional<variant_launch>& launch, const expression::integer_values& defines,
               const expression::integer_values& dims, const device_limits& limits,
               const std::string& where, std::vector<reply_problem>& out) {
  expression::integer_values values = dims;
  bool shadowing = false;
  for (const auto& [name, value] : defines) {
    if (dims.contains(name)) {
      out.push_back({reply_fault::bad_define, where + ".defines." + name,
                     "'" + name + "' is one of the problem's dims (" + names_of(dims) +
                       "); give the define another name"});
      shadowing = true;
    }
    values.emplace(name, value);
  }
  if (!launch || shadowing)
    return;
  if (auto geometry = evaluate_launch(*launch, values, limits); !geometry)
    out.push_back({reply_fault::bad_launch, where + ".launch", geometry.error()});
}

} // namespace

std::vector<reply_problem> launch_problems(const envelope& reply,
                                           const expression::integer_values& dims,
                                           const device_limits& limits) {
  std::vector<reply_problem> out;
  for (std::size_t v = 0; v < reply.variants.size(); ++v) {
    const auto& variant = reply.variants[v];
    const std::string where = "variants[" + std::to_string(v) + "]";
    check_one(variant.launch, variant.defines, dims, limits, where, out);
    for (std::size_t a = 0; a < variant.ablations.size(); ++a) {
      const auto& ablation = variant.ablations[a];
      // An ablation that kept the variant's defines and launch was checked with the variant.
      if (ablation.defines != variant.defines || ablation.launch != variant.launch)
        check_one(ablation.launch, ablation.defines, dims, limits,
                  where + ".ablations[" + std::to_string(a) + "]", out);
    }
  }
  return out;
}

} // namespace warpforge::llm
