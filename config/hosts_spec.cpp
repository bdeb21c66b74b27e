#include "config/hosts_spec.hpp"

#include "config/hosts_spec_toml.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <set>
#include <utility>

namespace warpforge::config {

using toml_reader::index_key;
using toml_reader::join_key;
using toml_reader::presence;

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower_or_digit(char c) { return (c >= 'a' && c <= 'z') || is_digit(c); }
bool is_alnum(char c) { return is_lower_or_digit(c) || (c >= 'A' && c <= 'Z'); }

// A number of at most 9 digits (no sign, no space), or nullopt.
std::optional<std::uint64_t> small_number(std::string_view text) {
  if (text.empty() || text.size() > 9 || !std::all_of(text.begin(), text.end(), is_digit))
    return std::nullopt;
  std::uint64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

// "'x'", or "a space", "a newline", "byte 7": a character as a message shows it.
std::string shown(char c) {
  switch (c) {
  case ' ': return "a space";
  case '\t': return "a tab";
  case '\n': return "a newline";
  case '\r': return "a carriage return";
  default: break;
  }
  const auto byte = static_cast<unsigned char>(c);
  if (byte < 0x20 || byte >= 0x7f)
    return "byte " + std::to_string(byte);
  return "'" + std::string(1, c) + "'";
}

bool is_host_name(std::string_view host) {
  return !host.empty() && host.size() <= 253 && host.front() != '-' && host.front() != '.' &&
         std::all_of(host.begin(), host.end(), [](char c) { return is_alnum(c) || c == '.' || c == '-' || c == '_'; });
}

bool is_ipv6_text(std::string_view host) {
  return host.find(':') != std::string_view::npos && std::all_of(host.begin(), host.end(), [](char c) {
           return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
         });
}

// The long options [hosts.slurm] sets itself, and the key that sets each.
struct owned_option {
  std::string_view name;
  std::string_view instead;
};
constexpr owned_option owned_options[] = {
  {"nodes", "nodes"},
  {"partition", "partition"},
  {"gres", "gpus_per_node"},
  {"gpus", "gpus_per_node"},
  {"gpus-per-node", "gpus_per_node"},
  {"gpus-per-task", "gpus_per_node"},
  {"gpus-per-socket", "gpus_per_node"},
  {"time", "time_limit"},
  {"ntasks", "nothing: one host runs on each node"},
  {"ntasks-per-node", "nothing: one host runs on each node"},
  {"job-name", "nothing: warpforge names the job after the run"},
  {"parsable", "nothing: warpforge passes it to read the job id"},
  {"wrap", "nothing: warpforge writes the script"},
  // Options that would make the hosts never arrive, or arrive several times over: the campaign
  // waits for one host per node, now.
  {"array", "nothing: one job holds every host (an array would start the hosts several times)"},
  {"hold", "nothing: the campaign waits for its hosts now (a held job never starts)"},
  {"test-only", "nothing: the campaign needs a job that runs"},
  {"begin", "nothing: the campaign waits for its hosts now"},
  {"dependency", "nothing: the campaign waits for its hosts now"},
  {"export", "nothing: the hosts need the job's environment as warpforge passes it"},
};

bool is_value_char(char c) {
  static constexpr std::string_view extra = "_.,:=/@%+-";
  return is_alnum(c) || extra.find(c) != std::string_view::npos;
}

bool is_partition_name(std::string_view name) {
  return !name.empty() && name.size() <= hosts_limits::max_partition_chars &&
         std::all_of(name.begin(), name.end(), [](char c) { return is_alnum(c) || c == '_' || c == '.' || c == '-' || c == ','; });
}

} // namespace

std::string host_address::to_string() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

expected<host_address, std::string> parse_host_address(std::string_view text) {
  std::string_view host;
  std::string_view port;
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return unexpected(std::string{"an IPv6 address is written [address]:port"});
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
    if (!is_ipv6_text(host))
      return unexpected("'" + std::string{host} + "' is not an IPv6 address");
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos)
      return unexpected(std::string{"no port: write HOST:PORT"});
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos)
      return unexpected(std::string{"an IPv6 address is written in brackets: [address]:port"});
    if (!is_host_name(host))
      return unexpected("'" + std::string{host} +
                        "' is not a host name or address (letters, digits, '.', '-' and '_')");
  }
  const auto number = small_number(port);
  if (!number || *number < 1 || *number > 65535)
    return unexpected("the port '" + std::string{port} + "' is not a number in [1, 65535]");
  return host_address{std::string{host}, static_cast<std::uint16_t>(*number)};
}

