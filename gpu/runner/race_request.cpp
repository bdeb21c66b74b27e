#include "gpu/runner/race_request.hpp"

#include "gpu/json_fields.hpp"
#include "foundation/json/writer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace warpforge::gpu {

double kernel_watchdog::candidate_limit_s(double reference_s) const {
  return std::max(floor_s, reference_multiple * reference_s);
}

race_request make_race_request(const config::resolved_problem& problem,
                               const config::reference_spec& reference, const race_inputs& inputs) {
  race_request request;
  request.kernels = inputs.kernels;
  if (inputs.reference_cubin) {
    auto launch = inputs.reference_launch.value_or(problem.reference_launch.value_or(problem.launch));
    request.reference = kernel_launch{*inputs.reference_cubin, inputs.reference_entry, launch};
  }
  for (const auto& arg : problem.args) {
    if (const auto* buffer = std::get_if<config::resolved_buffer>(&arg)) {
      request.args.emplace_back(candidate_buffer_arg{buffer->name, buffer->type, buffer->count,
                                                     buffer->role, buffer->init,
                                                     config::tolerance_for(reference, buffer->type)});
    } else {
      const auto& scalar = std::get<config::resolved_scalar>(arg);
      request.args.emplace_back(candidate_scalar_arg{scalar.name, scalar.type, scalar.value});
    }
  }
  for (std::size_t i = 0; i < default_check_seeds; ++i)
    request.seeds.push_back(inputs.seed + i);
  request.timing = inputs.timing;
  request.mode = inputs.mode;
  return request;
}

race_request make_single_kernel_race(const config::resolved_problem& problem,
                                     const config::reference_spec& reference,
                                     const std::filesystem::path& cubin, const std::string& entry,
                                     race_inputs inputs) {
  inputs.kernels = {kernel_launch{cubin, entry, problem.launch}};
  return make_race_request(problem, reference, inputs);
}

