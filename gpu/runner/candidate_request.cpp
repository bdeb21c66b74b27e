#include "gpu/runner/candidate_request.hpp"

#include "gpu/json_fields.hpp"
#include "json/writer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace warpforge::gpu {

double kernel_watchdog::candidate_limit_s(double reference_s) const {
  return std::max(floor_s, reference_multiple * reference_s);
}

candidate_request make_candidate_request(const config::resolved_problem& problem,
                                         const config::reference_spec& reference,
                                         const candidate_inputs& inputs) {
  candidate_request request;
  request.candidate = {inputs.candidate_cubin, inputs.candidate_entry, problem.launch};
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
  out.key("warmup_launches").value(static_cast<std::uint64_t>(p.warmup_launches));
  out.key("warmup_min_time_s").value(p.warmup_min_time_s);
  out.key("min_samples").value(static_cast<std::uint64_t>(p.min_samples));
  out.key("min_time_s").value(p.min_time_s);
  out.key("max_noise").value(p.max_noise);
  out.key("max_time_s").value(p.max_time_s);
  out.key("max_samples").value(static_cast<std::uint64_t>(p.max_samples));
  out.key("stop_on_noise_plateau").value(p.stop_on_noise_plateau);
  out.key("noise_window").value(static_cast<std::uint64_t>(p.noise_window));
  out.key("noise_min_history").value(static_cast<std::uint64_t>(p.noise_min_history));
  out.key("noise_check_every").value(static_cast<std::uint64_t>(p.noise_check_every));
  out.key("noise_plateau").value(p.noise_plateau);
  out.end_object();
}

