// `warpforge runs` through the real binary: run directories made by real `bench` and `run` on the
// stand-in GPUs (campaign_fixture.hpp), one of them held running, one killed mid-way, beside
// folders that are not run directories. The list must tell each one's kind and state; --prune
// must remove only the old finished and failed ones, never the live one, the interrupted one or a
// foreign folder. Then the completions and the man page the build wrote beside the binary.

#include "campaign_fixture.hpp"

#include "storage/database.hpp"

#include <simdjson.h>

#include <chrono>
#include <map>
#include <set>

namespace {

using namespace std::chrono_literals;
using warpforge::testing::campaign_fixture;
namespace fs = std::filesystem;

constexpr double day_s = 86400;

class RunsCommand : public campaign_fixture {
protected:
  fs::path root() { return dir / "runs"; }

  std::set<std::string> folders() {
    std::set<std::string> names;
    if (fs::exists(root()))
      for (const auto& entry : fs::directory_iterator{root()})
        names.insert(entry.path().filename().string());
    return names;
  }

  // The one folder under the root that was not in `before`.
  std::string new_folder(const std::set<std::string>& before) {
    std::string found;
    for (const auto& name : folders())
      if (!before.contains(name)) {
        EXPECT_TRUE(found.empty()) << "two new folders: " << found << ", " << name;
        found = name;
      }
    return found;
  }

  // `warpforge args...`: its exit code and its stdout alone.
  std::pair<int, std::string> output_of(std::vector<std::string> args) {
    fs::remove(dir / "stdout.txt");
    const int code = wait_exit(start(std::move(args)));
    return {code, text_of("stdout.txt")};
  }

  std::int64_t count_in(const std::string& folder, const std::string& sql) {
    auto db = warpforge::storage::database::open_read_only(root() / folder / "warpforge.db");
    if (!db)
      return -1;
    auto n = db->raw().query_int64(sql);
    return n ? *n : -1;
  }

  // Waits (at most 60 s) until the run in `folder` has `sql` counting at least `n`.
  bool wait_for_in(const std::string& folder, const std::string& sql, std::int64_t n) {
    for (auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms))
      if (fs::exists(root() / folder / "warpforge.db") && count_in(folder, sql) >= n)
        return true;
    return false;
  }

  // Waits (at most 60 s) for a folder that was not in `before` (a run that has just begun).
  std::string wait_new_folder(const std::set<std::string>& before) {
    for (auto deadline = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(20ms))
      if (folders().size() > before.size())
        return new_folder(before);
    return {};
  }

  // The run's start, as its store records it, moved into the past; the state too when given.
  void age_run(const std::string& folder, double days_ago, const std::string& state = "") {
    auto db = warpforge::storage::database::open(root() / folder / "warpforge.db");
    ASSERT_TRUE(db) << warpforge::storage::to_string(db.error());
    const auto now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const auto set_state = state.empty() ? std::string{} : ", state = '" + state + "'";
    ASSERT_TRUE(db->raw().exec("UPDATE campaigns SET created_at = " + std::to_string(now - days_ago * day_s) +
                               set_state));
  }

  static void age_folder(const fs::path& path, double days_ago) {
    fs::last_write_time(path, fs::file_time_type::clock::now() -
                                std::chrono::duration_cast<fs::file_time_type::duration>(
                                  std::chrono::duration<double>(days_ago * day_s)));
  }

  struct listed {
    std::string kind, state, started_from;
    std::int64_t owner_pid = 0;
    std::uint64_t size_bytes = 0;
  };

  // `warpforge runs --json`, by folder; the folders that are not run directories in `others`.
  std::map<std::string, listed> list(std::set<std::string>* others = nullptr) {
    const auto [code, text] = output_of({"runs", "--json", "--root", root().string()});
    EXPECT_EQ(code, 0) << stderr_text();
    simdjson::dom::parser parser;
    auto doc = parser.parse(text);
    EXPECT_FALSE(doc.error()) << "one JSON object: " << text;
    std::map<std::string, listed> runs;
    if (doc.error())
      return runs;
    for (auto run : doc["runs"].get_array()) {
      listed l{std::string{run["kind"].get_string().value()}, std::string{run["state"].get_string().value()},
               std::string{run["started_from"].get_string().value()}};
      if (auto pid = run["owner_pid"].get_int64(); !pid.error())
        l.owner_pid = pid.value();
      l.size_bytes = run["size_bytes"].get_uint64().value();
      runs[std::string{run["folder"].get_string().value()}] = l;
    }
    if (others)
      for (auto name : doc["not_run_directories"].get_array())
        others->insert(std::string{name.get_string().value()});
    return runs;
  }
};

