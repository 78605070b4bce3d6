#include "kernels/cpu/thread_pool.hpp"

#include <stdexcept>

#include "host/thread_placement.hpp"

namespace flysim {

namespace {
// A few microseconds of polling before a thread sleeps: long enough to catch the next
// epoch's job, short enough not to steal a core from anyone for long.
constexpr int kSpins = 4000;

template <class T, class Done>
void spin_then_wait(const std::atomic<T>& value, T current, Done done) {
  for (int i = 0; i < kSpins; ++i) {
    if (done()) return;
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
  }
  while (!done()) value.wait(current, std::memory_order_acquire), current = value.load(std::memory_order_acquire);
}
}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) throw std::invalid_argument("a thread pool needs at least one thread");
  for (unsigned w = 1; w < threads; ++w) helpers_.emplace_back([this, w] { work(w); });
}

ThreadPool::~ThreadPool() {
  stopping_.store(true, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  for (auto& t : helpers_) t.join();
}

void ThreadPool::record_failure() {
  std::lock_guard lock(failure_mutex_);
  if (!failure_) failure_ = std::current_exception();
}

void ThreadPool::run(const std::function<void(unsigned, unsigned)>& job) {
  failure_ = nullptr;
  job_ = &job;
  running_.store(static_cast<unsigned>(helpers_.size()), std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  try {
    job(0, size());
  } catch (...) {
    record_failure();
  }
  unsigned left = running_.load(std::memory_order_acquire);
  spin_then_wait(running_, left, [&] { return running_.load(std::memory_order_acquire) == 0; });
  job_ = nullptr;
  if (failure_) std::rethrow_exception(failure_);
}

void SpinBarrier::arrive_and_wait(unsigned parties) {
  if (parties == 1) return;
  const uint64_t generation = generation_.load(std::memory_order_acquire);
  if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == parties) {
    arrived_.store(0, std::memory_order_relaxed);
    generation_.store(generation + 1, std::memory_order_release);
    generation_.notify_all();
    return;
  }
  spin_then_wait(generation_, generation, [&] { return generation_.load(std::memory_order_acquire) != generation; });
}

void ThreadPool::work(unsigned worker) {
  // fs-engine-N on cpus.engine (worker 0 is the engine actor's thread, named by it).
  enter_role(ThreadRole::engine, worker);
  uint64_t seen = 0;
  for (;;) {
    spin_then_wait(generation_, seen, [&] { return generation_.load(std::memory_order_acquire) != seen; });
    seen = generation_.load(std::memory_order_acquire);
    if (stopping_.load(std::memory_order_acquire)) return;
    try {
      (*job_)(worker, size());
    } catch (...) {
      record_failure();
    }
    if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) running_.notify_one();
  }
}

}  // namespace flysim
