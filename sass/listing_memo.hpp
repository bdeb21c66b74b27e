#pragma once
// What the disassembler printed for a CUBIN, kept in this process so that the same machine code
// is disassembled once: a branch's code check (at its build) and its SASS check (next) read the
// same CUBIN, and nvdisasm takes about 0.6 s a run on the GPU hosts (CUDA 13.0, a 12 KB CUBIN)
// whatever the machine code, so the second run doubled the wait between a proposal and its race.
//
//   listing_memo memo;
//   if (auto text = memo.find(key)) parse(*text); else memo.keep(key, run_tool());
//
// The key is the tool (its path, size and time, so another toolkit is another key, and the
// format it is run for) and the CUBIN's content (SHA-256), never its path: a cache-hit build
// writes the same bytes elsewhere. The tool runs on a copy of exactly the bytes the key was made
// of (disassembler.cpp), so a CUBIN rewritten meanwhile cannot leave its listing under another
// key. Only a listing the tool printed with exit 0 and the parser read is kept; a failure runs
// the tool again next time. Bounded by bytes, the oldest entry going first.
//
// A memo told to keep its listings on disk (keep_on_disk: the pipeline's, beside the compile
// cache) also finds those an earlier process kept: a cache-hit build then runs no tool at all.
// Before, every branch of every campaign after the first ran nvdisasm once (0.47-0.66 s of each
// 0.5-0.7 s cache-hit build on an H200 host), between an iteration's proposal and its race.
//
//   <folder>/<key[0:2]>/<key>.txt    "warpforge-listing <bytes> <sha256>", then the tool's
//                                    printed listing (files::write_file_atomically)

#include <cstddef>
#include <filesystem>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace warpforge::sass {

/// The tool's printed listings this process keeps, at most this many bytes of them.
inline constexpr std::size_t listing_memo_budget_bytes = std::size_t{64} << 20;

class listing_memo {
public:
  explicit listing_memo(std::size_t budget_bytes = listing_memo_budget_bytes) : budget_(budget_bytes) {}

  /// The key for `cubin_bytes` disassembled by `tool` printing `format` (its arguments and the
  /// parser follow it); nullopt when the tool cannot be stat'ed.
  static std::optional<std::string> key(const std::filesystem::path& tool, std::string_view format,
                                        std::string_view cubin_bytes);

  /// From this process's memory, else from the disk folder (when one is set), where a file is
  /// used only if its first line names the listing's length and SHA-256 (a damaged one is not).
  std::optional<std::string> find(const std::string& key);
  /// Keeps `printed` for `key`, replacing what was kept (a listing found on disk that the parser
  /// could not read is replaced by the tool's new one), in memory and in the disk folder.
  void keep(const std::string& key, std::string printed);
  /// Keeps every listing in `folder` too, and finds the ones kept there before. Best effort: a
  /// listing that cannot be written there is kept in memory alone.
  void keep_on_disk(std::filesystem::path folder);

  std::size_t bytes() const;
  std::size_t entries() const;

  /// The process's memo, shared by every disassemble() call (compilers and SASS checkers run on
  /// threads of their own: it locks).
  static listing_memo& of_process();

private:
  std::optional<std::filesystem::path> file_of(const std::string& key) const;
  void remember(const std::string& key, std::string printed); // in memory; the lock is held

  mutable std::mutex mutex_;
  std::optional<std::filesystem::path> folder_;
  std::size_t budget_;
  std::size_t bytes_ = 0;
  std::list<std::string> order_; // keys, oldest first
  std::unordered_map<std::string, std::string> printed_;
};

} // namespace warpforge::sass
