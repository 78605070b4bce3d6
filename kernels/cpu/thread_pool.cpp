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
  publish(false);
  for (auto& t : helpers_) t.join();
}

void ThreadPool::record_failure() {
  std::lock_guard lock(failure_mutex_);
  if (!failure_) failure_ = std::current_exception();
}

void ThreadPool::publish(bool items) {
  // Only the pool's owner (the caller of run and run_items) writes generation_.
  const uint64_t jobs = generation_.load(std::memory_order_relaxed) >> 1;
  generation_.store(((jobs + 1) << 1) | (items ? 1u : 0u), std::memory_order_release);
  generation_.notify_all();
}

void ThreadPool::run(const std::function<void(unsigned, unsigned)>& job) {
  failure_ = nullptr;
  job_ = &job;
  running_.store(static_cast<unsigned>(helpers_.size()), std::memory_order_release);
  publish(false);
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

void ThreadPool::run_items(std::size_t count, const std::function<void(std::size_t)>& item) {
  if (count == 0) return;
  if (helpers_.empty() || count == 1) {
    for (std::size_t k = 0; k < count; ++k) item(k);
    return;
  }
  if (count > 0xffffffffu) throw std::invalid_argument("run_items: more than 2^32 - 1 items");
  failure_ = nullptr;
  item_ = &item;
  items_left_.store(static_cast<uint32_t>(count), std::memory_order_relaxed);
  ticket_.store(uint64_t{count} << 32, std::memory_order_release);
  publish(true);
  take_items();
  uint32_t left = items_left_.load(std::memory_order_acquire);
  spin_then_wait(items_left_, left, [&] { return items_left_.load(std::memory_order_acquire) == 0; });
  item_ = nullptr;
  if (failure_) std::rethrow_exception(failure_);
}

void ThreadPool::take_items() {
  uint64_t ticket = ticket_.load(std::memory_order_acquire);
  for (;;) {
    const uint64_t next = ticket & 0xffffffffu;
    if (next >= ticket >> 32) return;
    // On failure `ticket` is reloaded: another worker took it, or a new job began.
    if (!ticket_.compare_exchange_weak(ticket, ticket + 1, std::memory_order_acq_rel, std::memory_order_acquire))
      continue;
    // Taken: the job cannot end (nor item_ change) before this item is done.
    try {
      (*item_)(static_cast<std::size_t>(next));
    } catch (...) {
      record_failure();
    }
    if (items_left_.fetch_sub(1, std::memory_order_acq_rel) == 1) items_left_.notify_one();
    ticket = ticket_.load(std::memory_order_acquire);
  }
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
    if (seen & 1u) {
      take_items();
      continue;
    }
    try {
      (*job_)(worker, size());
    } catch (...) {
      record_failure();
    }
    if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) running_.notify_one();
  }
}

}  // namespace flysim