TEST_F(RunsCommand, ListTellsEachRunsKindAndStateAndPruneRemovesOnlyTheOldFinishedAndFailedOnes) {
  // An old finished bench, a recent finished campaign, an old failed campaign.
  auto before = folders();
  ASSERT_EQ(wait_exit(start({"bench", WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml", "--quiet",
                             "--run-root", root().string()})), 0) << stderr_text();
  const auto bench = new_folder(before);
  before = folders();
  ASSERT_EQ(wait_exit(start({"run", "--quiet", write_campaign(1).string()})), 0) << stderr_text();
  const auto recent = new_folder(before);
  before = folders();
  ASSERT_EQ(wait_exit(start({"run", "--quiet", write_campaign(1).string()})), 0) << stderr_text();
  const auto failed = new_folder(before);
  // A campaign killed mid-way (resumable), and one held running by slow stand-in GPUs.
  before = folders();
  const pid_t killed_pid = start({"run", "--quiet", write_campaign(4).string()}, 120);
  const auto killed = wait_new_folder(before);
  ASSERT_TRUE(wait_for_in(killed, "SELECT count(*) FROM measurements", 1)) << stderr_text();
  ::kill(killed_pid, SIGKILL);
  EXPECT_EQ(wait_exit(killed_pid), 128 + SIGKILL);
  before = folders();
  const pid_t live_pid = start({"run", "--quiet", write_campaign(2).string()}, 3000);
  const auto live = wait_new_folder(before);
  ASSERT_TRUE(wait_for_in(live, "SELECT count(*) FROM branches WHERE kind = 'baseline'", 1)) << stderr_text();
  // Folders that are not run directories: notes, and one shaped like a run but with no store.
  fs::create_directories(root() / "notes");
  std::ofstream{root() / "notes" / "todo.txt"} << "keep me\n";
  for (const auto* sub : {"logs", "jobs", "artifacts"})
    fs::create_directories(root() / "look-alike-20200101-000000" / sub);

  age_run(bench, 30);
  age_run(failed, 30, "failed");
  age_run(killed, 30);
  age_run(live, 30);
  age_folder(root() / "notes", 400);
  age_folder(root() / "look-alike-20200101-000000", 400);

  std::set<std::string> others;
  auto runs = list(&others);
  ASSERT_EQ(runs.size(), 5u) << text_of("stdout.txt");
  EXPECT_EQ(runs[bench].kind, "bench");
  EXPECT_EQ(runs[bench].state, "finished");
  EXPECT_EQ(runs[bench].started_from, "store");
  EXPECT_GT(runs[bench].size_bytes, 0u);
  EXPECT_EQ(runs[recent].kind, "campaign");
  EXPECT_EQ(runs[recent].state, "finished");
  EXPECT_EQ(runs[failed].state, "failed");
  EXPECT_EQ(runs[killed].state, "interrupted") << "its process died without recording the end";
  EXPECT_EQ(runs[live].state, "running");
  EXPECT_EQ(runs[live].owner_pid, live_pid);
  EXPECT_EQ(others, (std::set<std::string>{"look-alike-20200101-000000", "notes"}));

  const auto [text_code, text] = output_of({"runs", "--root", root().string()});
  EXPECT_EQ(text_code, 0);
  EXPECT_NE(text.find("5 run directories under " + root().string()), std::string::npos) << text;
  EXPECT_NE(text.find("running      campaign"), std::string::npos) << text;
  EXPECT_NE(text.find("(pid " + std::to_string(live_pid) + ": warpforge run "), std::string::npos) << text;
  EXPECT_NE(text.find("resumable: warpforge resume " + (root() / killed).string()), std::string::npos) << text;

  // A dry run names exactly the two old finished/failed runs and touches nothing.
  const auto [dry_code, dry] = output_of({"runs", "--root", root().string(), "--prune", "--older-than", "7d", "--dry-run"});
  EXPECT_EQ(dry_code, 0) << stderr_text();
  EXPECT_NE(dry.find("would remove  "), std::string::npos) << dry;
  EXPECT_NE(dry.find(bench), std::string::npos) << dry;
  EXPECT_NE(dry.find("would free "), std::string::npos) << dry;
  EXPECT_NE(dry.find("in 2 run directories"), std::string::npos) << dry;
  EXPECT_EQ(folders().size(), 7u) << "a dry run removes nothing";

  // Zero age would take the recent one too; 7 days leaves it.
  const auto [code, pruned] = output_of({"runs", "--root", root().string(), "--prune", "--older-than", "7d", "--json"});
  EXPECT_EQ(code, 0) << stderr_text();
  simdjson::dom::parser parser;
  auto doc = parser.parse(pruned);
  ASSERT_FALSE(doc.error()) << pruned;
  std::set<std::string> removed;
  for (auto r : doc["results"].get_array()) {
    EXPECT_EQ(std::string{r["outcome"].get_string().value()}, "removed");
    removed.insert(std::string{r["run"]["folder"].get_string().value()});
  }
  EXPECT_EQ(removed, (std::set<std::string>{bench, failed}));
  EXPECT_EQ(doc["freed_bytes"].get_uint64().value(), runs[bench].size_bytes + runs[failed].size_bytes);
  EXPECT_EQ(folders(), (std::set<std::string>{recent, killed, live, "notes", "look-alike-20200101-000000"}));
  EXPECT_TRUE(fs::exists(root() / "notes" / "todo.txt"));

  // The live campaign never noticed: it goes on and finishes.
  ASSERT_EQ(wait_exit_within(live_pid, 120s), std::optional<int>{0}) << stderr_text();
  EXPECT_EQ(count_in(live, "SELECT count(*) FROM campaigns WHERE state = 'finished'"), 1);
}

