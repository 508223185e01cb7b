// A fixed pool of worker threads for ParallelFor inside one run. Workers are
// started once; Run hands out task indices through an atomic counter, so a
// run allocates nothing.
//
// A job is open while the caller is still handing out tasks. A worker joins
// an open job (one atomic compare-and-swap), takes tasks and leaves; once the
// caller has taken the last task it closes the job, so it waits only for
// workers that joined and are still running a task, never for a worker that
// has not woken up yet (waking a sleeping thread costs tens of
// microseconds, more than many nodes take). Idle workers spin briefly
// (pause hint) watching for the next job, then sleep on a condition
// variable; the caller likewise spins briefly before it blocks.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
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
  std::condition_variable wake_;  // workers sleeping for a job
  std::condition_variable done_;  // the caller sleeping for workers to leave
  // High 32 bits: job sequence number, odd while the job is open (even:
  // closed, or stopping when stop_ is set). Low 32 bits: workers inside it.
  std::atomic<uint64_t> state_{0};
  std::atomic<bool> stop_{false};
  std::atomic<int> sleepers_{0};  // workers blocked (or about to block) on wake_
  const FunctionRef<void(int64_t, int)>* job_ = nullptr;
  int64_t num_tasks_ = 0;
  std::atomic<int64_t> next_task_{0};
};

}  // namespace loom
