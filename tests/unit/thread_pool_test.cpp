// The engine's fork-join pool (kernels/cpu/thread_pool.hpp): every worker runs each job
// once, worker 0 on the caller's thread, the shares cover the items exactly, a job's
// exception reaches the caller, and the pool runs job after job.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kernels/cpu/thread_pool.hpp"

namespace flysim::test {
namespace {

TEST(ThreadPool, EveryWorkerRunsEachJobOnceOnItsOwnThread) {
  for (const unsigned threads : {1u, 2u, 5u}) {
    ThreadPool pool(threads);
    ASSERT_EQ(pool.size(), threads);
    std::vector<std::atomic<int>> calls(threads);
    std::vector<std::thread::id> ids(threads);
    pool.run([&](unsigned worker, unsigned workers) {
      EXPECT_EQ(workers, threads);
      ++calls[worker];
      ids[worker] = std::this_thread::get_id();
    });
    for (unsigned w = 0; w < threads; ++w) EXPECT_EQ(calls[w], 1) << "worker " << w;
    EXPECT_EQ(ids[0], std::this_thread::get_id()) << "worker 0 is the calling thread";
    EXPECT_EQ(std::set<std::thread::id>(ids.begin(), ids.end()).size(), threads);
  }
}

// Many jobs in a row (two per epoch in the engine): each sees the previous one finished.
TEST(ThreadPool, SharesCoverTheItemsJobAfterJob) {
  ThreadPool pool(4);
  std::vector<int> items(1001, 0);
  for (int job = 1; job <= 2000; ++job)
    pool.run([&](unsigned worker, unsigned workers) {
      const auto [begin, end] = share_of(items.size(), worker, workers);
      for (std::size_t i = begin; i < end; ++i) ++items[i];
    });
  for (std::size_t i = 0; i < items.size(); ++i) ASSERT_EQ(items[i], 2000) << "item " << i;
}

TEST(ThreadPool, SharesAreContiguousAndBalanced) {
  for (const std::size_t count : {std::size_t{0}, std::size_t{3}, std::size_t{10}, std::size_t{1001}})
    for (const unsigned workers : {1u, 3u, 8u}) {
      std::size_t next = 0;
      for (unsigned w = 0; w < workers; ++w) {
        const auto [begin, end] = share_of(count, w, workers);
        EXPECT_EQ(begin, next);
        EXPECT_LE(end - begin, count / workers + 1);
        EXPECT_GE(end - begin, count / workers);
        next = end;
      }
      EXPECT_EQ(next, count);
    }
}

TEST(ThreadPool, AJobsExceptionReachesTheCallerAndThePoolGoesOn) {
  ThreadPool pool(3);
  EXPECT_THROW(pool.run([](unsigned worker, unsigned) {
                 if (worker == 2) throw std::runtime_error("worker 2 failed");
               }),
               std::runtime_error);
  std::atomic<int> calls{0};
  pool.run([&](unsigned, unsigned) { ++calls; });
  EXPECT_EQ(calls, 3);
}

// Items taken by whichever worker comes first, jobs of every size in a row, between
// run jobs: each item runs exactly once per job, and a helper that wakes after a job's
// items are gone takes nothing of it (nor anything twice of the next).
TEST(ThreadPool, RunItemsRunsEveryItemOnceJobAfterJob) {
  for (const unsigned threads : {1u, 2u, 5u}) {
    ThreadPool pool(threads);
    std::vector<std::atomic<int>> calls(64);
    int expected_each = 0;
    std::atomic<int> run_calls{0};
    for (int job = 0; job < 3000; ++job) {
      const std::size_t count = static_cast<std::size_t>(job % 7);  // 0..6 items
      for (auto& c : calls) c.store(0, std::memory_order_relaxed);
      pool.run_items(count, [&](std::size_t k) { calls[k].fetch_add(1, std::memory_order_relaxed); });
      for (std::size_t k = 0; k < calls.size(); ++k)
        ASSERT_EQ(calls[k].load(), k < count ? 1 : 0) << "job " << job << " item " << k << ", " << threads << " threads";
      if (job % 5 == 0) {
        pool.run([&](unsigned, unsigned) { ++run_calls; });
        expected_each += 1;
      }
    }
    EXPECT_EQ(run_calls, expected_each * static_cast<int>(threads)) << "a run job between item jobs reaches every worker once";
  }
}

TEST(ThreadPool, RunItemsRethrowsAnItemsExceptionAndThePoolGoesOn) {
  ThreadPool pool(3);
  EXPECT_THROW(pool.run_items(10, [](std::size_t k) {
                 if (k == 7) throw std::runtime_error("item 7 failed");
               }),
               std::runtime_error);
  std::atomic<int> items{0};
  pool.run_items(10, [&](std::size_t) { ++items; });
  EXPECT_EQ(items, 10);
  std::atomic<int> calls{0};
  pool.run([&](unsigned, unsigned) { ++calls; });
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace flysim::test
