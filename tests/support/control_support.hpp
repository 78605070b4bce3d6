#pragma once
// A real ControlServer and control actor in front of a stand-in for the sim loop, for
// protocol tests of the control API (the service itself is tested end to end elsewhere).
#include <caf/all.hpp>
#include <gtest/gtest.h>
#include <httplib.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "apps/flysim/service/control_server.hpp"
#include "messages/interfaces.hpp"

namespace flysim::test {

// What the stand-in received, shared with the test (it answers on a CAF thread).
struct FakeSimLog {
  std::mutex mutex;
  std::condition_variable arrived;
  std::vector<LiveCommand> commands;
  std::vector<std::string> questions;  // of the page, as "raster since neurons", "rates since", "top neurons"
  bool answer_commands = true;  // false: hold every command unanswered (a boundary that never comes)
  std::vector<LiveCommand> received() {
    std::lock_guard<std::mutex> lock(mutex);
    return commands;
  }
  // Waits until `count` commands arrived (an event, not a guess of how long it takes).
  void wait_for(std::size_t count) {
    std::unique_lock<std::mutex> lock(mutex);
    arrived.wait(lock, [&] { return commands.size() >= count; });
  }
};

// The status the stand-in reports: every field set, none at its default.
ServiceStatus fake_status();

struct fake_sim_state {
  std::shared_ptr<FakeSimLog> log;
  std::vector<caf::typed_response_promise<LiveReply>> held;
  static inline const char* name = "fake_sim";
};

// Answers status with fake_status(); records each command and applies it at "trial 1
// step 360", except a swap to cuda, refused as on a machine without a GPU.
live_actor::behavior_type fake_sim_behavior(live_actor::stateful_pointer<fake_sim_state> self, std::shared_ptr<FakeSimLog> log);

// The reports the stand-in for the activity window answers: every field set.
RasterReport fake_raster();
RatesReport fake_rates();
TopReport fake_top();

struct fake_activity_state {
  std::shared_ptr<FakeSimLog> log;
  static inline const char* name = "fake_activity";
};

// Records each question of the page in the log and answers with the fake reports.
activity_actor::behavior_type fake_activity_behavior(activity_actor::stateful_pointer<fake_activity_state> self,
                                                     std::shared_ptr<FakeSimLog> log);

class ControlFixture : public ::testing::Test {
 protected:
  ControlFixture();
  ~ControlFixture() override;
  // Spawns the stand-in and the control actor and starts a server on a free port.
  void start(app::ControlServerConfig config = {});

  httplib::Result get(const std::string& path, const httplib::Headers& headers = {});
  httplib::Result post(const std::string& path, const std::string& body, const httplib::Headers& headers = {});

  caf::actor_system_config config_;
  std::unique_ptr<caf::actor_system> system_;
  std::shared_ptr<FakeSimLog> log_ = std::make_shared<FakeSimLog>();
  live_actor sim_;
  activity_actor activity_;
  control_actor control_;
  std::unique_ptr<app::ControlServer> server_;
};

}  // namespace flysim::test