expected<std::uint64_t, std::string> parse_slurm_time_limit(std::string_view text) {
  const auto refuse = [&](std::string why) {
    return unexpected("'" + std::string{text} + "' " + std::move(why));
  };
  if (text == "UNLIMITED" || text == "INFINITE" || text == "unlimited" || text == "infinite" || text == "-1")
    return refuse("never ends: a job left behind by a coordinator that was killed would hold its nodes forever");
  std::uint64_t days = 0;
  std::string_view clock = text;
  const bool with_days = text.find('-') != std::string_view::npos;
  if (with_days) {
    const auto dash = text.find('-');
    const auto d = small_number(text.substr(0, dash));
    if (!d)
      return refuse("has no number of days before '-'");
    days = *d;
    clock = text.substr(dash + 1);
  }
  std::array<std::uint64_t, 3> fields{};
  std::size_t count = 0;
  for (std::string_view rest = clock;;) {
    const auto colon = rest.find(':');
    const auto field = small_number(rest.substr(0, colon));
    if (!field || count == fields.size())
      return refuse("is not a Slurm time limit");
    fields[count++] = *field;
    if (colon == std::string_view::npos)
      break;
    rest.remove_prefix(colon + 1);
  }
  // Without days: M, M:S or H:M:S; with days: D-H, D-H:M or D-H:M:S.
  std::uint64_t hours = 0, minutes = 0, seconds = 0;
  if (with_days) {
    hours = fields[0];
    minutes = count > 1 ? fields[1] : 0;
    seconds = count > 2 ? fields[2] : 0;
    if (hours >= 24)
      return refuse("has " + std::to_string(hours) + " hours after the days; at most 23");
  } else if (count == 1) {
    minutes = fields[0];
  } else if (count == 2) {
    minutes = fields[0];
    seconds = fields[1];
  } else {
    hours = fields[0];
    minutes = fields[1];
    seconds = fields[2];
  }
  const bool minutes_lead = !with_days && count <= 2; // "90" and "90:00" are 90 minutes
  if ((!minutes_lead && minutes >= 60) || seconds >= 60)
    return refuse("has minutes or seconds past 59");
  const std::uint64_t total = ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
  if (total == 0)
    return refuse("is zero: the job would end before it starts");
  return total;
}

std::optional<std::string> sbatch_option_problem(std::string_view option) {
  if (option.size() > hosts_limits::max_option_chars)
    return "has " + std::to_string(option.size()) + " characters, more than " +
           std::to_string(hosts_limits::max_option_chars);
  if (!option.starts_with("--"))
    return "'" + std::string{option} + "' is not a long option: write --name or --name=value";
  const auto equals = option.find('=');
  const auto name = option.substr(2, equals == std::string_view::npos ? std::string_view::npos : equals - 2);
  if (name.empty() || !(name.front() >= 'a' && name.front() <= 'z') ||
      !std::all_of(name.begin(), name.end(), [](char c) { return is_lower_or_digit(c) || c == '-'; }))
    return "'" + std::string{option} + "': an option's name is lower case letters, digits and '-'";
  for (const auto& owned : owned_options)
    if (owned.name.starts_with(name))
      return "--" + std::string{name} + (owned.name == name ? "" : " (short for --" + std::string{owned.name} + ")") +
             " is set by warpforge; use " + std::string{owned.instead};
  if (equals != std::string_view::npos) {
    const auto value = option.substr(equals + 1);
    if (const auto bad = std::find_if_not(value.begin(), value.end(), is_value_char); bad != value.end())
      return "'" + std::string{option} + "' holds " + shown(*bad) +
             ": a value is letters, digits and _ . , : = / @ % + - only";
  }
  return std::nullopt;
}

namespace {

class hosts_parser {
public:
  hosts_parser(const toml::table& table, toml_reader::reader& r) : table_(table), r_(r) {}