namespace {

// ---- writing ----

void write_u32x3(json::writer& out, std::string_view key, const std::array<std::uint32_t, 3>& v) {
  out.key(key).begin_array();
  for (auto x : v)
    out.value(static_cast<std::uint64_t>(x));
  out.end_array();
}

void write_launch(json::writer& out, const kernel_launch& k) {
  out.begin_object();
  out.key("cubin_path").value(k.cubin_path.string());
  out.key("entry").value(k.entry);
  write_u32x3(out, "grid", k.launch.grid);
  write_u32x3(out, "block", k.launch.block);
  out.key("dynamic_smem_bytes").value(static_cast<std::uint64_t>(k.launch.dynamic_smem_bytes));
  out.end_object();
}

void write_init(json::writer& out, const config::init_spec& init) {
  out.begin_object();
  out.key("kind").value(config::to_string(init.kind));
  out.key("low").value(init.low);
  out.key("high").value(init.high);
  out.key("mean").value(init.mean);
  out.key("stddev").value(init.stddev);
  out.key("value").value(init.value);
  out.end_object();
}

void write_policy(json::writer& out, const timing_policy& p, vocabulary::timing_mode mode) {
  out.begin_object();
  out.key("mode").value(to_string(mode));
  out.key("warmup_window").value(static_cast<std::uint64_t>(p.warmup_window));
  out.key("warmup_settle").value(p.warmup_settle);
  out.key("warmup_min_launches").value(static_cast<std::uint64_t>(p.warmup_min_launches));
  out.key("warmup_max_launches").value(static_cast<std::uint64_t>(p.warmup_max_launches));
  out.key("warmup_max_time_s").value(p.warmup_max_time_s);
  out.key("batch_time_s").value(p.batch_time_s);
  out.key("max_batch_samples").value(static_cast<std::uint64_t>(p.max_batch_samples));
  out.key("ci_target").value(p.ci_target);
  out.key("min_rounds").value(static_cast<std::uint64_t>(p.min_rounds));
  out.key("min_samples").value(static_cast<std::uint64_t>(p.min_samples));
  out.key("max_time_s").value(p.max_time_s);
  out.key("max_samples").value(static_cast<std::uint64_t>(p.max_samples));
  out.end_object();
}

void write_interval(json::writer& out, std::string_view key, const confidence_interval& ci) {
  out.key(key).begin_object();
  out.key("low").value(ci.low).key("high").value(ci.high).key("level").value(ci.level);
  out.end_object();
}

void write_strings(json::writer& out, std::string_view key, const std::vector<std::string>& list) {
  out.key(key).begin_array();
  for (const auto& item : list)
    out.value(item);
  out.end_array();
}

void write_compare(json::writer& out, const std::optional<compare_report>& report) {
  out.key("compare");
  if (!report) {
    out.null();
    return;
  }
  const auto& c = *report;
  out.begin_object();
  out.key("passed").value(c.passed);
  out.key("elements").value(static_cast<std::uint64_t>(c.elements));
  out.key("mismatches").value(static_cast<std::uint64_t>(c.mismatches));
  out.key("max_abs_error").value(c.max_abs_error);
  out.key("max_rel_error").value(c.max_rel_error);
  out.key("first_bad_index");
  if (c.first_bad_index)
    out.value(static_cast<std::uint64_t>(*c.first_bad_index));
  else
    out.null();
  out.key("first_bad_got").value(c.first_bad_got);
  out.key("first_bad_want").value(c.first_bad_want);
  out.key("first_bad_got_bits").value(c.first_bad_got_bits);
  out.key("first_bad_want_bits").value(c.first_bad_want_bits);
  out.key("poisoned_elements").value(static_cast<std::uint64_t>(c.poisoned_elements));
  out.end_object();
}

void write_input(json::writer& out, const std::optional<input_check>& check) {
  out.key("input");
  if (!check) {
    out.null();
    return;
  }
  out.begin_object();
  out.key("unchanged").value(check->unchanged);
  out.key("first_difference");
  if (check->first_difference)
    out.value(static_cast<std::uint64_t>(*check->first_difference));
  else
    out.null();
  out.end_object();
}

void write_stats(json::writer& out, const sample_stats& s) {
  out.key("stats").begin_object();
  out.key("count").value(static_cast<std::uint64_t>(s.count));
  out.key("median_s").value(s.median_s);
  out.key("mean_s").value(s.mean_s);
  out.key("stddev_s").value(s.stddev_s);
  out.key("cv").value(s.cv);
  out.key("min_s").value(s.min_s);
  out.key("max_s").value(s.max_s);
  write_interval(out, "median_ci", s.median_ci);
  write_interval(out, "mean_ci", s.mean_ci);
  out.key("rse").value(s.rse);
  out.end_object();
}

void write_kernel_result(json::writer& out, const kernel_result& k) {
  out.begin_object();
  out.key("outcome").value(to_string(k.outcome));
  out.key("detail").value(k.detail);
  out.key("seed");
  if (k.seed)
    out.value(*k.seed);
  else
    out.null();
  out.key("arg").value(k.arg);
  write_compare(out, k.compare);
  write_input(out, k.input);
  write_stats(out, k.stats);
  out.key("stop_decision").value(to_string(k.decision));
  out.key("rounds").value(static_cast<std::uint64_t>(k.rounds));
  out.key("round_spread_s").value(k.round_spread_s);
  out.key("batch_samples").value(static_cast<std::uint64_t>(k.batch_samples));
  out.key("warmup_launches").value(static_cast<std::uint64_t>(k.warmup_launches));
  out.key("warmup").value(to_string(k.warmup));
  out.key("kernel_s").value(k.kernel_s);
  out.key("load_s").value(k.load_s);
  out.key("check_s").value(k.check_s);
  out.key("warmup_s").value(k.warmup_s);
  out.key("timing_s").value(k.timing_s);
  write_strings(out, "notes", k.notes);
  if (!k.config_medians.empty()) { // a combined result only: a runner's reply never has them
    out.key("config_medians").begin_array();
    for (const auto& m : k.config_medians) {
      out.begin_object();
      out.key("config").value(m.config).key("weight").value(m.weight).key("median_s").value(m.median_s);
      out.end_object();
    }
    out.end_array();
  }
  out.end_object();
}

// ---- reading (DOM; arrays are bound to locals before iterating) ----

// A double field; JSON null reads as `null_value` (json::writer writes non-finite values as null).
void read_double(json_object_reader& in, simdjson::dom::object object, std::string_view key,
                 double& out, std::optional<double> null_value = std::nullopt) {
  if (!in.ok())
    return;
  simdjson::dom::element element;
  if (object.at_key(key).get(element) != simdjson::SUCCESS)
    return in.fail(key, "missing");
  if (element.is_null()) {
    if (null_value)
      out = *null_value;
    else
      in.fail(key, "null");
    return;
  }
  if (element.get_double().get(out) != simdjson::SUCCESS)
    in.fail(key, "not a number");
}

template <class Unsigned>
void read_unsigned(json_object_reader& in, std::string_view key, Unsigned& out) {
  std::uint64_t value = 0;
  in.required(key, value);
  if (in.ok() && value > std::numeric_limits<Unsigned>::max())
    return in.fail(key, "too large");
  out = static_cast<Unsigned>(value);
}

// An optional unsigned field: absent or null leaves `out` empty.
void read_optional_unsigned(json_object_reader& in, simdjson::dom::object object,
                            std::string_view key, std::optional<std::uint64_t>& out) {
  if (!in.ok())
    return;
  simdjson::dom::element element;
  if (object.at_key(key).get(element) != simdjson::SUCCESS || element.is_null())
    return;
  std::uint64_t value = 0;
  if (element.get(value) != simdjson::SUCCESS)
    return in.fail(key, "not an unsigned integer");
  out = value;
}

void read_u32x3(json_object_reader& in, std::string_view key, std::array<std::uint32_t, 3>& out) {
  simdjson::dom::array array;
  in.required(key, array);
  if (!in.ok())
    return;
  if (array.size() != 3)
    return in.fail(key, "needs 3 elements");
  std::size_t i = 0;
  for (auto element : array) {
    std::uint64_t v = 0;
    if (element.get(v) != simdjson::SUCCESS || v > std::numeric_limits<std::uint32_t>::max())
      return in.fail(key, "element " + std::to_string(i) + " is not a 32-bit unsigned integer");
    out[i++] = static_cast<std::uint32_t>(v);
  }
}

// Runs `body` on a nested reader for the object at `key` (context: parent.key) and reports its
// error on the parent as "parent.key: field: problem".
template <class Body>
void nested(json_object_reader& parent, std::string_view key, simdjson::dom::object object,
            Body body) {
  if (!parent.ok())
    return;
  auto context = parent.context_of(key);
  json_object_reader in{object, context};
  body(in, object);
  if (in.ok())
    return;
  std::string detail = in.error().detail;
  if (detail.rfind(context + ".", 0) == 0)
    detail.erase(0, context.size() + 1);
  parent.fail(key, detail);
}

// Runs `body` on every element of the array at `key`, each an object (context key[i]).
template <class Body>
void each_object(json_object_reader& in, std::string_view key, Body body) {
  simdjson::dom::array array;
  in.required(key, array);
  if (!in.ok())
    return;
  std::size_t index = 0;
  for (auto element : array) {
    const auto element_key = std::string{key} + "[" + std::to_string(index++) + "]";
    simdjson::dom::object object;
    if (element.get(object) != simdjson::SUCCESS)
      return in.fail(element_key, "not an object");
    nested(in, element_key, object, body);
    if (!in.ok())
      return;
  }
}

void read_launch(json_object_reader& in, kernel_launch& out) {
  std::string path;
  in.required("cubin_path", path);
  out.cubin_path = path;
  in.required("entry", out.entry);
  read_u32x3(in, "grid", out.launch.grid);
  read_u32x3(in, "block", out.launch.block);
  read_unsigned(in, "dynamic_smem_bytes", out.launch.dynamic_smem_bytes);
}

void read_arg(json_object_reader& a, simdjson::dom::object o, std::vector<candidate_arg>& args) {
  std::string kind;
  a.required("kind", kind);
  if (kind == "buffer") {
    candidate_buffer_arg b;
    a.required("name", b.name);
    a.required("dtype", b.type, &config::dtype_from_string);
    a.required("count", b.count);
    a.required("role", b.role, &config::arg_role_from_string);
    simdjson::dom::object init;
    a.required("init", init);
    nested(a, "init", init, [&](json_object_reader& i, simdjson::dom::object io) {
      i.required("kind", b.init.kind, &config::init_kind_from_string);
      read_double(i, io, "low", b.init.low);
      read_double(i, io, "high", b.init.high);
      read_double(i, io, "mean", b.init.mean);
      read_double(i, io, "stddev", b.init.stddev);
      read_double(i, io, "value", b.init.value);
    });
    read_double(a, o, "rtol", b.tol.rtol);
    read_double(a, o, "atol", b.tol.atol);
    args.emplace_back(std::move(b));
  } else if (kind == "scalar") {
    candidate_scalar_arg s;
    a.required("name", s.name);
    a.required("dtype", s.type, &config::dtype_from_string);
    if (!a.ok())
      return;
    simdjson::dom::element value;
    if (o.at_key("int_value").get(value) == simdjson::SUCCESS) {
      std::int64_t v = 0;
      if (value.get(v) != simdjson::SUCCESS)
        return a.fail("int_value", "not a 64-bit integer");
      s.value = v;
    } else if (o.at_key("float_value").get(value) == simdjson::SUCCESS) {
      double v = 0;
      if (value.get_double().get(v) != simdjson::SUCCESS)
        return a.fail("float_value", "not a number");
      s.value = v;
    } else {
      return a.fail("int_value", "missing (or float_value)");
    }
    args.emplace_back(std::move(s));
  } else if (a.ok()) {
    a.fail("kind", "unknown value '" + kind + "' (buffer or scalar)");
  }
}

void read_policy(json_object_reader& t, simdjson::dom::object o, timing_policy& p,
                 vocabulary::timing_mode& mode) {
  t.required("mode", mode, &vocabulary::from_string<vocabulary::timing_mode>);
  read_unsigned(t, "warmup_window", p.warmup_window);
  read_double(t, o, "warmup_settle", p.warmup_settle);
  read_unsigned(t, "warmup_min_launches", p.warmup_min_launches);
  read_unsigned(t, "warmup_max_launches", p.warmup_max_launches);
  read_double(t, o, "warmup_max_time_s", p.warmup_max_time_s);
  read_double(t, o, "batch_time_s", p.batch_time_s);
  read_unsigned(t, "max_batch_samples", p.max_batch_samples);
  read_double(t, o, "ci_target", p.ci_target);
  read_unsigned(t, "min_rounds", p.min_rounds);
  read_unsigned(t, "min_samples", p.min_samples);
  read_double(t, o, "max_time_s", p.max_time_s);
  read_unsigned(t, "max_samples", p.max_samples);
}

void read_compare(json_object_reader& c, simdjson::dom::object o, compare_report& rep) {
  constexpr double infinity = std::numeric_limits<double>::infinity();
  c.required("passed", rep.passed);
  read_unsigned(c, "elements", rep.elements);
  read_unsigned(c, "mismatches", rep.mismatches);
  read_double(c, o, "max_abs_error", rep.max_abs_error, infinity);
  read_double(c, o, "max_rel_error", rep.max_rel_error, infinity);
  std::optional<std::uint64_t> first;
  read_optional_unsigned(c, o, "first_bad_index", first);
  if (first)
    rep.first_bad_index = static_cast<std::size_t>(*first);
  read_double(c, o, "first_bad_got", rep.first_bad_got, std::nan(""));
  read_double(c, o, "first_bad_want", rep.first_bad_want, std::nan(""));
  c.required("first_bad_got_bits", rep.first_bad_got_bits);
  c.required("first_bad_want_bits", rep.first_bad_want_bits);
  read_unsigned(c, "poisoned_elements", rep.poisoned_elements);
}

void read_stats(json_object_reader& c, simdjson::dom::object o, sample_stats& s) {
  read_unsigned(c, "count", s.count);
  read_double(c, o, "median_s", s.median_s);
  read_double(c, o, "mean_s", s.mean_s);
  read_double(c, o, "stddev_s", s.stddev_s);
  read_double(c, o, "cv", s.cv);
  read_double(c, o, "min_s", s.min_s);
  read_double(c, o, "max_s", s.max_s);
  for (auto [key, ci] : {std::pair{"median_ci", &s.median_ci}, std::pair{"mean_ci", &s.mean_ci}}) {
    simdjson::dom::object cio;
    c.required(key, cio);
    nested(c, key, cio, [&](json_object_reader& i, simdjson::dom::object io) {
      read_double(i, io, "low", ci->low);
      read_double(i, io, "high", ci->high);
      read_double(i, io, "level", ci->level);
    });
  }
  read_double(c, o, "rse", s.rse);
}

// An optional object field: absent or null leaves `out` empty; else `body` reads it.
template <class T, class Body>
void read_optional_object(json_object_reader& in, simdjson::dom::object object, std::string_view key,
                          std::optional<T>& out, Body body) {
  if (!in.ok())
    return;
  simdjson::dom::element element;
  if (object.at_key(key).get(element) != simdjson::SUCCESS || element.is_null())
    return;
  simdjson::dom::object inner;
  if (element.get(inner) != simdjson::SUCCESS)
    return in.fail(key, "not an object or null");
  nested(in, key, inner, [&](json_object_reader& r, simdjson::dom::object o) { body(r, o, out.emplace()); });
}

void read_kernel_result(json_object_reader& in, simdjson::dom::object o, kernel_result& k) {
  in.required("outcome", k.outcome, &vocabulary::from_string<vocabulary::branch_outcome>);
  in.required("detail", k.detail);
  std::optional<std::uint64_t> seed;
  read_optional_unsigned(in, o, "seed", seed);
  k.seed = seed;
  in.required("arg", k.arg);
  read_optional_object(in, o, "compare", k.compare, read_compare);
  read_optional_object(in, o, "input", k.input,
                       [](json_object_reader& c, simdjson::dom::object io, input_check& check) {
                         c.required("unchanged", check.unchanged);
                         std::optional<std::uint64_t> first;
                         read_optional_unsigned(c, io, "first_difference", first);
                         if (first)
                           check.first_difference = static_cast<std::size_t>(*first);
                       });
  simdjson::dom::object stats;
  in.required("stats", stats);
  nested(in, "stats", stats, [&](json_object_reader& c, simdjson::dom::object so) { read_stats(c, so, k.stats); });
  in.required("stop_decision", k.decision, &stop_decision_from_string);
  read_unsigned(in, "rounds", k.rounds);
  read_double(in, o, "round_spread_s", k.round_spread_s);
  read_unsigned(in, "batch_samples", k.batch_samples);
  read_unsigned(in, "warmup_launches", k.warmup_launches);
  in.required("warmup", k.warmup, &warmup_decision_from_string);
  read_double(in, o, "kernel_s", k.kernel_s);
  read_double(in, o, "load_s", k.load_s);
  read_double(in, o, "check_s", k.check_s);
  read_double(in, o, "warmup_s", k.warmup_s);
  read_double(in, o, "timing_s", k.timing_s);
  in.required("notes", k.notes);
  if (simdjson::dom::element medians; in.ok() && o.at_key("config_medians").get(medians) == simdjson::SUCCESS)
    each_object(in, "config_medians", [&](json_object_reader& m, simdjson::dom::object mo) {
      auto& median = k.config_medians.emplace_back();
      m.required("config", median.config);
      read_double(m, mo, "weight", median.weight);
      read_double(m, mo, "median_s", median.median_s);
    });
}

} // namespace

