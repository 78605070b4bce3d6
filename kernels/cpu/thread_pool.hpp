#pragma once
// A fixed fork-join pool owned by one engine, apart from CAF's scheduler threads: the
// engine actor's own (detached) thread is worker 0, and threads - 1 helpers join it.
// Written here rather than taken from a library (TBB, OpenMP) because the engine needs
// exactly this and no more: threads with the engine's lifetime (a hot-swap destroys one
// engine and builds another), a static split of the work by worker index (the
// partition is a pure function of the thread count), nothing global to the process,
// and a hand-off in microseconds (an epoch is ~0.1 ms of work, twice per epoch): the
// workers spin briefly before they sleep on a futex (std::atomic::wait).
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace flysim {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(helpers_.size()) + 1; }
  // Runs job(worker, size()) once for every worker (0 on the calling thread) and
  // returns when all are done. An exception thrown by a job is rethrown here.
  void run(const std::function<void(unsigned, unsigned)>& job);
  // Runs item(k) once for every k in [0, count), on whichever workers take them first
  // (the calling thread among them), and returns when all are done: a helper that the
  // system has not run by the time the items are taken takes none, and the caller does
  // not wait for it. The first exception thrown by an item is rethrown here.
  void run_items(std::size_t count, const std::function<void(std::size_t)>& item);

 private:
  void work(unsigned worker);
  void record_failure();
  // Takes items of the current run_items until none is left.
  void take_items();
  // Wakes the helpers for the next job (a run_items job when `items`).
  void publish(bool items);
  std::vector<std::thread> helpers_;
  const std::function<void(unsigned, unsigned)>* job_ = nullptr;
  // Jobs published so far times 2, plus 1 when the last is a run_items job. Helpers wait on
  // it. A helper reads job_ only for a run job, whose caller waits for every helper before
  // it publishes another.
  std::atomic<uint64_t> generation_{0};
  // run_items: (count << 32) | next item, taken by compare-and-swap, so that a helper
  // that wakes late takes only items of the job that is current; item_ is that job's.
  std::atomic<uint64_t> ticket_{0};
  std::atomic<uint32_t> items_left_{0};
  const std::function<void(std::size_t)>* item_ = nullptr;
  std::atomic<unsigned> running_{0};     // helpers still busy with the current job
  std::atomic<bool> stopping_{false};
  std::mutex failure_mutex_;
  std::exception_ptr failure_;
};

// A reusable barrier for the workers of one job (ThreadPool::run): every one of
// `parties` calls arrive_and_wait, and none returns before all have called it. The
// workers of a job differ from job to job (a trial's loops run on the whole pool or on
// one worker, for which it returns at once). Spins briefly, then sleeps.
class SpinBarrier {
 public:
  SpinBarrier() = default;
  // Moving (a trial into its engine's vector) gives a fresh barrier: never while in use.
  SpinBarrier(SpinBarrier&&) noexcept {}
  void arrive_and_wait(unsigned parties);

 private:
  std::atomic<unsigned> arrived_{0};
  std::atomic<uint64_t> generation_{0};
};

// [begin, end) of worker `w` of `workers` over `count` items: contiguous, balanced.
inline std::pair<std::size_t, std::size_t> share_of(std::size_t count, unsigned w, unsigned workers) {
  return {count * w / workers, count * (w + 1) / workers};
}

}  // namespace flysim