  hosts_spec parse() {
    static constexpr std::string_view keys[] = {"addresses", "slurm"};
    r_.check_keys(table_, "hosts", keys);
    hosts_spec out;
    read_addresses(out.addresses);
    if (const auto* slurm = r_.table(table_, "hosts", "slurm", presence::optional))
      out.slurm = read_slurm(*slurm);
    if (table_.contains("addresses") && table_.contains("slurm"))
      r_.error(table_.get("slurm")->source(), "hosts.slurm",
               "[hosts] has both addresses and [hosts.slurm]",
               "hosts already running (addresses) or hosts the run submits to Slurm, not both");
    else if (!table_.contains("addresses") && !table_.contains("slurm"))
      r_.error(table_.source(), "hosts", "[hosts] names no hosts",
               "add addresses = [\"node1:4242\"] or a [hosts.slurm] table; without [hosts] the "
               "campaign uses this machine's GPUs");
    return out;
  }

private:
  void read_addresses(std::vector<host_address>& out) {
    auto entries = r_.strings(table_, "hosts", "addresses", presence::optional);
    if (!entries)
      return;
    if (entries->empty())
      r_.error(table_.get("addresses")->source(), "hosts.addresses", "the list of hosts is empty",
               "list each `warpforge host` as \"HOST:PORT\", or remove [hosts]");
    std::set<std::string, std::less<>> seen;
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const auto& entry = (*entries)[i];
      const auto key = index_key("hosts.addresses", i);
      auto address = parse_host_address(entry.value);
      if (!address)
        r_.error(entry.at, key, "'" + entry.value + "': " + address.error(),
                 "e.g. \"node1:4242\", \"10.0.0.7:4242\" or \"[fd00::7]:4242\"");
      else if (!seen.insert(address->to_string()).second)
        r_.error(entry.at, key, "'" + entry.value + "' is listed twice", "remove one");
      else
        out.push_back(std::move(*address));
    }
  }

  slurm_spec read_slurm(const toml::table& table) {
    static constexpr std::string_view keys[] = {"partition", "nodes", "gpus_per_node", "time_limit",
                                                "sbatch_options"};
    constexpr std::string_view path = "hosts.slurm";
    r_.check_keys(table, path, keys);
    slurm_spec out;
    out.place = toml_reader::place_of(table.source());
    if (auto v = bounded(table, "nodes", hosts_limits::max_nodes, "nodes"))
      out.nodes = *v;
    if (auto v = bounded(table, "gpus_per_node", hosts_limits::max_gpus_per_node, "GPUs"))
      out.gpus_per_node = *v;
    if (auto partition = r_.string(table, path, "partition", presence::optional)) {
      if (!is_partition_name(*partition))
        r_.error(table.get("partition")->source(), join_key(path, "partition"),
                 "'" + *partition + "' is not a partition name",
                 "letters, digits, '_', '.', '-' (',' between several), as `sinfo` lists them; "
                 "remove the key for the cluster's default partition");
      else
        out.partition = *partition;
    }
    if (auto limit = r_.string(table, path, "time_limit", presence::required)) {
      auto seconds = parse_slurm_time_limit(*limit);
      if (!seconds)
        r_.error(table.get("time_limit")->source(), join_key(path, "time_limit"), seconds.error(),
                 "Slurm's --time format: \"90\" (minutes), \"8:00:00\", \"1-12:00:00\" (days-hours:minutes:seconds)");
      else {
        out.time_limit = *limit;
        out.time_limit_s = *seconds;
      }
    }
    if (auto options = r_.strings(table, path, "sbatch_options", presence::optional))
      for (std::size_t i = 0; i < options->size(); ++i) {
        const auto& option = (*options)[i];
        if (auto why = sbatch_option_problem(option.value))
          r_.error(option.at, index_key(join_key(path, "sbatch_options"), i), *why,
                   "one plain option per entry, e.g. \"--account=proj42\" or \"--qos=normal\"; "
                   "no spaces, quotes or shell characters (docs/hosts.md, \"Slurm\")");
        else
          out.sbatch_options.push_back(option.value);
      }
    return out;
  }

  // A required integer in [1, max].
  std::optional<std::uint32_t> bounded(const toml::table& table, std::string_view key, std::int64_t max,
                                       std::string_view unit) {
    auto value = r_.integer(table, "hosts.slurm", key, presence::required);
    if (!value)
      return std::nullopt;
    if (*value < 1 || *value > max) {
      r_.error(table.get(key)->source(), join_key("hosts.slurm", key),
               "must be in [1, " + std::to_string(max) + "] " + std::string{unit} + ", got " + std::to_string(*value));
      return std::nullopt;
    }
    return static_cast<std::uint32_t>(*value);
  }

  const toml::table& table_;
  toml_reader::reader& r_;
};

} // namespace

hosts_spec read_hosts_table(const toml::table& table, toml_reader::reader& r) {
  return hosts_parser{table, r}.parse();
}

} // namespace warpforge::config
