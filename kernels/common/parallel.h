// Parallelism inside one kernel run. The engine owns a ThreadPool per
// ExecutionContext; kernels split work with ParallelFor. No heap allocation:
// the body is passed by reference (FunctionRef), never stored.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace loom {

// A non-owning reference to a callable, valid only during the call it is passed to.
template <typename Fn> class FunctionRef;
template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F,
            typename = std::enable_if_t<!std::is_same<std::decay_t<F>, FunctionRef>::value>>
  FunctionRef(F&& f)  // NOLINT: implicit by design
      : obj_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* obj, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(obj))(std::forward<Args>(args)...);
        }) {}
  R operator()(Args... args) const { return call_(obj_, std::forward<Args>(args)...); }

 private:
  void* obj_;
  R (*call_)(void*, Args...);
};

class ThreadPool {
 public:
  virtual ~ThreadPool() = default;
  // Number of threads that run work, the calling thread included (>= 1).
  virtual int NumThreads() const = 0;
  // Calls fn(task, thread_index) for task in [0, num_tasks); returns when all
  // are done. thread_index is in [0, NumThreads()), unique among concurrently
  // running calls, so it can index per-thread scratch.
  virtual void Run(int64_t num_tasks, FunctionRef<void(int64_t task, int thread_index)> fn) = 0;
};

// Splits [0, n) into contiguous chunks of at least `grain` items and calls
// fn(begin, end, thread_index) on each, serially when pool is null or the work is small.
inline void ParallelFor(ThreadPool* pool, int64_t n, int64_t grain,
                        FunctionRef<void(int64_t begin, int64_t end, int thread_index)> fn) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  const int threads = pool ? pool->NumThreads() : 1;
  int64_t chunks = (n + grain - 1) / grain;
  if (threads <= 1 || chunks <= 1) {
    fn(0, n, 0);
    return;
  }
  if (chunks > threads * 4) chunks = threads * 4;
  const int64_t chunk = (n + chunks - 1) / chunks;
  chunks = (n + chunk - 1) / chunk;
  pool->Run(chunks, [&](int64_t task, int thread_index) {
    const int64_t begin = task * chunk;
    const int64_t end = begin + chunk < n ? begin + chunk : n;
    fn(begin, end, thread_index);
  });
}

}  // namespace loom
