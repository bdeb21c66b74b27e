#include "deploy/observe/observation_file.hpp"

#include "foundation/files/atomic_write.hpp"
#include "gpu/compile/compile_cache.hpp"
#include "foundation/json/writer.hpp"

#include <simdjson.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

namespace warpforge::observe {
namespace {

namespace fs = std::filesystem;
constexpr double ns_per_s = 1e9;

expected<std::string, std::string> file_bytes(const fs::path& path, std::string_view what) {
  std::ifstream in{path, std::ios::binary};
  if (!in)
    return unexpected("cannot read " + std::string{what} + " " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

// What the signature takes of one argument: the file it names, if any, and how.
struct argument_file {
  enum kind_t : std::uint8_t {
    not_a_file, // no such path, a folder, a device...: the argument's text alone
    hashed,     // a regular file of at most max_hashed_argument_bytes: its bytes
    too_large,  // a larger regular file: its size and mtime
  } kind = not_a_file;
  fs::path path;
  std::uintmax_t size = 0;   // bytes
  std::int64_t mtime_ns = 0; // the file clock's ticks, as nanoseconds
};

argument_file argument_file_of(const signature_inputs& inputs, const std::string& argument) {
  argument_file out;
  if (argument.empty())
    return out;
  fs::path path{argument};
  if (path.is_relative() && !inputs.workdir.empty())
    path = inputs.workdir / path;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) // follows links: a link to a script is the script
    return out;
  out.path = path;
  out.size = fs::file_size(path, ec);
  if (ec)
    return out.kind = argument_file::not_a_file, out;
  if (out.size <= max_hashed_argument_bytes)
    return out.kind = argument_file::hashed, out;
  out.kind = argument_file::too_large;
  const auto mtime = fs::last_write_time(path, ec);
  if (!ec)
    out.mtime_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(mtime.time_since_epoch()).count();
  return out;
}

void write_triple(json::writer& out, std::string_view key, const std::array<std::uint32_t, 3>& v) {
  out.key(key).begin_array().value(std::uint64_t{v[0]}).value(std::uint64_t{v[1]}).value(std::uint64_t{v[2]}).end_array();
}

void write_params(json::writer& out, std::string_view key, const std::vector<param_bytes>& params) {
  out.key(key).begin_array();
  for (const auto& p : params)
    out.begin_object().key("offset").value(std::uint64_t{p.offset}).key("size").value(std::uint64_t{p.size})
      .key("hex").value(p.hex).end_object();
  out.end_array();
}

void write_strings(json::writer& out, std::string_view key, const std::vector<std::string>& items) {
  out.key(key).begin_array();
  for (const auto& item : items)
    out.value(item);
  out.end_array();
}

void write_launch(json::writer& out, const launch_record& launch) {
  out.begin_object().key("seq").value(launch.sequence).key("kernel").value(launch.kernel)
    .key("demangled").value(launch.demangled);
  write_triple(out, "grid", launch.grid);
  write_triple(out, "block", launch.block);
  out.key("smem").value(std::uint64_t{launch.dynamic_smem})
    .key("duration_ns").value(static_cast<std::uint64_t>(std::llround(launch.duration_s * ns_per_s)))
    .key("device").value(std::uint64_t{launch.device});
  write_params(out, "params", launch.params);
  out.end_object();
}

void write_config(json::writer& out, const representative_config& c) {
  out.begin_object().key("kernel").value(c.kernel);
  write_triple(out, "grid", c.grid);
  write_triple(out, "block", c.block);
  out.key("smem").value(std::uint64_t{c.dynamic_smem}).key("bucket").value(to_string(c.bucket))
    .key("launches").value(std::uint64_t{c.launches}).key("total_s").value(c.total_s)
    .key("median_s").value(c.median_s).key("p25_s").value(c.p25_s).key("p95_s").value(c.p95_s)
    .key("weight").value(c.weight).key("coverage").value(c.coverage)
    .key("median_seq").value(c.median_sequence);
  write_params(out, "scalars", c.scalars);
  out.end_object();
}

void write_selection(json::writer& out, const kernel_selection& k) {
  const auto& s = k.selection;
  out.begin_object().key("kernel").value(k.kernel).key("demangled").value(k.demangled)
    .key("launches").value(std::uint64_t{s.launches})
    .key("launches_without_duration").value(std::uint64_t{s.launches_without_duration})
    .key("total_s").value(s.total_s).key("covered").value(s.covered);
  write_strings(out, "notes", s.notes);
  out.key("configs").begin_array();
  for (const auto& c : s.configs)
    write_config(out, c);
  out.end_array().end_object();
}

// Reads fields of simdjson DOM objects, keeping the first error with the key's path.
class reader {
public:
  explicit reader(std::string origin) : origin_(std::move(origin)) {}

  std::optional<simdjson::dom::element> field(simdjson::dom::object object, std::string_view key,
                                              std::string_view path) {
    simdjson::dom::element value;
    if (object.at_key(key).get(value) != simdjson::SUCCESS) {
      fail(path, key, "is missing");
      return std::nullopt;
    }
    return value;
  }
  void text(simdjson::dom::object o, std::string_view key, std::string_view path, std::string& out) {
    if (auto v = field(o, key, path); v && v->get_string().get(view_) == simdjson::SUCCESS)
      out = std::string{view_};
    else if (v)
      fail(path, key, "is not a string");
  }
  template <class Unsigned>
  void number(simdjson::dom::object o, std::string_view key, std::string_view path, Unsigned& out) {
    std::uint64_t value = 0;
    if (auto v = field(o, key, path); v && v->get_uint64().get(value) == simdjson::SUCCESS)
      out = static_cast<Unsigned>(value);
    else if (v)
      fail(path, key, "is not a non-negative integer");
  }
  void real(simdjson::dom::object o, std::string_view key, std::string_view path, double& out) {
    if (auto v = field(o, key, path); v && v->get_double().get(out) != simdjson::SUCCESS)
      fail(path, key, "is not a number");
  }
  std::optional<simdjson::dom::array> array(simdjson::dom::object o, std::string_view key, std::string_view path) {
    simdjson::dom::array out;
    if (auto v = field(o, key, path); v && v->get_array().get(out) == simdjson::SUCCESS)
      return out;
    else if (v)
      fail(path, key, "is not an array");
    return std::nullopt;
  }
  void strings(simdjson::dom::object o, std::string_view key, std::string_view path, std::vector<std::string>& out) {
    if (auto items = array(o, key, path))
      for (auto item : *items) {
        if (item.get_string().get(view_) != simdjson::SUCCESS)
          return fail(path, key, "holds a non-string");
        out.emplace_back(view_);
      }
  }
  void triple(simdjson::dom::object o, std::string_view key, std::string_view path, std::array<std::uint32_t, 3>& out) {
    auto items = array(o, key, path);
    if (!items)
      return;
    std::size_t i = 0;
    for (auto item : *items) {
      std::uint64_t value = 0;
      if (i >= 3 || item.get_uint64().get(value) != simdjson::SUCCESS)
        return fail(path, key, "is not three non-negative integers");
      out[i++] = static_cast<std::uint32_t>(value);
    }
    if (i != 3)
      fail(path, key, "is not three non-negative integers");
  }
  std::optional<simdjson::dom::object> object_of(simdjson::dom::element e, std::string_view path) {
    simdjson::dom::object out;
    if (e.get_object().get(out) == simdjson::SUCCESS)
      return out;
    fail(path, "", "is not an object");
    return std::nullopt;
  }
  void fail(std::string_view path, std::string_view key, std::string_view problem) {
    if (!error_)
      error_ = origin_ + ": " + std::string{path} + (key.empty() || path.empty() ? "" : ".") + std::string{key} +
               " " + std::string{problem};
  }
  const std::optional<std::string>& error() const { return error_; }

private:
  std::string origin_;
  std::string_view view_;
  std::optional<std::string> error_;
};

std::string indexed(std::string_view path, std::size_t i) {
  return std::string{path} + "[" + std::to_string(i) + "]";
}

void read_params(reader& r, simdjson::dom::object o, std::string_view key, const std::string& path,
                 std::vector<param_bytes>& out) {
  auto items = r.array(o, key, path);
  if (!items)
    return;
  std::size_t i = 0;
  for (auto item : *items) {
    auto where = indexed(std::string{path} + "." + std::string{key}, i++);
    auto p = r.object_of(item, where);
    if (!p)
      return;
    param_bytes param;
    r.number(*p, "offset", where, param.offset);
    r.number(*p, "size", where, param.size);
    r.text(*p, "hex", where, param.hex);
    out.push_back(std::move(param));
  }
}

launch_record read_launch(reader& r, simdjson::dom::object o, const std::string& path) {
  launch_record launch;
  std::uint64_t duration_ns = 0;
  r.number(o, "seq", path, launch.sequence);
  r.text(o, "kernel", path, launch.kernel);
  r.text(o, "demangled", path, launch.demangled);
  r.triple(o, "grid", path, launch.grid);
  r.triple(o, "block", path, launch.block);
  r.number(o, "smem", path, launch.dynamic_smem);
  r.number(o, "duration_ns", path, duration_ns);
  r.number(o, "device", path, launch.device);
  read_params(r, o, "params", path, launch.params);
  launch.duration_s = static_cast<double>(duration_ns) / ns_per_s;
  return launch;
}

representative_config read_config(reader& r, simdjson::dom::object o, const std::string& path) {
  representative_config c;
  std::string bucket;
  r.text(o, "kernel", path, c.kernel);
  r.triple(o, "grid", path, c.grid);
  r.triple(o, "block", path, c.block);
  r.number(o, "smem", path, c.dynamic_smem);
  r.text(o, "bucket", path, bucket);
  if (auto parsed = duration_bucket_from_string(bucket))
    c.bucket = *parsed;
  else
    r.fail(path, "bucket", "is not all, fast or slow");
  r.number(o, "launches", path, c.launches);
  r.real(o, "total_s", path, c.total_s);
  r.real(o, "median_s", path, c.median_s);
  r.real(o, "p25_s", path, c.p25_s);
  r.real(o, "p95_s", path, c.p95_s);
  r.real(o, "weight", path, c.weight);
  r.real(o, "coverage", path, c.coverage);
  r.number(o, "median_seq", path, c.median_sequence);
  read_params(r, o, "scalars", path, c.scalars);
  return c;
}

kernel_selection read_selection(reader& r, simdjson::dom::object o, const std::string& path) {
  kernel_selection k;
  auto& s = k.selection;
  r.text(o, "kernel", path, k.kernel);
  r.text(o, "demangled", path, k.demangled);
  r.number(o, "launches", path, s.launches);
  r.number(o, "launches_without_duration", path, s.launches_without_duration);
  r.real(o, "total_s", path, s.total_s);
  r.real(o, "covered", path, s.covered);
  r.strings(o, "notes", path, s.notes);
  if (auto configs = r.array(o, "configs", path)) {
    std::size_t i = 0;
    for (auto item : *configs)
      if (auto where = indexed(path + ".configs", i++); auto c = r.object_of(item, where))
        s.configs.push_back(read_config(r, *c, where));
  }
  return k;
}

// The top level's scalar fields.
void read_header(reader& r, simdjson::dom::object root, observation& out) {
  std::string schema;
  r.text(root, "schema", "", schema);
  if (!r.error() && schema != observation_schema)
    r.fail("", "schema", "is '" + schema + "', not '" + std::string{observation_schema} + "'");
  r.text(root, "kernel", "", out.kernel);
  r.text(root, "signature", "", out.signature);
  r.text(root, "captured_at", "", out.captured_at);
  r.text(root, "method", "", out.method);
  r.strings(root, "command", "", out.command);
  r.text(root, "workdir", "", out.workdir);
  r.text(root, "exit", "", out.exit);
  r.real(root, "wall_s", "", out.wall_s);
  r.strings(root, "notes", "", out.notes);
  if (auto options = r.field(root, "options", "")) {
    if (auto o = r.object_of(*options, "options")) {
      r.real(*o, "split_ratio", "options", out.options.split_ratio);
      r.real(*o, "coverage", "options", out.options.coverage);
      r.number(*o, "top_k", "options", out.options.top_k);
    }
  }
}

} // namespace

expected<std::string, std::string> observation_signature(const signature_inputs& inputs) {
  std::string input;
  auto program = file_bytes(inputs.executable, "the program");
  if (!program)
    return unexpected(program.error());
  gpu::cache_detail::add_field(input, "program");
  gpu::cache_detail::add_field(input, *program);
  gpu::cache_detail::add_field(input, "arguments " + std::to_string(inputs.arguments.size()));
  for (const auto& argument : inputs.arguments) {
    gpu::cache_detail::add_field(input, argument);
    // A field per argument, file or not, so "a file" and "no file" never hash alike.
    switch (auto file = argument_file_of(inputs, argument); file.kind) {
    case argument_file::not_a_file:
      gpu::cache_detail::add_field(input, "no file");
      break;
    case argument_file::hashed: {
      auto bytes = file_bytes(file.path, "the argument file");
      if (!bytes)
        return unexpected(bytes.error());
      gpu::cache_detail::add_field(input, "file bytes");
      gpu::cache_detail::add_field(input, *bytes);
      break;
    }
    case argument_file::too_large:
      gpu::cache_detail::add_field(input, "file size " + std::to_string(file.size) + " mtime " +
                                            std::to_string(file.mtime_ns));
      break;
    }
  }
  gpu::cache_detail::add_field(input, "kernel");
  gpu::cache_detail::add_field(input, inputs.kernel);
  gpu::cache_detail::add_field(input, "sources " + std::to_string(inputs.sources.size()));
  for (const auto& source : inputs.sources) {
    auto bytes = file_bytes(source, "--source file");
    if (!bytes)
      return unexpected(bytes.error());
    gpu::cache_detail::add_field(input, *bytes);
  }
  return gpu::cache_detail::sha256_hex(input);
}

std::vector<std::string> signature_notes(const signature_inputs& inputs) {
  std::vector<std::string> notes;
  for (const auto& argument : inputs.arguments)
    if (auto file = argument_file_of(inputs, argument); file.kind == argument_file::too_large)
      notes.push_back("the argument file " + argument + " (" + std::to_string(file.size) +
                      " bytes, above " + std::to_string(max_hashed_argument_bytes) +
                      ") is in the signature by its size and modification time, not its bytes");
  return notes;
}

fs::path observation_path(const fs::path& cache_dir, std::string_view kernel) {
  std::string stem{kernel.empty() ? all_kernels_stem : kernel};
  for (char& c : stem)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'))
      c = '_';
  return cache_dir / (stem + ".observed.json");
}

std::string to_json(const observation& o) {
  json::writer out;
  out.begin_object().key("schema").value(observation_schema).key("kernel").value(o.kernel)
    .key("signature").value(o.signature).key("captured_at").value(o.captured_at)
    .key("method").value(o.method);
  write_strings(out, "command", o.command);
  out.key("workdir").value(o.workdir).key("exit").value(o.exit).key("wall_s").value(o.wall_s);
  out.key("options").begin_object().key("split_ratio").value(o.options.split_ratio)
    .key("coverage").value(o.options.coverage).key("top_k").value(std::uint64_t{o.options.top_k}).end_object();
  out.key("launches").begin_array();
  for (const auto& launch : o.launches)
    write_launch(out, launch);
  out.end_array();
  out.key("representative").begin_array();
  for (const auto& k : o.representative)
    write_selection(out, k);
  out.end_array();
  write_strings(out, "notes", o.notes);
  out.end_object();
  return std::move(out).str() + "\n";
}

expected<void, std::string> write_observation(const fs::path& path, const observation& observed) {
  return files::write_file_atomically(path, to_json(observed));
}

expected<observation, std::string> parse_observation(std::string_view text, std::string_view origin) {
  simdjson::dom::parser parser;
  simdjson::dom::element document;
  simdjson::padded_string padded{text};
  if (auto error = parser.parse(padded).get(document); error != simdjson::SUCCESS)
    return unexpected(std::string{origin} + ": not JSON: " + simdjson::error_message(error));
  reader r{std::string{origin}};
  observation out;
  auto root = r.object_of(document, "the document");
  if (!root)
    return unexpected(*r.error());
  read_header(r, *root, out);
  if (auto launches = r.array(*root, "launches", "")) {
    std::size_t i = 0;
    for (auto item : *launches)
      if (auto where = indexed("launches", i++); auto o = r.object_of(item, where))
        out.launches.push_back(read_launch(r, *o, where));
  }
  if (auto selections = r.array(*root, "representative", "")) {
    std::size_t i = 0;
    for (auto item : *selections)
      if (auto where = indexed("representative", i++); auto o = r.object_of(item, where))
        out.representative.push_back(read_selection(r, *o, where));
  }
  if (r.error())
    return unexpected(*r.error());
  return out;
}

expected<observation, std::string> read_observation(const fs::path& path) {
  auto text = file_bytes(path, "the observation file");
  if (!text)
    return unexpected(text.error());
  return parse_observation(*text, path.string());
}

std::optional<std::string> stale_reason(const observation& cached, std::string_view signature) {
  if (cached.signature == signature)
    return std::nullopt;
  return "the signature changed (" + cached.signature.substr(0, 12) + " -> " +
         std::string{signature.substr(0, 12)} +
         "): the program's bytes, its arguments, a file an argument names, the kernel name or a "
         "--source file differ";
}

} // namespace warpforge::observe
