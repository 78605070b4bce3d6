#include "kernels/cpu/thread_pool.hpp"

#include <stdexcept>

namespace flysim {

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) throw std::invalid_argument("a thread pool needs at least one thread");
  for (unsigned w = 0; w < threads; ++w) workers_.emplace_back([this, w] { work(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::run(const std::function<void(unsigned, unsigned)>& job) {
  std::unique_lock lock(mutex_);
  job_ = &job;
  running_ = size();
  failure_ = nullptr;
  ++generation_;
  start_.notify_all();
  done_.wait(lock, [this] { return running_ == 0; });
  job_ = nullptr;
  if (failure_) std::rethrow_exception(failure_);
}

void ThreadPool::work(unsigned worker) {
  std::size_t seen = 0;
  for (;;) {
    const std::function<void(unsigned, unsigned)>* job;
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      job = job_;
    }
    std::exception_ptr failure;
    try {
      (*job)(worker, size());
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    if (failure && !failure_) failure_ = failure;
    if (--running_ == 0) done_.notify_one();
  }
}

}  // namespace flysim
