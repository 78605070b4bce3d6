#include "host/cost_sampler.hpp"

#include "host/thread_placement.hpp"

namespace flysim {

CostSampler::CostSampler(double window_s, std::chrono::milliseconds every)
    : started_(std::chrono::steady_clock::now()), every_(every), meter_(window_s) {
  read_now(true);
  thread_ = std::thread([this] { run(); });
}

CostSampler::~CostSampler() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void CostSampler::read_now(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_reading_ < kFreshEnough) return;
  last_reading_ = now;
  meter_.add(std::chrono::duration<double>(now - started_).count(), read_process_times());
}

void CostSampler::run() {
  enter_role_as(ThreadRole::other, "fs-cost");
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, every_, [this] { return stopping_; })) read_now(true);
}

CostReport CostSampler::report() {
  std::lock_guard lock(mutex_);
  read_now(false);
  return meter_.report();
}

CostReport CostSampler::report_since_start() {
  std::lock_guard lock(mutex_);
  read_now(false);
  return meter_.report_since_start();
}

}  // namespace flysim
