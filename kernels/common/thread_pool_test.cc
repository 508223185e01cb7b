// StaticThreadPool: every task runs exactly once per Run, thread indices stay
// in range and are never shared by concurrent tasks, across many back-to-back
// jobs (spinning hand-over) and jobs separated by pauses (sleeping workers).
#include "kernels/common/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace loom {
namespace {

void CheckJobs(StaticThreadPool* pool, int jobs, std::chrono::microseconds pause) {
  const int threads = pool->NumThreads();
  for (int j = 0; j < jobs; ++j) {
    const int64_t n = 1 + (j * 7) % 29;
    std::vector<std::atomic<int>> runs(static_cast<size_t>(n));
    std::vector<std::atomic<int>> busy(static_cast<size_t>(threads));
    std::atomic<bool> bad_index{false}, shared_index{false};
    pool->Run(n, [&](int64_t task, int thread) {
      if (thread < 0 || thread >= threads) {
        bad_index = true;
        return;
      }
      if (busy[thread].fetch_add(1) != 0) shared_index = true;
      runs[task].fetch_add(1);
      busy[thread].fetch_sub(1);
    });
    ASSERT_FALSE(bad_index.load()) << "job " << j;
    ASSERT_FALSE(shared_index.load()) << "job " << j;
    for (int64_t t = 0; t < n; ++t) ASSERT_EQ(runs[t].load(), 1) << "job " << j << " task " << t;
    if (pause.count() > 0) std::this_thread::sleep_for(pause);
  }
}

TEST(StaticThreadPool, RunsEveryTaskOnceBackToBack) {
  for (int threads : {1, 2, 3, 4}) {
    StaticThreadPool pool(threads);
    EXPECT_EQ(pool.NumThreads(), threads);
    CheckJobs(&pool, 2000, std::chrono::microseconds(0));
  }
}

TEST(StaticThreadPool, RunsEveryTaskOnceAfterWorkersSleep) {
  StaticThreadPool pool(3);
  CheckJobs(&pool, 20, std::chrono::microseconds(2000));
}

TEST(StaticThreadPool, SumsWithParallelFor) {
  StaticThreadPool pool(3);
  for (int64_t n : {1, 5, 64, 1000, 12345}) {
    std::atomic<int64_t> sum{0};
    ParallelFor(&pool, n, 7, [&](int64_t begin, int64_t end, int) {
      int64_t s = 0;
      for (int64_t i = begin; i < end; ++i) s += i;
      sum += s;
    });
    EXPECT_EQ(sum.load(), n * (n - 1) / 2);
  }
}

TEST(StaticThreadPool, DestroysIdleAndFreshPools) {
  for (int i = 0; i < 50; ++i) {
    StaticThreadPool fresh(3);
  }
  StaticThreadPool used(2);
  CheckJobs(&used, 3, std::chrono::microseconds(0));
}

}  // namespace
}  // namespace loom