void write_interval(json::writer& out, std::string_view key, const confidence_interval& ci) {
  out.key(key).begin_object();
  out.key("low").value(ci.low).key("high").value(ci.high).key("level").value(ci.level);
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

template <class Enum>
void read_enum(json_object_reader& in, std::string_view key, Enum& out,
               std::optional<Enum> (*parse)(std::string_view)) {
  std::string text;
  in.required(key, text);
  if (!in.ok())
    return;
  if (auto parsed = parse(text))
    out = *parsed;
  else
    in.fail(key, "unknown value '" + text + "'");
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

void read_launch(json_object_reader& parent, std::string_view key, simdjson::dom::object object,
                 kernel_launch& out) {
  nested(parent, key, object, [&](json_object_reader& in, simdjson::dom::object) {
    std::string path;
    in.required("cubin_path", path);
    out.cubin_path = path;
    in.required("entry", out.entry);
    read_u32x3(in, "grid", out.launch.grid);
    read_u32x3(in, "block", out.launch.block);
    std::uint64_t smem = 0;
    in.required("dynamic_smem_bytes", smem);
    if (in.ok() && smem > std::numeric_limits<std::uint32_t>::max())
      in.fail("dynamic_smem_bytes", "too large");
    out.launch.dynamic_smem_bytes = static_cast<std::uint32_t>(smem);
  });
}

} // namespace

std::string encode_body(const candidate_request& request) {
  json::writer out;
  out.begin_object();
  out.key("candidate");
  write_launch(out, request.candidate);
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
  out.end_object();
  return std::move(out).str();
}

expected<candidate_request, json_error> decode_candidate_request(std::string_view body_json) {
  simdjson::dom::parser parser;
  auto object = parse_object(parser, body_json, "run_candidate");
  if (!object)
    return unexpected(object.error());
  json_object_reader in{*object, "run_candidate"};
  candidate_request request;

  simdjson::dom::object candidate;
  in.required("candidate", candidate);
  if (in.ok())
    read_launch(in, "candidate", candidate, request.candidate);

  if (in.ok()) {
    simdjson::dom::element reference;
    if (object->at_key("reference").get(reference) == simdjson::SUCCESS && !reference.is_null()) {
      simdjson::dom::object reference_object;
      if (reference.get(reference_object) != simdjson::SUCCESS)
        in.fail("reference", "not an object or null");
      else
        read_launch(in, "reference", reference_object, request.reference.emplace());
    }
  }

  simdjson::dom::array args;
  in.required("args", args);
  if (in.ok()) {
    std::size_t index = 0;
    for (auto element : args) {
      auto key = "args[" + std::to_string(index++) + "]";
      simdjson::dom::object arg_object;
      if (element.get(arg_object) != simdjson::SUCCESS) {
        in.fail("args", "element is not an object");
        break;
      }
      nested(in, key, arg_object, [&](json_object_reader& a, simdjson::dom::object o) {
        std::string kind;
        a.required("kind", kind);
        if (kind == "buffer") {
          candidate_buffer_arg b;
          a.required("name", b.name);
          read_enum(a, "dtype", b.type, &config::dtype_from_string);
          a.required("count", b.count);
          read_enum(a, "role", b.role, &config::arg_role_from_string);
          simdjson::dom::object init;
          a.required("init", init);
          nested(a, "init", init, [&](json_object_reader& i, simdjson::dom::object io) {
            read_enum(i, "kind", b.init.kind, &config::init_kind_from_string);
            read_double(i, io, "low", b.init.low);
            read_double(i, io, "high", b.init.high);
            read_double(i, io, "mean", b.init.mean);
            read_double(i, io, "stddev", b.init.stddev);
            read_double(i, io, "value", b.init.value);
          });
          read_double(a, o, "rtol", b.tol.rtol);
          read_double(a, o, "atol", b.tol.atol);
          request.args.emplace_back(std::move(b));
        } else if (kind == "scalar") {
          candidate_scalar_arg s;
          a.required("name", s.name);
          read_enum(a, "dtype", s.type, &config::dtype_from_string);
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
          request.args.emplace_back(std::move(s));
        } else if (a.ok()) {
          a.fail("kind", "unknown value '" + kind + "' (buffer or scalar)");
        }
      });
      if (!in.ok())
        break;
    }
  }

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
    auto& p = request.timing;
    read_enum(t, "mode", request.mode, &vocabulary::from_string<vocabulary::timing_mode>);
    std::uint64_t u = 0;
    t.required("warmup_launches", u);
    p.warmup_launches = static_cast<std::uint32_t>(u);
    read_double(t, o, "warmup_min_time_s", p.warmup_min_time_s);
    t.required("min_samples", u);
    p.min_samples = u;
    read_double(t, o, "min_time_s", p.min_time_s);
    read_double(t, o, "max_noise", p.max_noise);
    read_double(t, o, "max_time_s", p.max_time_s);
    t.required("max_samples", u);
    p.max_samples = u;
    t.required("stop_on_noise_plateau", p.stop_on_noise_plateau);
    t.required("noise_window", u);
    p.noise_window = u;
    t.required("noise_min_history", u);
    p.noise_min_history = u;
    t.required("noise_check_every", u);
    p.noise_check_every = u;
    read_double(t, o, "noise_plateau", p.noise_plateau);
  });

  simdjson::dom::object watchdog;
  in.required("watchdog", watchdog);
  nested(in, "watchdog", watchdog, [&](json_object_reader& w, simdjson::dom::object o) {
    read_double(w, o, "reference_multiple", request.watchdog.reference_multiple);
    read_double(w, o, "floor_s", request.watchdog.floor_s);
    read_double(w, o, "reference_limit_s", request.watchdog.reference_limit_s);
  });

  if (!in.ok())
    return unexpected(in.error());
  return request;
}

std::string encode_body(const candidate_result& r) {
  json::writer out;
  out.begin_object();
  out.key("outcome").value(to_string(r.outcome));
  out.key("detail").value(r.detail);
  out.key("seed");
  if (r.seed)
    out.value(*r.seed);
  else
    out.null();
  out.key("arg").value(r.arg);
  out.key("compare");
  if (r.compare) {
    const auto& c = *r.compare;
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
  } else {
    out.null();
  }
  out.key("input");
  if (r.input) {
    out.begin_object();
    out.key("unchanged").value(r.input->unchanged);
    out.key("first_difference");
    if (r.input->first_difference)
      out.value(static_cast<std::uint64_t>(*r.input->first_difference));
    else
      out.null();
    out.end_object();
  } else {
    out.null();
  }
  const auto& s = r.stats;
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
  out.key("stop_decision").value(to_string(r.decision));
  out.key("wall_s").value(r.wall_s);
  out.key("sm_clock_hz_before").value(r.sm_clock_hz_before);
  out.key("sm_clock_hz_after").value(r.sm_clock_hz_after);
  out.key("reference_s").value(r.reference_s);
  out.key("watchdog_s").value(r.watchdog_s);
  out.key("runner_exits").value(r.runner_exits);
  out.key("notes").begin_array();
  for (const auto& note : r.notes)
    out.value(note);
  out.end_array();
  out.end_object();
  return std::move(out).str();
}

