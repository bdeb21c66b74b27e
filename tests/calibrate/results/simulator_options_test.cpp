// Every option the simulator fragments write exists in the simulators' own Hopper-class tested
// configs, with a value of the same format (the option lists in data/sm90_h100_*_options.txt say
// where they came from). A key the mapping adds or misspells, or a value with the wrong number of
// fields (the integer opcode options have six, SHFL last), fails here.
#include "calibrate/results/simulator.hpp"

#include "sample_results.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace warpforge::calibrate;
using warpforge::calibrate::testing::h100_results;

namespace {

// name -> the value the tested config gives it.
using option_list = std::map<std::string, std::string>;

option_list read_options(const std::string& file) {
  std::ifstream in{std::string{WARPFORGE_SOURCE_DIR} + "/tests/calibrate/results/data/" + file};
  option_list out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#')
      continue;
    const auto space = line.find(' ');
    out[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(space + 1);
  }
  return out;
}

// A value's shape: each field numeric ("n") or not ("t"), with the separators between them
// ("n,n,n,n,n,n", "n:n:n:n", "n").
std::string shape(const std::string& value) {
  std::string out, field;
  const auto flush = [&] {
    char* end = nullptr;
    const bool numeric = !field.empty() && (std::strtod(field.c_str(), &end), *end == '\0');
    out += numeric ? "n" : "t";
    field.clear();
  };
  for (char c : value) {
    if (c == ',' || c == ':') {
      flush();
      out += c;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      field += c;
    }
  }
  flush();
  return out;
}

struct written_option {
  std::string section; // "gpgpusim.config" or "trace.config"
  std::string name;
  std::string value;   // "" for a commented-out key or a note
  bool active = false; // written as an option line (not commented out)
};

// Every option a fragment names: active lines "-name value", commented-out keys "# -name value
// (not written: ...)" and the notes above each key "# -name: note".
std::vector<written_option> options_of(const std::string& fragment) {
  std::vector<written_option> out;
  std::istringstream lines{fragment};
  std::string section;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# ---- ", 0) == 0) {
      section = line.substr(7, line.find(' ', 7) - 7);
      continue;
    }
    const bool active = line.rfind("-", 0) == 0;
    if (!active && line.rfind("# -", 0) != 0)
      continue;
    const std::string body = active ? line : line.substr(2);
    const auto end = body.find_first_of(" :");
    written_option option{section, body.substr(0, end), "", active};
    if (active && end != std::string::npos)
      option.value = body.substr(end + 1);
    out.push_back(option);
  }
  return out;
}

// One line per option of `fragment` that the tested configs lack or whose value has another
// shape; `trace` null: the fragment may have no trace.config section.
std::vector<std::string> problems_of(const std::string& fragment, const option_list& gpgpusim,
                                     const option_list* trace, std::size_t* active = nullptr) {
  std::vector<std::string> out;
  for (const auto& option : options_of(fragment)) {
    const option_list* list = option.section == "trace.config" ? trace : &gpgpusim;
    const auto reference = list == nullptr ? gpgpusim.end() : list->find(option.name);
    if (list == nullptr || reference == list->end()) {
      out.push_back(option.name + " is not an option of the tested " + option.section);
      continue;
    }
    if (!option.active)
      continue;
    if (active != nullptr)
      ++*active;
    if (shape(option.value) != shape(reference->second))
      out.push_back(option.name + " '" + option.value + "' is not in the format of the tested config's '" +
                    reference->second + "'");
  }
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines)
    out += line + "\n";
  return out;
}

} // namespace

TEST(simulator_options, the_option_lists_hold_the_tested_configs) {
  const auto gpgpusim = read_options("sm90_h100_gpgpusim_options.txt");
  const auto trace = read_options("sm90_h100_trace_options.txt");
  EXPECT_EQ(gpgpusim.at("-gpgpu_n_clusters"), "132");
  EXPECT_EQ(gpgpusim.at("-ptx_opcode_latency_int"), "4,13,4,5,145,21");
  EXPECT_EQ(trace.at("-trace_opcode_latency_initiation_tensor"), "32,32");
}

TEST(simulator_options, shape_tells_fields_and_separators) {
  EXPECT_EQ(shape("4,13,4,5,145,21"), "n,n,n,n,n,n");
  EXPECT_EQ(shape("1132.0:1132.0:1132.0:850.0"), "n:n:n:n");
  EXPECT_EQ(shape("1,4,4,4,4,BRA"), "n,n,n,n,n,t");
  EXPECT_NE(shape("4,4,4,4,21"), shape("4,13,4,5,145,21"));
}

TEST(simulator_options, every_accel_sim_option_exists_in_accel_sims_hopper_configs_in_their_format) {
  const auto gpgpusim = read_options("sm90_h100_gpgpusim_options.txt");
  const auto trace = read_options("sm90_h100_trace_options.txt");
  const auto fragment = accel_sim_config(h100_results());
  std::size_t active = 0;
  const auto problems = problems_of(fragment, gpgpusim, &trace, &active);
  EXPECT_TRUE(problems.empty()) << joined(problems);
  EXPECT_GT(active, 12u) << fragment;
  EXPECT_NE(fragment.find("# ---- trace.config"), std::string::npos);
}

TEST(simulator_options, every_gpgpu_sim_option_exists_in_gpgpu_sims_hopper_config_in_its_format) {
  const auto gpgpusim = read_options("sm90_h100_gpgpusim_options.txt");
  const auto fragment = gpgpu_sim_config(h100_results());
  std::size_t active = 0;
  const auto problems = problems_of(fragment, gpgpusim, nullptr, &active);
  EXPECT_TRUE(problems.empty()) << joined(problems);
  EXPECT_GT(active, 12u) << fragment;
}

TEST(simulator_options, a_misspelled_option_a_misshapen_value_and_a_stray_trace_key_are_caught) {
  const auto gpgpusim = read_options("sm90_h100_gpgpusim_options.txt");
  const std::string fragment = "# ---- gpgpusim.config ----\n"
                               "# -gpgpu_l1_latncy: L1 hit latency\n"
                               "-gpgpu_l1_latncy 33\n"
                               "-ptx_opcode_latency_int 4,4,4,4,21\n"
                               "-gpgpu_num_sched_per_core 4\n"
                               "# ---- trace.config ----\n"
                               "-trace_opcode_latency_initiation_sp 4,1\n";
  const auto problems = problems_of(fragment, gpgpusim, nullptr);
  ASSERT_EQ(problems.size(), 4u) << joined(problems);
  EXPECT_NE(problems[0].find("-gpgpu_l1_latncy is not an option"), std::string::npos);
  EXPECT_NE(problems[2].find("'4,4,4,4,21' is not in the format"), std::string::npos);
  EXPECT_NE(problems[3].find("-trace_opcode_latency_initiation_sp is not an option of the tested trace.config"),
            std::string::npos);
}
