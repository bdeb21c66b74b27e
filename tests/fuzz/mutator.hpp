#pragma once
// A bounded random-input fuzzer for ctest (issue 22): a fixed number of inputs per target, made by
// mutating seed files with a seeded generator, so a CI run is reproducible and its time is fixed.
// libFuzzer would find more in a night; this finds the shallow crashes every change could bring
// back, on every CI run, with no extra toolchain. A failing input is written under the build tree
// (fuzz-failures/) and its path printed, so it can be replayed by hand: on a throw or a slow input
// by the test, on a crash (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL) by a signal handler running
// on its own stack, so a stack overflow is caught too.
//
//   fuzz_campaign c{"replay_request", seeds, 20'000};
//   c.run([](std::string_view input) { (void)decode_replay_request(input); });

#include <gtest/gtest.h>

#include <csignal>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace warpforge::testing {

/// Tokens that parsers of our formats treat specially: mutations splice them in.
inline const std::vector<std::string>& fuzz_dictionary() {
  static const std::vector<std::string> words{
    "\"", "\\", "{", "}", "[", "]", ":", ",", "=", "\n", "[[", "]]", "\"\"\"", "'''", "#",
    "\\u0000", "\\ud800", "null", "true", "false", "-0", "1e308", "-1", "18446744073709551616",
    "9223372036854775808", "nan", "inf", "0x", "```", "```json", "// same", "#include", "%:",
    "\\\n", "/*", "*/", "extern \"C\"", "__global__", "\xff", "\xc3\x28", "\t"};
  return words;
}

/// One mutation of `input`, chosen by `rng`; the result is at most `max_bytes` long.
inline std::string mutate(std::string input, const std::vector<std::string>& seeds,
                          std::mt19937_64& rng, std::size_t max_bytes) {
  auto pick = [&rng](std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); };
  const auto& words = fuzz_dictionary();
  const int rounds = 1 + static_cast<int>(pick(4));
  for (int r = 0; r < rounds; ++r) {
    const std::size_t at = pick(input.size() + 1);
    switch (pick(8)) {
    case 0: // flip a bit
      if (!input.empty())
        input[pick(input.size())] ^= static_cast<char>(1u << pick(8));
      break;
    case 1: // random byte
      input.insert(at, 1, static_cast<char>(pick(256)));
      break;
    case 2: // delete a run
      if (!input.empty())
        input.erase(pick(input.size()), 1 + pick(16));
      break;
    case 3: // a dictionary token
      input.insert(at, words[pick(words.size())]);
      break;
    case 4: // repeat a chunk (long inputs: nesting, runs of spaces)
      if (!input.empty()) {
        const std::size_t from = pick(input.size());
        const std::string chunk = input.substr(from, 1 + pick(32));
        std::string repeated;
        for (std::size_t i = 0, n = 1 + pick(2000); i < n && repeated.size() < max_bytes; ++i)
          repeated += chunk;
        input.insert(at, repeated);
      }
      break;
    case 5: // truncate
      input.resize(at);
      break;
    case 6: { // splice from another seed
      const auto& other = seeds[pick(seeds.size())];
      const std::size_t from = pick(other.size() + 1);
      input.insert(at, other.substr(from, pick(256)));
      break;
    }
    default: // change a digit (numbers at their edges)
      for (std::size_t i = at; i < input.size(); ++i)
        if (input[i] >= '0' && input[i] <= '9') {
          input[i] = static_cast<char>('0' + pick(10));
          break;
        }
      break;
    }
  }
  if (input.size() > max_bytes)
    input.resize(max_bytes);
  return input;
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in{file, std::ios::binary};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Writes the input in flight to a file when the process crashes on it.
class crash_keeper {
public:
  explicit crash_keeper(const std::filesystem::path& file) {
    std::filesystem::create_directories(file.parent_path());
    fd_of() = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    stack_.resize(1 << 16);
    stack_t alternate{};
    alternate.ss_sp = stack_.data();
    alternate.ss_size = stack_.size();
    ::sigaltstack(&alternate, nullptr);
    struct sigaction action{};
    action.sa_handler = &crash_keeper::on_crash;
    action.sa_flags = SA_ONSTACK | SA_RESETHAND;
    for (int signal : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL})
      ::sigaction(signal, &action, nullptr);
  }
  ~crash_keeper() {
    for (int signal : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL})
      std::signal(signal, SIG_DFL);
    release();
    if (fd_of() >= 0)
      ::close(fd_of());
    fd_of() = -1;
  }
  crash_keeper(const crash_keeper&) = delete;
  crash_keeper& operator=(const crash_keeper&) = delete;

  void hold(const std::string& input) { in_flight() = &input; }
  void release() { in_flight() = nullptr; }

private:
  static const std::string*& in_flight() {
    static const std::string* input = nullptr;
    return input;
  }
  static int& fd_of() {
    static int fd = -1;
    return fd;
  }
  static void on_crash(int signal) { // async-signal-safe: write(2), then die of the same signal
    if (const auto* input = in_flight(); input && fd_of() >= 0) {
      const char* at = input->data();
      std::size_t left = input->size();
      while (left > 0) {
        const ssize_t n = ::write(fd_of(), at, left);
        if (n <= 0)
          break;
        at += n;
        left -= static_cast<std::size_t>(n);
      }
    }
    ::raise(signal);
  }

  std::vector<char> stack_;
};

/// Runs a target over the seeds themselves, then `inputs` mutations. The target must return for
/// every input without throwing or crashing, within `slowest_input` (a parser that is quadratic or
/// recursive per byte shows up here).
struct fuzz_campaign {
  std::string target;
  std::vector<std::string> seeds;
  std::size_t inputs = 10'000;
  std::size_t max_bytes = 256 * 1024;
  std::uint64_t seed = 0x5eedf00d;
  std::chrono::milliseconds slowest_input{2000};

  void run(const std::function<void(std::string_view)>& fuzz_one) const {
    ASSERT_FALSE(seeds.empty()) << target << ": no seed inputs";
    std::mt19937_64 rng{seed};
    crash_keeper keeper{last_input_path()};
    for (std::size_t i = 0; i < seeds.size() + inputs; ++i) {
      const std::string input = i < seeds.size() ? seeds[i] : mutate(seeds[rng() % seeds.size()], seeds, rng, max_bytes);
      keeper.hold(input);
      const auto start = std::chrono::steady_clock::now();
      try {
        fuzz_one(input);
      } catch (const std::exception& e) {
        keep(input);
        FAIL() << target << ": input " << i << " threw " << e.what() << " (saved as " << last_input_path() << ")";
      }
      const auto took = std::chrono::steady_clock::now() - start;
      if (took >= slowest_input)
        keep(input);
      ASSERT_LT(took, slowest_input) << target << ": input " << i << " took "
                                     << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                                     << " ms (saved as " << last_input_path() << ")";
    }
    keeper.release();
    std::filesystem::remove(last_input_path());
  }

  std::filesystem::path last_input_path() const {
    return std::filesystem::path{WARPFORGE_BINARY_DIR} / "fuzz-failures" / (target + ".last-input");
  }

private:
  void keep(const std::string& input) const {
    std::ofstream{last_input_path(), std::ios::binary | std::ios::trunc} << input;
  }
};

} // namespace warpforge::testing
