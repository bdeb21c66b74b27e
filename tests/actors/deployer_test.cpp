// The deployer actor in a running system with a real store (SQLite in a temporary folder): an
// order it cannot start is answered "error" with the reason, records nothing, and is counted in
// its status once its worker has ended. (Whole deploys through the binary: tests/apps/cli/
// deploy_command_test.cpp; the state machine itself: tests/deploy/.)

#include "actors/deployer.hpp"
#include "actors/registry.hpp"
#include "actors/runtime.hpp"
#include "storage/database.hpp"

#include <caf/scoped_actor.hpp>

#include "runtime_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace warpforge::actors {
namespace {

class Deployer : public testing::runtime_fixture {
protected:
  runtime_options with_deployer() {
    auto o = options();
    o.deployer = true;
    return o;
  }

  static std::int64_t counter_of(const messages::component_status& status, std::string_view name) {
    auto found = std::find_if(status.counters.begin(), status.counters.end(),
                              [&](const messages::counter& c) { return c.name == name; });
    return found == status.counters.end() ? -1 : found->value;
  }

  static messages::component_status status_of(runtime& rt) {
    messages::component_status status;
    auto handle = lookup<messages::deployer_actor>(rt.system(), deployer_name);
    EXPECT_TRUE(handle) << "the runtime started a deployer";
    if (!handle)
      return status;
    caf::scoped_actor self{rt.system()};
    self->request(handle, request_timeout, messages::status_atom::value)
      .receive([&](messages::component_status& s) { status = std::move(s); },
               [&](caf::error& e) { ADD_FAILURE() << rt.system().render(e); });
    return status;
  }
};

TEST_F(Deployer, AnOrderThatCannotStartIsAnErrorNamingTheRunAndIsCounted) {
  auto rt = runtime::start(with_deployer());
  ASSERT_TRUE(rt) << rt.error();
  auto& r = **rt;
  const auto missing = dir / "no-such-run";
  auto answer = r.deploy(messages::deploy_order{missing.string(), "transpose", "", false});
  ASSERT_TRUE(answer) << answer.error();
  EXPECT_EQ(answer->outcome, std::nullopt) << "it could not start";
  EXPECT_NE(answer->reason.find(missing.string()), std::string::npos) << answer->reason;
  EXPECT_TRUE(answer->work_dir.empty()) << "nothing was started";
  EXPECT_FALSE(answer->has_before);

  std::filesystem::create_directories(dir / "not-a-run");
  auto recovery = r.deploy(messages::deploy_order{(dir / "not-a-run").string(), "", "", true});
  ASSERT_TRUE(recovery) << recovery.error();
  EXPECT_EQ(recovery->outcome, std::nullopt) << recovery->reason;
  EXPECT_FALSE(recovery->reason.empty());

  const auto status = status_of(r);
  EXPECT_EQ(status.component, deployer_name);
  EXPECT_EQ(status.state, messages::component_state::running);
  EXPECT_EQ(counter_of(status, "deploys"), 2);
  EXPECT_EQ(counter_of(status, "accepted"), 0);
  EXPECT_EQ(counter_of(status, "in_flight"), 0) << "each worker told the deployer it ended";
  r.stop();

  auto db = storage::database::open_read_only(dir / "warpforge.db");
  ASSERT_TRUE(db) << storage::to_string(db.error());
  auto deployments = db->raw().query_int64("SELECT count(*) FROM deployments");
  ASSERT_TRUE(deployments) << "the store opened at the schema with deployments";
  EXPECT_EQ(*deployments, 0) << "an order that could not start records no deployment";
}

TEST_F(Deployer, ARuntimeWithoutOneSaysSo) {
  auto rt = runtime::start(options());
  ASSERT_TRUE(rt) << rt.error();
  auto answer = (*rt)->deploy(messages::deploy_order{dir.string(), "", "", false});
  ASSERT_FALSE(answer);
  EXPECT_NE(answer.error().find("no deployer"), std::string::npos) << answer.error();
}

} // namespace
} // namespace warpforge::actors
