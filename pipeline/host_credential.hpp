#pragma once
// A campaign's credential for its hosts (docs/hosts.md, "Threat model"): a certificate authority
// made for this campaign alone and one member certificate it signed, which the coordinator and
// every `warpforge host` present to each other over TLS (CAF's libcaf_openssl: both sides verify
// the peer's certificate against the campaign's CA and refuse a peer without one). The CA's key is
// destroyed once the member certificate is signed: nobody, not even the coordinator, can mint
// another certificate the campaign trusts. The keys and certificates are made by Debian's
// `openssl` tool (a child process), never by code of ours.
//
//   <dir>/ca.pem          the campaign CA's certificate (what a peer is verified against)
//   <dir>/member.pem      the member certificate, signed by that CA
//   <dir>/member.key      its private key (0600)
//
//   auto made = make_credential(run_dir / "credential", "nightly");  // error: which step failed
//   auto files = read_credential(dir);   // error: a file missing, or a key others can read

#include "foundation/expected/expected.hpp"

#include <chrono>
#include <filesystem>
#include <string>

namespace warpforge::pipeline {

struct credential_files {
  std::filesystem::path ca;          // ca.pem
  std::filesystem::path certificate; // member.pem
  std::filesystem::path key;         // member.key
};

/// How long a campaign's certificates are valid.
inline constexpr int credential_days = 30;

/// Makes a fresh credential in `dir` (created 0700; it must not hold one already), named for
/// `campaign`. `openssl` is the tool (found on PATH when empty). Every file is 0600.
expected<credential_files, std::string> make_credential(const std::filesystem::path& dir, const std::string& campaign,
                                                        std::filesystem::path openssl = {});

/// The credential in `dir`, checked: every file present and the key readable by its owner only.
expected<credential_files, std::string> read_credential(const std::filesystem::path& dir);

} // namespace warpforge::pipeline
