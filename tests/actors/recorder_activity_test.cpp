// The recorder's activity window, through the actor: serve's recorder counts
// what it records and learns a new stimulated set; run's recorder keeps no window.
#include <gtest/gtest.h>

#include "actors/recorder.hpp"
#include "messages/messages.hpp"
#include "test_support.hpp"

namespace flysim::test {
namespace {

class RecorderActivity : public ::testing::Test {
 protected:
  RecorderActivity() {
    register_message_types(config_);
    system_ = std::make_unique<caf::actor_system>(config_);
  }
  ~RecorderActivity() override {
    if (recorder_) caf::anon_send_exit(recorder_, caf::exit_reason::user_shutdown);
    system_.reset();
  }
  void start(bool window) {
    RecorderConfig config;
    config.network = tiny_network(4, {});
    config.steps_per_trial = 1000;
    config.readout_root_ids = {1002};
    config.stimulated = {1};
    if (window) config.activity = ActivitySettings{10, 8, 0.1, 1000};
    recorder_ = system_->spawn(recorder_behavior, config);
  }
  caf::actor_system_config config_;
  std::unique_ptr<caf::actor_system> system_;
  recorder_actor recorder_;
};

TEST_F(RecorderActivity, ServesRecorderCountsWhatItRecordsAndLearnsTheStimulatedSet) {
  start(true);
  caf::scoped_actor self{*system_};
  self->send(recorder_, record_atom::value, EpochSpikes{0, 0, 20, {{1, 1}, {3, 2}, {12, 1}}});
  self->send(recorder_, stimulus_atom::value, std::vector<uint32_t>{2});
  self->request(recorder_, caf::infinite, top_atom::value, uint32_t{4})
      .receive(
          [&](const TopReport& top) {
            ASSERT_EQ(top.top.size(), 2u);
            EXPECT_EQ(top.top[0].root_id, 1001);
            EXPECT_EQ(top.top[0].spikes, 2u);
            EXPECT_FALSE(top.top[0].stimulated) << "the new set replaced {1}";
            EXPECT_TRUE(top.top[1].stimulated);
            EXPECT_TRUE(top.top[1].readout);
          },
          [&](const caf::error& err) { FAIL() << describe_error(err); });
  self->request(recorder_, caf::infinite, rates_atom::value, int64_t{1})
      .receive([&](const RatesReport& rates) { ASSERT_EQ(rates.bins.size(), 1u); },
               [&](const caf::error& err) { FAIL() << describe_error(err); });
}

TEST_F(RecorderActivity, RunsRecorderKeepsNoWindowAndSaysSo) {
  start(false);
  caf::scoped_actor self{*system_};
  self->send(recorder_, record_atom::value, EpochSpikes{0, 0, 20, {{1, 1}}});
  self->request(recorder_, caf::infinite, raster_atom::value, int64_t{0}, uint32_t{4})
      .receive([&](const RasterReport&) { FAIL() << "answered without a window"; },
               [&](const caf::error& err) {
                 EXPECT_EQ(describe_error(err),
                           "this run keeps no activity window: the live page's figures come from flysim serve");
               });
}

}  // namespace
}  // namespace flysim::test
