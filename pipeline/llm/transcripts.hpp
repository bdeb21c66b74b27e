#pragma once
// Every prompt and raw reply of an llm proposer, saved in the run directory (with token counts),
// one file per call, so a person can read what the model was told and said, and so a `replay`
// proposer can re-run the campaign from them with no network:
//
//   <run_dir>/llm/<job>/iter-<i>/01-judge.json, 02-propose.json, 03-reask.json, 04-fix_compile.json ...
//
//   recorded_chat chat{*provider, folder};     // a chat_client that writes each call it passes on
//   replayed_chat replay{earlier_folder};      // a chat_client that answers from saved files
//
// A proposal for an iteration starts its folder afresh (an interrupted proposal asked again
// leaves only the calls of the proposal that was used), so replay files are numbered exactly as
// the calls a proposal makes. No key is ever in a request (keys are headers the client adds), so
// nothing secret is written.

#include "foundation/expected/expected.hpp"
#include "llm/chat/chat.hpp"

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>

namespace warpforge::pipeline {

/// The transcript folder of one job's iteration.
std::filesystem::path transcript_folder(const std::filesystem::path& run_dir, const std::string& job,
                                        std::int64_t iteration);

/// Passes calls on to `inner` and writes each (request, reply or error) as the folder's next file.
/// The folder is emptied when the recorder is made.
class recorded_chat final : public llm::chat_client {
public:
  recorded_chat(llm::chat_client& inner, std::filesystem::path folder);
  expected<llm::chat_reply, llm::chat_error> chat(const llm::chat_request& request) override;
  /// The file the last call was written to, relative to `relative_to` (for the store's row).
  std::string last_file(const std::filesystem::path& relative_to) const;

private:
  llm::chat_client& inner_;
  std::filesystem::path folder_;
  std::uint32_t calls_ = 0;
  std::filesystem::path last_;
  std::mutex mutex_;
};

/// Answers the n-th call with the n-th saved file of an earlier run's folder; an error when there
/// is none or its purpose differs (the replay has diverged from the recorded run).
class replayed_chat final : public llm::chat_client {
public:
  explicit replayed_chat(std::filesystem::path folder);
  expected<llm::chat_reply, llm::chat_error> chat(const llm::chat_request& request) override;

private:
  std::filesystem::path folder_;
  std::uint32_t calls_ = 0;
};

} // namespace warpforge::pipeline
