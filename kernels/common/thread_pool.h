// A fixed pool of worker threads for ParallelFor inside one run. Workers are
// started once; Run hands out task indices through an atomic counter, so a
// run allocates nothing.
//
// Waking a sleeping thread costs tens of microseconds, more than many
// nodes take, so after a job a worker spins (with a pause hint) for a short
// while watching for the next job before it sleeps on a condition variable;
// the calling thread likewise spins before it blocks waiting for the
// workers. Back-to-back parallel nodes thus hand work over without a system
// call; an idle pool still sleeps.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "kernels/common/parallel.h"

namespace loom {

class StaticThreadPool final : public ThreadPool {
 public:
  // `num_threads` counts the calling thread: 1 starts no workers.
  explicit StaticThreadPool(int num_threads);
  ~StaticThreadPool() override;
  StaticThreadPool(const StaticThreadPool&) = delete;
  StaticThreadPool& operator=(const StaticThreadPool&) = delete;

  int NumThreads() const override { return static_cast<int>(workers_.size()) + 1; }
  void Run(int64_t num_tasks, FunctionRef<void(int64_t, int)> fn) override;

 private:
  void WorkerLoop(int thread_index);
  void DrainTasks(int thread_index);

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;         // workers sleeping for a job
  std::condition_variable done_;         // the caller sleeping for the workers
  std::atomic<uint64_t> generation_{0};  // bumped per job
  std::atomic<bool> stop_{false};
  std::atomic<int> sleepers_{0};  // workers blocked (or about to block) on wake_
  std::atomic<int> pending_{0};   // workers still inside the current job
  const FunctionRef<void(int64_t, int)>* job_ = nullptr;
  int64_t num_tasks_ = 0;
  std::atomic<int64_t> next_task_{0};
};

}  // namespace loom
