// Test harness for one kernel: wraps test tensors into a KernelSetup, runs
// Prepare and Run through the global registry, and hands back the outputs.
//
//   auto x = TestTensor::Of<float>({2, 3}, {...});
//   std::vector<TestTensor> outs = {TestTensor::Empty(DType::kFloat32, {2, 3})};
//   ASSERT_TRUE(RunKernel("Relu", {}, {x}, &outs).ok());
//   EXPECT_EQ(outs[0].As<float>(), expected);
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/status.h"
#include "common/attributes.h"
#include "kernels/common/kernel.h"

namespace loom {
namespace testing {

struct TestTensor {
  bool present = true;
  bool constant = false;  // exposed to Prepare as const_data
  DType dtype = DType::kUndefined;
  Shape shape;
  std::vector<uint8_t> bytes;
  QuantParams quant;  // for int8 tensors: exposed to Prepare as TensorInfo::quant
  Layout layout = Layout::kRowMajor;  // bytes must match it (e.g. padded NHWC)

  template <typename T>
  static TestTensor Of(Shape shape, const std::vector<T>& values, bool constant = false) {
    TestTensor t;
    t.dtype = DTypeOf<T>::value;
    t.shape = std::move(shape);
    t.constant = constant;
    t.bytes.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    return t;
  }
  // bool has no contiguous std::vector<bool>: pass 0/1 bytes.
  static TestTensor Bools(Shape shape, const std::vector<uint8_t>& values, bool constant = false);
  template <typename T> static TestTensor Const(Shape shape, const std::vector<T>& values) {
    return Of<T>(std::move(shape), values, true);
  }
  // An output placeholder: dtype and shape, zero-filled storage.
  static TestTensor Empty(DType dtype, Shape shape);
  static TestTensor Absent();

  template <typename T> std::vector<T> As() const {
    std::vector<T> v(bytes.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
    return v;
  }
  TensorInfo Info() const;
  // This tensor with quantization parameters (per tensor, or per channel
  // along `axis` when `scale` has more than one entry).
  TestTensor WithQuant(std::vector<float> scale, std::vector<int64_t> zero_point, int axis = 0) const;
};

struct RunOptions {
  int opset = 17;
  int threads = 1;
  std::string domain;
  std::string kernel_id;  // empty: first registered kernel for the op that prepares
  std::vector<DerivedConstant> derived;  // offered to Prepare (KernelSetup::derived)
};

// The KernelSetup RunKernel prepares `op`'s kernel with: the inputs' Info(),
// the outputs' dtype, shape and quantization (none constant).
KernelSetup MakeKernelSetup(const std::string& op, const Attributes& attrs, const std::vector<TestTensor>& inputs,
                            const std::vector<TestTensor>& outputs, const RunOptions& options = {});

// Prepares and runs `op`. `outputs` must carry dtype and shape; their bytes are
// (re)filled. Returns the first failing Status of lookup, Prepare or Run.
Status RunKernel(const std::string& op, const Attributes& attrs, const std::vector<TestTensor>& inputs,
                 std::vector<TestTensor>* outputs, const RunOptions& options = {});

// Calls the kernel's InferOutputShapes (Prepare is not called).
Status InferShapes(const std::string& op, const Attributes& attrs, const std::vector<TestTensor>& inputs,
                   const std::vector<DType>& output_dtypes, std::vector<Shape>* shapes,
                   const RunOptions& options = {});

// Max |a - b| over two float vectors of equal size (infinity if sizes differ).
double MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace testing
}  // namespace loom