std::string encode_body(const race_request& request) {
  json::writer out;
  out.begin_object();
  out.key("kernels").begin_array();
  for (const auto& kernel : request.kernels)
    write_launch(out, kernel);
  out.end_array();
  out.key("reference");
  if (request.reference)
    write_launch(out, *request.reference);
  else
    out.null();
  out.key("args").begin_array();
  for (const auto& arg : request.args) {
    out.begin_object();
    if (const auto* b = std::get_if<candidate_buffer_arg>(&arg)) {
      out.key("kind").value("buffer");
      out.key("name").value(b->name);
      out.key("dtype").value(config::to_string(b->type));
      out.key("count").value(b->count);
      out.key("role").value(config::to_string(b->role));
      out.key("init");
      write_init(out, b->init);
      out.key("rtol").value(b->tol.rtol);
      out.key("atol").value(b->tol.atol);
    } else {
      const auto& s = std::get<candidate_scalar_arg>(arg);
      out.key("kind").value("scalar");
      out.key("name").value(s.name);
      out.key("dtype").value(config::to_string(s.type));
      if (const auto* i = std::get_if<std::int64_t>(&s.value))
        out.key("int_value").value(*i);
      else
        out.key("float_value").value(std::get<double>(s.value));
    }
    out.end_object();
  }
  out.end_array();
  out.key("seeds").begin_array();
  for (auto seed : request.seeds)
    out.value(seed);
  out.end_array();
  out.key("timing");
  write_policy(out, request.timing, request.mode);
  out.key("watchdog").begin_object();
  out.key("reference_multiple").value(request.watchdog.reference_multiple);
  out.key("floor_s").value(request.watchdog.floor_s);
  out.key("reference_limit_s").value(request.watchdog.reference_limit_s);
  out.end_object();
  out.key("fresh").value(request.fresh);
  out.end_object();
  return std::move(out).str();
}

