// Fuzzing the model's reply parser: mutated replies (from the scripted fixtures) and mutated
// kernel code must be parsed or refused with reasons, never crash, throw or take long — one
// reply once crashed the coordinator through a regex that recursed per character (issue 22).
#include "llm/reply/code_check.hpp"
#include "llm/reply/contract.hpp"
#include "llm/reply/parse.hpp"
#include "tests/fuzz/mutator.hpp"

namespace warpforge::testing {
namespace {

const std::filesystem::path fixtures{WARPFORGE_SOURCE_DIR "/tests/llm/fixtures"};
const std::filesystem::path examples{WARPFORGE_SOURCE_DIR "/examples"};

llm::kernel_contract transpose_contract() {
  auto contract = llm::contract_from_source(read_text(examples / "transpose" / "kernel.cu"), "transpose",
                                            {"memory.tiling_smem", "memory.bank_conflict"}, 8);
  EXPECT_TRUE(contract.has_value()) << contract.error();
  return contract ? *contract : llm::kernel_contract{};
}

std::vector<std::string> reply_seeds() {
  std::vector<std::string> seeds;
  for (const auto* problem : {"transpose", "sgemm"})
    for (const auto& file : std::filesystem::directory_iterator{fixtures / problem})
      if (file.path().extension() == ".txt")
        seeds.push_back(read_text(file.path()));
  // The reply that once crashed the coordinator: a comment and a long run of spaces.
  seeds.push_back("```json\n{\"variants\": [{\"name\": \"a\", \"code\": \"// same" + std::string(60'000, ' ') + "\"}]}\n```");
  return seeds;
}

TEST(ReplyParserFuzz, MutatedRepliesAreParsedOrRefusedWithReasons) {
  const auto contract = transpose_contract();
  fuzz_campaign campaign{"reply", reply_seeds(), 10'000};
  campaign.run([&contract](std::string_view reply) {
    const auto parsed = llm::parse_reply(reply, contract);
    if (!parsed) {
      EXPECT_FALSE(parsed.error().empty()) << "a refusal names at least one problem";
      EXPECT_LE(llm::reask_text(parsed.error()).size(), llm::max_reask_bytes);
    }
  });
}

TEST(ReplyParserFuzz, MutatedKernelCodeIsCheckedWithoutCrashing) {
  const auto contract = transpose_contract();
  std::vector<std::string> seeds{read_text(examples / "transpose" / "kernel.cu"),
                                 read_text(examples / "sgemm" / "kernel.cu"),
                                 read_text(examples / "softmax" / "kernel.cu"),
                                 "// same" + std::string(60'000, ' ') + "\n"};
  fuzz_campaign campaign{"kernel_code", seeds, 10'000};
  campaign.run([&contract](std::string_view code) { (void)llm::check_code(code, "variants[0].code", contract); });
}

} // namespace
} // namespace warpforge::testing
