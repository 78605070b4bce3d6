// A screen's slots (apps/flysim/screen/screen_slots.hpp): every experiment runs to the
// end exactly once however slots are lost; a lost slot's experiment goes to another;
// when every slot is lost the error says how many experiments were left; the first
// exception stops the others and reaches the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "apps/flysim/screen/screen_slots.hpp"
#include "model/errors.hpp"

namespace flysim::test {
namespace {

std::vector<std::size_t> experiments(std::size_t n) {
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < n; ++i) all.push_back(i);
  return all;
}

struct Tally {
  std::mutex lock;
  std::map<std::size_t, int> done;  // experiment -> times run to the end
  void add(std::size_t i) {
    const std::lock_guard<std::mutex> guard(lock);
    ++done[i];
  }
};

// Waits (at most 10 s, a bound against hanging) until `done` is true.
template <class Predicate>
void wait_until(Predicate done) {
  for (int k = 0; k < 10000 && !done(); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(done());
}

TEST(ScreenSlots, LostSlotsGiveTheirExperimentToAnother) {
  Tally tally;
  std::atomic<int> taken{0}, lost{0};
  std::vector<app::ScreenSlot> slots;
  // Two slots lost at their first experiment; one that holds its first until both are
  // lost (whatever the threads' order), then runs everything else.
  for (int k = 0; k < 2; ++k)
    slots.push_back({"lost", [&](std::size_t) {
                       ++taken;
                       ++lost;
                       return false;
                     }});
  slots.push_back({"steady", [&, first = std::make_shared<bool>(true)](std::size_t i) {
                     ++taken;
                     if (*first) wait_until([&] { return lost == 2; });
                     *first = false;
                     tally.add(i);
                     return true;
                   }});
  std::atomic<bool> stopping{false};
  app::run_on_slots(experiments(40), slots, stopping);
  ASSERT_EQ(tally.done.size(), 40u);
  for (const auto& [i, times] : tally.done) EXPECT_EQ(times, 1) << "experiment " << i;
  EXPECT_EQ(taken.load(), 42);  // two experiments were taken twice: once by a slot that was lost
  EXPECT_FALSE(stopping);
}

TEST(ScreenSlots, EverySlotLostSaysHowManyAreLeft) {
  Tally tally;
  std::vector<app::ScreenSlot> slots;
  for (int k = 0; k < 2; ++k)
    slots.push_back({"lost", [&, calls = std::make_shared<int>(0)](std::size_t i) {
                       if (++*calls == 2) return false;
                       tally.add(i);
                       return true;
                     }});
  std::atomic<bool> stopping{false};
  try {
    app::run_on_slots(experiments(10), slots, stopping);
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("every node of the screen was lost with 8 experiment(s) not run"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(tally.done.size(), 2u);
}

TEST(ScreenSlots, TheFirstExceptionStopsTheOthersAndIsRethrown) {
  std::atomic<int> ran{0};
  std::atomic<bool> stopping{false};
  std::vector<app::ScreenSlot> slots;
  slots.push_back({"failing", [](std::size_t) -> bool { throw std::runtime_error("engine failed"); }});
  // Holds any experiment it took until the other slot has failed: then it takes no more.
  slots.push_back({"other", [&](std::size_t) {
                     wait_until([&] { return stopping.load(); });
                     ++ran;
                     return true;
                   }});
  EXPECT_THROW(app::run_on_slots(experiments(1000), slots, stopping), std::runtime_error);
  EXPECT_TRUE(stopping);
  EXPECT_LE(ran.load(), 1);  // of 1000: none after the failure (one, when it held one then)
}

}  // namespace
}  // namespace flysim::test
