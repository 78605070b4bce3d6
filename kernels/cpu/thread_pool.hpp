#pragma once
// A fixed fork-join pool owned by one engine, apart from CAF's scheduler threads.
// Written here rather than taken from a library (TBB, OpenMP) because the engine needs
// exactly this and no more: its own threads with its own lifetime (a hot-swap destroys
// one engine and builds another), a static split of the work by worker index (so the
// partition is a pure function of the thread count), and nothing global to the process.
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace flysim {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()); }
  // Runs job(worker, workers) once on every worker and returns when all are done.
  // An exception thrown by a job is rethrown here.
  void run(const std::function<void(unsigned, unsigned)>& job);

 private:
  void work(unsigned worker);
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(unsigned, unsigned)>* job_ = nullptr;
  std::size_t generation_ = 0;
  unsigned running_ = 0;
  bool stopping_ = false;
  std::exception_ptr failure_;
};

// [begin, end) of worker `w` of `workers` over `count` items: contiguous, balanced.
inline std::pair<std::size_t, std::size_t> share_of(std::size_t count, unsigned w, unsigned workers) {
  return {count * w / workers, count * (w + 1) / workers};
}

}  // namespace flysim