TEST_F(RunsCommand, AnAgeWithoutAUnitOrPruneWithoutAnAgeIsAUsageError) {
  EXPECT_EQ(output_of({"runs", "--root", root().string(), "--prune", "--older-than", "7"}).first, 2);
  EXPECT_NE(stderr_text().find("--older-than '7': no unit"), std::string::npos) << stderr_text();
  EXPECT_EQ(output_of({"runs", "--root", root().string(), "--prune", "--older-than", "99999999d"}).first, 2);
  EXPECT_NE(stderr_text().find("longer than 100 years"), std::string::npos) << stderr_text();
  EXPECT_EQ(output_of({"runs", "--root", root().string(), "--prune"}).first, 2) << "no age given";
  const auto [code, text] = output_of({"runs", "--root", root().string()});
  EXPECT_EQ(code, 0);
  EXPECT_NE(text.find("does not exist"), std::string::npos) << text;
}

// A calibrate campaign may have any name: its spec's kind = "calibrate" says what it is. The notes
// file calibrate keeps in the run root is a file, neither a run nor a folder to mention.
TEST_F(RunsCommand, ACalibrateCampaignOfAnyNameIsListedAsCalibrate) {
  const auto file = dir / "cal.toml";
  std::ofstream{file} << "name = \"gpu-params\"\nkind = \"calibrate\"\nrun_root = \"" << root().string() << "\"\n"
                      << "[calibrate]\nonly = [\"smem_banks\"]\ntrials = 3\n";
  // The real runner: no GPU here, so nothing is timed (exit 5), but the run is recorded.
  EXPECT_EQ(wait_exit(spawn(WARPFORGE_BIN, {"run", file.string()}, {}, "stdout.txt", "stderr.txt")), 5) << stderr_text();
  std::set<std::string> others;
  const auto runs = list(&others);
  ASSERT_EQ(runs.size(), 1u) << text_of("stdout.txt");
  EXPECT_TRUE(runs.begin()->first.starts_with("gpu-params-")) << runs.begin()->first;
  EXPECT_EQ(runs.begin()->second.kind, "calibrate");
  EXPECT_EQ(runs.begin()->second.started_from, "store");
  EXPECT_TRUE(others.empty()) << *others.begin();
}

// Links are never followed: one inside a run goes with the run, never what it names; one under the
// root, even to a run directory, is not a run (it would be listed twice, and removed through).
TEST_F(RunsCommand, PruneRemovesALinkInsideARunNotWhatItNames) {
  auto before = folders();
  ASSERT_EQ(wait_exit(start({"bench", WARPFORGE_SOURCE_DIR "/examples/vector_add/problem.toml", "--quiet",
                             "--run-root", root().string()})), 0) << stderr_text();
  const auto bench = new_folder(before);
  const auto outside = dir / "outside";
  fs::create_directories(outside);
  std::ofstream{outside / "precious.txt"} << "not a run's\n";
  fs::create_directory_symlink(outside, root() / bench / "artifacts" / "link");
  fs::create_directory_symlink(root() / bench, root() / "linked-run");
  age_run(bench, 2);
  std::set<std::string> others;
  EXPECT_EQ(list(&others).size(), 1u);
  EXPECT_EQ(others, std::set<std::string>{"linked-run"});

  const auto [code, text] = output_of({"runs", "--root", root().string(), "--prune", "--older-than", "1d"});
  EXPECT_EQ(code, 0) << stderr_text();
  EXPECT_NE(text.find("removed       "), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(root() / bench));
  EXPECT_TRUE(fs::exists(outside / "precious.txt"));
  EXPECT_TRUE(fs::is_symlink(root() / "linked-run")) << "a link under the root is not a run directory";
}

