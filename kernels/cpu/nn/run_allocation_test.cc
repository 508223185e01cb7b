// Checks that the nn kernels' Run does not allocate: this file replaces the
// global operator new with a counting version (for the whole test binary; it
// only counts) and runs every kernel path after Prepare, with 1 and 2 threads.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "kernels/common/registry.h"
#include "kernels/common/thread_pool.h"
#include "kernels/cpu/testing/kernel_tester.h"

// The replacement operators pair malloc with free; GCC cannot see that the
// operators themselves are the replaced ones.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = std::malloc(size ? size : 1);
  if (!p) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace loom {
namespace nn {
namespace {

using testing::TestTensor;

struct Node {
  std::string op;
  Attributes attrs;
  std::vector<TestTensor> inputs;
  std::vector<TestTensor> outputs;
  int opset = 17;
};

// Prepares the node, then counts allocations over two Runs.
void ExpectRunDoesNotAllocate(const Node& node, int threads) {
  SCOPED_TRACE(node.op + " threads=" + std::to_string(threads));
  KernelSetup setup;
  setup.op = node.op;
  setup.opset = node.opset;
  setup.attrs = node.attrs;
  for (const TestTensor& t : node.inputs) setup.inputs.push_back(t.Info());
  std::vector<TestTensor> outs = node.outputs;
  for (const TestTensor& t : outs) setup.outputs.push_back(t.Info());
  // The first kernel that takes the node, as the builder chooses.
  std::unique_ptr<Kernel> kernel;
  Status st;
  for (const KernelDef* def : KernelRegistry::Global().FindByOp(node.op)) {
    kernel = def->create();
    st = kernel->Prepare(setup);
    if (st.ok()) break;
  }
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::vector<const void*> ins;
  for (const TestTensor& t : node.inputs) ins.push_back(t.present ? t.bytes.data() : nullptr);
  std::vector<void*> out_ptrs;
  for (TestTensor& t : outs) out_ptrs.push_back(t.bytes.data());
  StaticThreadPool pool(threads);
  std::vector<double> scratch(kernel->ScratchBytes(threads) / sizeof(double) + 16);
  KernelArgs args;
  args.inputs = ins.data();
  args.outputs = out_ptrs.data();
  args.num_inputs = ins.size();
  args.num_outputs = out_ptrs.size();
  args.scratch = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) / 64 * 64);
  args.pool = threads > 1 ? &pool : nullptr;
  ASSERT_TRUE(kernel->Run(args).ok());  // warm-up
  const long before = g_allocations.load();
  ASSERT_TRUE(kernel->Run(args).ok());
  ASSERT_TRUE(kernel->Run(args).ok());
  EXPECT_EQ(g_allocations.load() - before, 0);
}

std::vector<float> Ones(size_t n) { return std::vector<float>(n, 0.5f); }

TEST(RunAllocation, CounterSeesAllocations) {
  const long before = g_allocations.load();
  std::unique_ptr<std::vector<int>> v(new std::vector<int>(10));
  EXPECT_GE(g_allocations.load() - before, 2);
}

TEST(RunAllocation, NnKernelsDoNotAllocate) {
  std::vector<Node> nodes;
  auto conv = [&](Shape x, Shape w, std::vector<int64_t> pads, int64_t group, Shape y, bool const_w, DType dt) {
    Node n{"Conv", {}, {}, {}};
    n.attrs.SetInts("pads", pads);
    n.attrs.SetInt("group", group);
    n.attrs.SetString("loom.activation", "Relu");
    if (dt == DType::kFloat64) {
      n.inputs = {TestTensor::Of<double>(x, std::vector<double>(NumElements(x), 0.5)),
                  TestTensor::Of<double>(w, std::vector<double>(NumElements(w), 0.5), const_w)};
    } else {
      n.inputs = {TestTensor::Of<float>(x, Ones(NumElements(x))), TestTensor::Of<float>(w, Ones(NumElements(w)), const_w)};
    }
    n.outputs = {TestTensor::Empty(dt, y)};
    nodes.push_back(n);
  };
  conv({1, 8, 20, 20}, {16, 8, 3, 3}, {1, 1, 1, 1}, 1, {1, 16, 20, 20}, true, DType::kFloat32);   // im2col
  conv({1, 8, 20, 20}, {16, 8, 3, 3}, {1, 1, 1, 1}, 1, {1, 16, 20, 20}, false, DType::kFloat32);  // W at run time
  conv({1, 8, 20, 20}, {16, 8, 1, 1}, {0, 0, 0, 0}, 1, {1, 16, 20, 20}, true, DType::kFloat32);   // pointwise
  conv({1, 8, 20, 20}, {8, 1, 3, 3}, {1, 1, 1, 1}, 8, {1, 8, 20, 20}, true, DType::kFloat32);     // depthwise
  conv({1, 4, 6, 6}, {4, 4, 3, 3}, {0, 0, 0, 0}, 1, {1, 4, 4, 4}, false, DType::kFloat64);
  Node ct{"ConvTranspose", {}, {TestTensor::Of<float>({1, 4, 5, 5}, Ones(100)), TestTensor::Const<float>({4, 3, 3, 3}, Ones(108))},
          {TestTensor::Empty(DType::kFloat32, {1, 3, 7, 7})}};
  nodes.push_back(ct);
  nodes.push_back({"MatMul", {}, {TestTensor::Of<float>({2, 30, 40}, Ones(2400)), TestTensor::Of<float>({2, 40, 50}, Ones(4000))},
                   {TestTensor::Empty(DType::kFloat32, {2, 30, 50})}});
  nodes.push_back({"MatMul", {}, {TestTensor::Of<int64_t>({3, 4}, std::vector<int64_t>(12, 2)), TestTensor::Of<int64_t>({4, 5}, std::vector<int64_t>(20, 3))},
                   {TestTensor::Empty(DType::kInt64, {3, 5})}});
  Node gemm{"Gemm", {}, {TestTensor::Of<float>({20, 30}, Ones(600)), TestTensor::Const<float>({40, 30}, Ones(1200)),
                         TestTensor::Of<float>({20, 1}, Ones(20))},
            {TestTensor::Empty(DType::kFloat32, {20, 40})}};
  gemm.attrs.SetInt("transB", 1);
  nodes.push_back(gemm);
  Node maxpool{"MaxPool", {}, {TestTensor::Of<float>({1, 3, 9, 9}, Ones(243))},
               {TestTensor::Empty(DType::kFloat32, {1, 3, 4, 4}), TestTensor::Empty(DType::kInt64, {1, 3, 4, 4})}};
  maxpool.attrs.SetInts("kernel_shape", {3, 3});
  maxpool.attrs.SetInts("strides", {2, 2});
  nodes.push_back(maxpool);
  Node avg = maxpool;
  avg.op = "AveragePool";
  avg.outputs.pop_back();
  nodes.push_back(avg);
  nodes.push_back({"GlobalAveragePool", {}, {TestTensor::Of<float>({1, 3, 9, 9}, Ones(243))},
                   {TestTensor::Empty(DType::kFloat32, {1, 3, 1, 1})}});
  const auto p3 = TestTensor::Of<float>({3}, Ones(3));
  nodes.push_back({"BatchNormalization", {}, {TestTensor::Of<float>({1, 3, 4, 4}, Ones(48)), p3, p3, p3, p3},
                   {TestTensor::Empty(DType::kFloat32, {1, 3, 4, 4})}});
  nodes.push_back({"InstanceNormalization", {}, {TestTensor::Of<float>({1, 3, 4, 4}, Ones(48)), p3, p3},
                   {TestTensor::Empty(DType::kFloat32, {1, 3, 4, 4})}});
  nodes.push_back({"LayerNormalization", {}, {TestTensor::Of<float>({4, 3}, Ones(12)), p3, p3},
                   {TestTensor::Empty(DType::kFloat32, {4, 3}), TestTensor::Empty(DType::kFloat32, {4, 1}),
                    TestTensor::Empty(DType::kFloat32, {4, 1})}});
  Node lrn{"LRN", {}, {TestTensor::Of<float>({1, 3, 4, 4}, Ones(48))}, {TestTensor::Empty(DType::kFloat32, {1, 3, 4, 4})}};
  lrn.attrs.SetInt("size", 3);
  nodes.push_back(lrn);
  nodes.push_back({"MeanVarianceNormalization", {}, {TestTensor::Of<float>({1, 3, 4, 4}, Ones(48))},
                   {TestTensor::Empty(DType::kFloat32, {1, 3, 4, 4})}});
  Node resize{"Resize", {}, {TestTensor::Of<float>({1, 2, 4, 4}, Ones(32)), TestTensor::Absent(),
                             TestTensor::Of<float>({4}, {1, 1, 2, 1.5f})},
              {TestTensor::Empty(DType::kFloat32, {1, 2, 8, 6})}};
  resize.attrs.SetString("mode", "linear");
  nodes.push_back(resize);
  resize.attrs.SetString("mode", "nearest");
  nodes.push_back(resize);
  for (const Node& n : nodes)
    for (int threads : {1, 2}) ExpectRunDoesNotAllocate(n, threads);
}

}  // namespace
}  // namespace nn
}  // namespace loom
