// The dashboard's Host and Origin rule (feed/dashboard/request_check.hpp), every verdict, for a
// dashboard on loopback and one on another interface.

#include "feed/dashboard/request_check.hpp"

#include <gtest/gtest.h>

namespace warpforge::dashboard {
namespace {

const served_address loopback{"127.0.0.1", 8757};
const served_address interface{"192.0.2.7", 8757};

TEST(RequestVerdict, EveryVerdictHasANameThatReadsBack) {
  for (auto verdict : all_request_verdicts)
    EXPECT_EQ(request_verdict_from_string(to_string(verdict)), verdict);
  EXPECT_FALSE(request_verdict_from_string("maybe"));
}

TEST(RequestCheck, OnLoopbackTheLoopbackNamesWithTheDashboardsPortAreAccepted) {
  for (const char* host : {"127.0.0.1:8757", "localhost:8757", "LOCALHOST:8757", "[::1]:8757"})
    EXPECT_EQ(check_request(host, std::nullopt, loopback), request_verdict::allowed) << host;
  EXPECT_EQ(check_request("127.0.0.1:8757", "http://127.0.0.1:8757", loopback), request_verdict::allowed);
  EXPECT_EQ(check_request("127.0.0.1:8757", "http://localhost:8757", loopback), request_verdict::allowed);
}

TEST(RequestCheck, AnotherNameOrPortOrNoHostIsRefused) {
  EXPECT_EQ(check_request(std::nullopt, std::nullopt, loopback), request_verdict::missing_host);
  EXPECT_EQ(check_request("", std::nullopt, loopback), request_verdict::missing_host);
  for (const char* host : {"attacker.example:8757", "attacker.example", "127.0.0.1", "127.0.0.1:80",
                           "127.0.0.1:8758", "localhost.attacker.example:8757", "127.0.0.1:8757x",
                           "[::1", "192.0.2.7:8757", ":8757"})
    EXPECT_EQ(check_request(host, std::nullopt, loopback), request_verdict::foreign_host) << host;
}

TEST(RequestCheck, AnOriginOtherThanTheDashboardsOwnIsRefused) {
  for (const char* origin : {"http://attacker.example", "http://attacker.example:8757", "null",
                             "https://127.0.0.1:8757", "http://127.0.0.1:8758", "http://127.0.0.1:8757/x",
                             "file://", ""})
    EXPECT_EQ(check_request("127.0.0.1:8757", origin, loopback), request_verdict::foreign_origin) << origin;
}

TEST(RequestCheck, OnAnInterfaceOnlyItsAddressIsAccepted) {
  EXPECT_EQ(check_request("192.0.2.7:8757", "http://192.0.2.7:8757", interface), request_verdict::allowed);
  EXPECT_EQ(check_request("localhost:8757", std::nullopt, interface), request_verdict::foreign_host);
  EXPECT_EQ(check_request("127.0.0.1:8757", std::nullopt, interface), request_verdict::foreign_host);
  EXPECT_EQ(check_request("gpu-node:8757", std::nullopt, interface), request_verdict::foreign_host);
  EXPECT_EQ(check_request("192.0.2.7:8757", "http://gpu-node:8757", interface), request_verdict::foreign_origin);
}

TEST(RequestCheck, PortEightyMayBeLeftOut) {
  const served_address on_80{"127.0.0.1", 80};
  EXPECT_EQ(check_request("127.0.0.1", "http://localhost", on_80), request_verdict::allowed);
  EXPECT_EQ(check_request("127.0.0.1:80", std::nullopt, on_80), request_verdict::allowed);
}

} // namespace
} // namespace warpforge::dashboard
