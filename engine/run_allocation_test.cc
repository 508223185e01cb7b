// Proves that ExecutionContext::Run does not allocate: this binary replaces
// the global operator new/delete with counting versions and asserts that no
// allocation happens across Run() calls after a warm-up run, with 1 and 2
// threads, on the test kernels, on real CPU kernels (when registered) and on
// any plan named by LOOM_ALLOC_TEST_PLAN.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "engine/testing/plan_writer.h"
#include "engine/testing/sample_plan.h"
#include "engine/testing/test_kernels.h"
#include "kernels/common/registry.h"
#include "loom/engine.h"

// The replacement operators pair malloc with free; GCC cannot see that the
// operators themselves are the replaced ones.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
std::atomic<long> g_allocations{0};

void* CountedAlloc(std::size_t size, std::size_t align) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (size == 0) size = 1;
  void* p = nullptr;
  if (align <= alignof(std::max_align_t)) {
    p = std::malloc(size);
  } else if (posix_memalign(&p, align, size) != 0) {
    p = nullptr;
  }
  return p;
}
}  // namespace

void* operator new(std::size_t size) {
  void* p = CountedAlloc(size, 0);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return CountedAlloc(size, 0); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return CountedAlloc(size, 0); }
void* operator new(std::size_t size, std::align_val_t al) {
  void* p = CountedAlloc(size, static_cast<std::size_t>(al));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t size, std::align_val_t al) { return operator new(size, al); }
void* operator new(std::size_t size, std::align_val_t al, const std::nothrow_t&) noexcept {
  return CountedAlloc(size, static_cast<std::size_t>(al));
}
void* operator new[](std::size_t size, std::align_val_t al, const std::nothrow_t&) noexcept {
  return CountedAlloc(size, static_cast<std::size_t>(al));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

namespace loom {
namespace {

// Allocations made by `runs` calls of ctx->Run() after one warm-up run.
long AllocationsDuringRuns(ExecutionContext* ctx, int runs) {
  EXPECT_TRUE(ctx->Run().ok());
  const long before = g_allocations.load();
  for (int i = 0; i < runs; ++i) {
    const Status s = ctx->Run();
    if (!s.ok()) ADD_FAILURE() << s.ToString();
  }
  return g_allocations.load() - before;
}

TEST(RunAllocationTest, CountingAllocatorSeesAllocations) {
  const long before = g_allocations.load();
  void* p = ::operator new(64);
  asm volatile("" : : "g"(p) : "memory");  // keep the pair from being elided
  ::operator delete(p);
  EXPECT_EQ(g_allocations.load() - before, 1);
}

class RunAllocation : public ::testing::TestWithParam<int> {};

TEST_P(RunAllocation, TestKernelsRunWithoutHeapAllocation) {
  const std::vector<uint8_t> plan = testing::SamplePlan();
  std::shared_ptr<const Engine> engine;
  ASSERT_TRUE(Engine::LoadFromBuffer(plan.data(), plan.size(), testing::TestKernelRegistry(), &engine).ok());
  std::unique_ptr<ExecutionContext> ctx;
  ASSERT_TRUE(engine->CreateContext({GetParam()}, &ctx).ok());
  std::vector<float> x(testing::kSampleSize, 1.5f), y(testing::kSampleSize);
  ASSERT_TRUE(ctx->SetInput("x", x.data(), x.size() * 4).ok());
  EXPECT_EQ(AllocationsDuringRuns(ctx.get(), 50), 0);
  // Rebinding between runs is allowed and still allocation free.
  ASSERT_TRUE(ctx->SetOutput("y", y.data(), y.size() * 4).ok());
  EXPECT_EQ(AllocationsDuringRuns(ctx.get(), 50), 0);
  EXPECT_EQ(y, testing::SampleExpectedY(x));
}

TEST_P(RunAllocation, RealCpuKernelsRunWithoutHeapAllocation) {
  const KernelRegistry& global = KernelRegistry::Global();
  if (global.FindById("cpu.Add") == nullptr || global.FindById("cpu.Relu") == nullptr)
    GTEST_SKIP() << "cpu.Add or cpu.Relu not registered yet";
  testing::PlanWriter w;
  const Shape shape = {4, 1024};
  const int x = w.Activation("x", DType::kFloat32, shape);
  const int c = w.Constant<float>("c", shape, std::vector<float>(4096, -0.5f));
  const int s = w.Activation("s", DType::kFloat32, shape);
  const int y = w.Activation("y", DType::kFloat32, shape);
  w.Input(x);
  w.AddNode("add", "Add", "cpu.Add", {x, c}, {s});
  w.AddNode("relu", "Relu", "cpu.Relu", {s}, {y});
  w.Output(y);
  const std::vector<uint8_t> plan = w.Finish();
  std::shared_ptr<const Engine> engine;
  const Status st = Engine::LoadFromBuffer(plan.data(), plan.size(), &engine);
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::unique_ptr<ExecutionContext> ctx;
  ASSERT_TRUE(engine->CreateContext({GetParam()}, &ctx).ok());
  std::vector<float> in(4096, 1.f);
  ASSERT_TRUE(ctx->SetInput("x", in.data(), in.size() * 4).ok());
  EXPECT_EQ(AllocationsDuringRuns(ctx.get(), 20), 0);
  EXPECT_EQ(static_cast<const float*>(ctx->OutputData("y"))[4095], 0.5f);
}

// Any plan (e.g. one built from a model zoo network) given by the
// environment variable LOOM_ALLOC_TEST_PLAN, on zero-filled inputs.
TEST_P(RunAllocation, PlanFromEnvironmentRunsWithoutHeapAllocation) {
  const char* path = std::getenv("LOOM_ALLOC_TEST_PLAN");
  if (path == nullptr || *path == '\0') GTEST_SKIP() << "set LOOM_ALLOC_TEST_PLAN to a plan file";
  std::shared_ptr<const Engine> engine;
  const Status st = Engine::Load(path, &engine);
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::unique_ptr<ExecutionContext> ctx;
  ASSERT_TRUE(engine->CreateContext({GetParam()}, &ctx).ok());
  std::vector<std::vector<uint64_t>> inputs;
  for (const TensorDesc& d : engine->inputs()) {
    inputs.emplace_back(d.size_bytes / 8 + 1, 0);
    ASSERT_TRUE(ctx->SetInput(d.name, inputs.back().data(), d.size_bytes).ok());
  }
  EXPECT_EQ(AllocationsDuringRuns(ctx.get(), 3), 0);
}

INSTANTIATE_TEST_SUITE_P(Threads, RunAllocation, ::testing::Values(1, 2));

}  // namespace
}  // namespace loom

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