expected<race_request, json_error> decode_race_request(std::string_view body_json) {
  simdjson::dom::parser parser;
  auto object = parse_object(parser, body_json, "run_race");
  if (!object)
    return unexpected(object.error());
  json_object_reader in{*object, "run_race"};
  race_request request;

  each_object(in, "kernels", [&](json_object_reader& k, simdjson::dom::object) {
    read_launch(k, request.kernels.emplace_back());
  });
  if (in.ok() && request.kernels.empty())
    in.fail("kernels", "empty (at least one kernel)");

  read_optional_object(in, *object, "reference", request.reference,
                       [](json_object_reader& r, simdjson::dom::object, kernel_launch& launch) {
                         read_launch(r, launch);
                       });

  each_object(in, "args", [&](json_object_reader& a, simdjson::dom::object o) { read_arg(a, o, request.args); });

  simdjson::dom::array seeds;
  in.required("seeds", seeds);
  if (in.ok()) {
    for (auto element : seeds) {
      std::uint64_t seed = 0;
      if (element.get(seed) != simdjson::SUCCESS) {
        in.fail("seeds", "element is not an unsigned integer");
        break;
      }
      request.seeds.push_back(seed);
    }
    if (in.ok() && request.seeds.empty())
      in.fail("seeds", "empty (at least one seed)");
  }

  simdjson::dom::object timing;
  in.required("timing", timing);
  nested(in, "timing", timing, [&](json_object_reader& t, simdjson::dom::object o) {
    read_policy(t, o, request.timing, request.mode);
  });

  simdjson::dom::object watchdog;
  in.required("watchdog", watchdog);
  nested(in, "watchdog", watchdog, [&](json_object_reader& w, simdjson::dom::object o) {
    read_double(w, o, "reference_multiple", request.watchdog.reference_multiple);
    read_double(w, o, "floor_s", request.watchdog.floor_s);
    read_double(w, o, "reference_limit_s", request.watchdog.reference_limit_s);
  });

  // Optional (false when absent): bodies written before it existed still read.
  if (simdjson::dom::element fresh; in.ok() && object->at_key("fresh").get(fresh) == simdjson::SUCCESS)
    if (fresh.get(request.fresh) != simdjson::SUCCESS)
      in.fail("fresh", "not a boolean");

  if (!in.ok())
    return unexpected(in.error());
  return request;
}

