#include "apps/flysim/screen/screen_slots.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "model/errors.hpp"

namespace flysim::app {

namespace {

// The experiments not yet taken (given-back ones first), and how many are being run.
class ExperimentQueue {
 public:
  ExperimentQueue(const std::vector<std::size_t>& to_run, std::atomic<bool>& stopping)
      : waiting_(to_run.begin(), to_run.end()), stopping_(stopping) {}

  // The next experiment; nullopt when none is left and none is being run (one being run
  // may still come back), or when the screen is stopping.
  std::optional<std::size_t> take() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return stopping_ || !waiting_.empty() || running_ == 0; });
    if (stopping_ || waiting_.empty()) return std::nullopt;
    const std::size_t i = waiting_.front();
    waiting_.pop_front();
    ++running_;
    return i;
  }
  void finished() { settle([] {}); }
  void give_back(std::size_t i) { settle([&] { waiting_.push_front(i); }); }
  void wake() {
    { const std::lock_guard<std::mutex> lock(mutex_); }
    changed_.notify_all();
  }
  std::size_t left() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return waiting_.size();
  }

 private:
  template <class F>
  void settle(F&& f) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      f();
      --running_;
    }
    changed_.notify_all();
  }
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::size_t> waiting_;
  std::size_t running_ = 0;
  std::atomic<bool>& stopping_;
};

}  // namespace

void run_on_slots(const std::vector<std::size_t>& to_run, const std::vector<ScreenSlot>& slots, std::atomic<bool>& stopping) {
  ExperimentQueue queue(to_run, stopping);
  std::mutex failure_lock;
  std::exception_ptr failure;
  const auto work = [&](const ScreenSlot& slot) {
    try {
      while (const std::optional<std::size_t> i = queue.take()) {
        bool done = false;
        try {
          done = slot.run(*i);
        } catch (...) {
          queue.give_back(*i);
          throw;
        }
        if (done) {
          queue.finished();
        } else {
          queue.give_back(*i);
          return;
        }
      }
    } catch (...) {
      {
        const std::lock_guard<std::mutex> lock(failure_lock);
        if (!failure) failure = std::current_exception();
      }
      stopping = true;
      queue.wake();
    }
  };
  if (slots.size() == 1) {
    work(slots.front());
  } else {
    std::vector<std::thread> threads;
    for (const ScreenSlot& slot : slots) threads.emplace_back(work, std::cref(slot));
    for (std::thread& t : threads) t.join();
  }
  if (failure) std::rethrow_exception(failure);
  if (const std::size_t left = queue.left(); left > 0)
    throw input_error(fmt::format("every node of the screen was lost with {} experiment(s) not run (the finished ones "
                                         "are kept: --screen.resume=true continues)",
                                         left));
}

}  // namespace flysim::app