// The build writes the completions and the man page beside the binary (cmake/WarpforgeShellDocs.cmake).
class ShellDocs : public campaign_fixture {
protected:
  fs::path share() { return fs::path{WARPFORGE_BIN}.parent_path() / "share"; }

  // `bash -c script`: its exit code; stdout in stdout.txt, stderr in stderr.txt.
  int bash(const std::string& script) {
    fs::remove(dir / "stdout.txt");
    fs::remove(dir / "stderr.txt");
    return wait_exit(spawn("/bin/bash", {"-c", script}, {}, "stdout.txt", "stderr.txt"));
  }
};

TEST_F(ShellDocs, TheBashCompletionRegistersAndCompletesSubcommandsOptionsAndChoices) {
  const auto file = share() / "bash-completion" / "completions" / "warpforge";
  ASSERT_TRUE(fs::exists(file)) << file;
  const auto source = "source '" + file.string() + "'; ";
  ASSERT_EQ(bash(source + "complete -p warpforge"), 0) << stderr_text();
  EXPECT_NE(text_of("stdout.txt").find("-F _warpforge warpforge"), std::string::npos) << text_of("stdout.txt");

  ASSERT_EQ(bash(source + "COMP_WORDS=(warpforge ru); COMP_CWORD=1; _warpforge; printf '%s\\n' \"${COMPREPLY[@]}\""), 0)
    << stderr_text();
  EXPECT_EQ(text_of("stdout.txt"), "run\nruns\n");
  ASSERT_EQ(bash(source + "COMP_WORDS=(warpforge runs --p); COMP_CWORD=2; _warpforge; printf '%s\\n' \"${COMPREPLY[@]}\""), 0);
  EXPECT_EQ(text_of("stdout.txt"), "--prune\n");
  ASSERT_EQ(bash(source + "COMP_WORDS=(warpforge report --format ''); COMP_CWORD=3; _warpforge; printf '%s\\n' \"${COMPREPLY[@]}\""), 0);
  const auto formats = text_of("stdout.txt"); // the choices of --format (more may come): no option names
  for (const auto* format : {"md\n", "json\n", "csv\n"})
    EXPECT_NE(formats.find(format), std::string::npos) << formats;
  EXPECT_EQ(formats.find('-'), std::string::npos) << formats;
}

TEST_F(ShellDocs, TheManPageNamesEveryCommandAndRendersAndTheZshFunctionDescribesThem) {
  const auto man = share() / "man" / "man1" / "warpforge.1";
  const auto zsh = share() / "zsh" / "site-functions" / "_warpforge";
  ASSERT_TRUE(fs::exists(man)) << man;
  ASSERT_TRUE(fs::exists(zsh)) << zsh;
  std::stringstream page, function;
  page << std::ifstream{man}.rdbuf();
  function << std::ifstream{zsh}.rdbuf();
  EXPECT_EQ(page.str().find(".TH WARPFORGE 1"), page.str().find('\n') + 1) << "the title follows the comment line";
  for (const auto* section : {".SH NAME", ".SH SYNOPSIS", ".SH COMMANDS", ".SH EXIT STATUS"})
    EXPECT_NE(page.str().find(section), std::string::npos) << section;
  EXPECT_EQ(function.str().rfind("#compdef warpforge\n", 0), 0u);
  for (const auto* command : {"run", "runs", "bench", "status", "calibrate"}) {
    EXPECT_NE(page.str().find(std::string{".SS "} + command + "\n"), std::string::npos) << command;
    EXPECT_NE(function.str().find(std::string{"\n    '"} + command + ":"), std::string::npos) << command;
  }
  // Rendered by the man-db or groff of this host with every roff warning on (the page must be
  // valid roff: no warning on stderr), else only read as above.
  if (bash("command -v man >/dev/null") == 0) {
    ASSERT_EQ(bash("MANWIDTH=100 man --warnings=all -l '" + man.string() + "' | cat"), 0) << stderr_text();
    EXPECT_NE(text_of("stdout.txt").find("warpforge runs [OPTIONS]"), std::string::npos) << text_of("stdout.txt");
    EXPECT_EQ(stderr_text(), "") << "roff warnings";
  } else if (bash("command -v groff >/dev/null") == 0) {
    ASSERT_EQ(bash("groff -man -Tutf8 -ww '" + man.string() + "'"), 0);
    EXPECT_NE(text_of("stdout.txt").find("runs"), std::string::npos);
    EXPECT_EQ(stderr_text(), "") << "roff warnings";
  }
  if (bash("command -v zsh >/dev/null") == 0) {
    EXPECT_EQ(bash("zsh -n '" + zsh.string() + "'"), 0) << stderr_text();
  }
}

} // namespace
