#include "kernels/common/thread_pool.h"

#include <chrono>

namespace loom {
namespace {

// How long an idle worker (or the waiting caller) spins before it blocks:
// long enough to bridge the gap between parallel nodes, short enough not to
// starve other processes on a busy machine.
constexpr auto kSpin = std::chrono::microseconds(50);

constexpr uint64_t kCountMask = 0xffffffffu;
inline uint64_t Seq(uint64_t state) { return state >> 32; }

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#endif
}

// Spins until done() or kSpin has passed; returns done().
template <typename Done>
bool SpinUntil(Done done) {
  if (done()) return true;
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (done()) return true;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return done();
  }
}

}  // namespace

StaticThreadPool::StaticThreadPool(int num_threads) {
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

StaticThreadPool::~StaticThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true);
    state_.fetch_add(uint64_t{2} << 32);  // a new (even) sequence: wakes every waiter
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void StaticThreadPool::DrainTasks(int thread_index) {
  for (;;) {
    const int64_t task = next_task_.fetch_add(1, std::memory_order_relaxed);
    if (task >= num_tasks_) return;
    (*job_)(task, thread_index);
  }
}

void StaticThreadPool::Run(int64_t num_tasks, FunctionRef<void(int64_t, int)> fn) {
  if (num_tasks <= 0) return;
  if (workers_.empty() || num_tasks == 1) {
    for (int64_t t = 0; t < num_tasks; ++t) fn(t, 0);
    return;
  }
  // No worker is inside a job here (the previous Run waited for all to
  // leave), so the job fields can be written before the open state
  // publishes them.
  job_ = &fn;
  num_tasks_ = num_tasks;
  next_task_.store(0, std::memory_order_relaxed);
  const uint64_t open_seq = Seq(state_.load(std::memory_order_relaxed)) + 1;  // odd
  state_.store(open_seq << 32);  // seq_cst: pairs with the sleepers_ check below
  if (sleepers_.load() > 0) {
    std::lock_guard<std::mutex> lock(mu_);
    wake_.notify_all();
  }
  DrainTasks(0);
  // Close the job (keeping the count of workers inside), then wait for them.
  state_.fetch_add(uint64_t{1} << 32);
  auto all_left = [this] { return (state_.load(std::memory_order_acquire) & kCountMask) == 0; };
  if (!SpinUntil(all_left)) {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, all_left);
  }
  job_ = nullptr;
}

void StaticThreadPool::WorkerLoop(int thread_index) {
  uint64_t last = 0;  // sequence of the last job this worker saw
  for (;;) {
    // stop_ counts as news too: the destructor may bump the sequence after
    // this worker passed its stop_ check but before it read `last`.
    auto news = [&] { return stop_.load() || Seq(state_.load(std::memory_order_acquire)) != last; };
    if (!SpinUntil(news)) {
      std::unique_lock<std::mutex> lock(mu_);
      sleepers_.fetch_add(1);  // seq_cst: Run reads it after opening the job
      wake_.wait(lock, news);
      sleepers_.fetch_sub(1);
    }
    if (stop_.load()) return;
    uint64_t s = state_.load(std::memory_order_acquire);
    last = Seq(s);
    // Join the job if it is still open.
    bool joined = false;
    while ((Seq(s) & 1) && Seq(s) == last) {
      if (state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel)) {
        joined = true;
        break;
      }
    }
    if (!joined) continue;
    DrainTasks(thread_index);
    const uint64_t before = state_.fetch_sub(1, std::memory_order_acq_rel);
    if ((before & kCountMask) == 1 && !(Seq(before) & 1)) {  // last to leave a closed job
      std::lock_guard<std::mutex> lock(mu_);
      done_.notify_one();
    }
  }
}

}  // namespace loom
