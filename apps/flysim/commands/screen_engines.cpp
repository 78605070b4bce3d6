#include "apps/flysim/commands/screen_engines.hpp"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace flysim::app {

struct ScreenEngines::Shared {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stopping{false};
  std::mutex failure_lock;
  std::exception_ptr failure;
};

ScreenEngines::ScreenEngines(std::vector<std::unique_ptr<Engine>> engines)
    : engines_(std::move(engines)), shared_(std::make_shared<Shared>()) {}

bool ScreenEngines::stopping() const { return shared_->stopping.load(std::memory_order_relaxed); }

void ScreenEngines::run(const std::vector<std::size_t>& to_run, const std::function<void(Engine&, std::size_t)>& run_one) {
  Shared& s = *shared_;
  s.next = 0;
  const auto work = [&](Engine& engine) {
    try {
      for (std::size_t n = s.next++; n < to_run.size() && !s.stopping; n = s.next++) run_one(engine, to_run[n]);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(s.failure_lock);
      if (!s.failure) s.failure = std::current_exception();
      s.stopping = true;
    }
  };
  if (engines_.size() == 1) {
    work(*engines_.front());
  } else {
    std::vector<std::thread> threads;
    for (const auto& engine : engines_) threads.emplace_back(work, std::ref(*engine));
    for (std::thread& t : threads) t.join();
  }
  if (s.failure) std::rethrow_exception(s.failure);
}

}  // namespace flysim::app