expected<candidate_result, json_error> decode_candidate_result(std::string_view body_json) {
  constexpr double infinity = std::numeric_limits<double>::infinity();
  simdjson::dom::parser parser;
  auto object = parse_object(parser, body_json, "run_candidate reply");
  if (!object)
    return unexpected(object.error());
  json_object_reader in{*object, "run_candidate reply"};
  candidate_result r;
  read_enum(in, "outcome", r.outcome, &vocabulary::from_string<vocabulary::branch_outcome>);
  in.required("detail", r.detail);
  if (in.ok()) {
    simdjson::dom::element seed;
    if (object->at_key("seed").get(seed) == simdjson::SUCCESS && !seed.is_null()) {
      std::uint64_t v = 0;
      if (seed.get(v) != simdjson::SUCCESS)
        in.fail("seed", "not an unsigned integer");
      r.seed = v;
    }
  }
  in.required("arg", r.arg);
  if (in.ok()) {
    simdjson::dom::element compare;
    if (object->at_key("compare").get(compare) == simdjson::SUCCESS && !compare.is_null()) {
      simdjson::dom::object co;
      if (compare.get(co) != simdjson::SUCCESS)
        in.fail("compare", "not an object");
      nested(in, "compare", co, [&](json_object_reader& c, simdjson::dom::object o) {
        auto& rep = r.compare.emplace();
        std::uint64_t u = 0;
        c.required("passed", rep.passed);
        c.required("elements", u);
        rep.elements = u;
        c.required("mismatches", u);
        rep.mismatches = u;
        read_double(c, o, "max_abs_error", rep.max_abs_error, infinity);
        read_double(c, o, "max_rel_error", rep.max_rel_error, infinity);
        simdjson::dom::element first;
        if (o.at_key("first_bad_index").get(first) == simdjson::SUCCESS && !first.is_null()) {
          if (first.get(u) != simdjson::SUCCESS)
            c.fail("first_bad_index", "not an unsigned integer");
          rep.first_bad_index = u;
        }
        read_double(c, o, "first_bad_got", rep.first_bad_got, std::nan(""));
        read_double(c, o, "first_bad_want", rep.first_bad_want, std::nan(""));
        c.required("first_bad_got_bits", rep.first_bad_got_bits);
        c.required("first_bad_want_bits", rep.first_bad_want_bits);
        c.required("poisoned_elements", u);
        rep.poisoned_elements = u;
      });
    }
  }
  if (in.ok()) {
    simdjson::dom::element input;
    if (object->at_key("input").get(input) == simdjson::SUCCESS && !input.is_null()) {
      simdjson::dom::object io;
      if (input.get(io) != simdjson::SUCCESS)
        in.fail("input", "not an object");
      nested(in, "input", io, [&](json_object_reader& c, simdjson::dom::object o) {
        auto& check = r.input.emplace();
        c.required("unchanged", check.unchanged);
        simdjson::dom::element first;
        std::uint64_t u = 0;
        if (o.at_key("first_difference").get(first) == simdjson::SUCCESS && !first.is_null()) {
          if (first.get(u) != simdjson::SUCCESS)
            c.fail("first_difference", "not an unsigned integer");
          check.first_difference = u;
        }
      });
    }
  }
  simdjson::dom::object stats;
  in.required("stats", stats);
  nested(in, "stats", stats, [&](json_object_reader& c, simdjson::dom::object o) {
    auto& s = r.stats;
    std::uint64_t u = 0;
    c.required("count", u);
    s.count = u;
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
  });
  read_enum(in, "stop_decision", r.decision, &stop_decision_from_string);
  read_double(in, *object, "wall_s", r.wall_s);
  read_double(in, *object, "sm_clock_hz_before", r.sm_clock_hz_before);
  read_double(in, *object, "sm_clock_hz_after", r.sm_clock_hz_after);
  read_double(in, *object, "reference_s", r.reference_s);
  read_double(in, *object, "watchdog_s", r.watchdog_s);
  in.required("runner_exits", r.runner_exits);
  simdjson::dom::array notes;
  in.required("notes", notes);
  if (in.ok()) {
    for (auto element : notes) {
      std::string_view note;
      if (element.get(note) != simdjson::SUCCESS) {
        in.fail("notes", "element is not a string");
        break;
      }
      r.notes.emplace_back(note);
    }
  }
  if (!in.ok())
    return unexpected(in.error());
  return r;
}

} // namespace warpforge::gpu