std::string encode_body(const race_result& r) {
  json::writer out;
  out.begin_object();
  out.key("kernels").begin_array();
  for (const auto& kernel : r.kernels)
    write_kernel_result(out, kernel);
  out.end_array();
  out.key("reference_s").value(r.reference_s);
  out.key("watchdog_s").value(r.watchdog_s);
  out.key("sm_clock_hz_before").value(r.sm_clock_hz_before);
  out.key("sm_clock_hz_after").value(r.sm_clock_hz_after);
  out.key("inputs_s").value(r.inputs_s);
  out.key("reference_wall_s").value(r.reference_wall_s);
  out.key("setup_s").value(r.setup_s);
  out.key("rounds_wall_s").value(r.rounds_wall_s);
  out.key("wall_s").value(r.wall_s);
  out.key("ended_by");
  if (r.ended_by)
    out.value(static_cast<std::uint64_t>(*r.ended_by));
  else
    out.null();
  out.key("runner_exits").value(r.runner_exits);
  write_strings(out, "notes", r.notes);
  out.end_object();
  return std::move(out).str();
}

expected<race_result, json_error> decode_race_result(std::string_view body_json) {
  simdjson::dom::parser parser;
  auto object = parse_object(parser, body_json, "run_race reply");
  if (!object)
    return unexpected(object.error());
  json_object_reader in{*object, "run_race reply"};
  race_result r;
  each_object(in, "kernels", [&](json_object_reader& k, simdjson::dom::object o) {
    read_kernel_result(k, o, r.kernels.emplace_back());
  });
  read_double(in, *object, "reference_s", r.reference_s);
  read_double(in, *object, "watchdog_s", r.watchdog_s);
  read_double(in, *object, "sm_clock_hz_before", r.sm_clock_hz_before);
  read_double(in, *object, "sm_clock_hz_after", r.sm_clock_hz_after);
  read_double(in, *object, "inputs_s", r.inputs_s);
  read_double(in, *object, "reference_wall_s", r.reference_wall_s);
  read_double(in, *object, "setup_s", r.setup_s);
  read_double(in, *object, "rounds_wall_s", r.rounds_wall_s);
  read_double(in, *object, "wall_s", r.wall_s);
  std::optional<std::uint64_t> ended_by;
  read_optional_unsigned(in, *object, "ended_by", ended_by);
  if (ended_by)
    r.ended_by = static_cast<std::size_t>(*ended_by);
  in.required("runner_exits", r.runner_exits);
  in.required("notes", r.notes);
  if (in.ok() && r.ended_by && *r.ended_by >= r.kernels.size())
    in.fail("ended_by", "names kernel " + std::to_string(*r.ended_by) + " of " +
                          std::to_string(r.kernels.size()));
  if (!in.ok())
    return unexpected(in.error());
  return r;
}

} // namespace warpforge::gpu
