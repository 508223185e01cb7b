// Test helpers for the int8 elementwise, pooling and data-movement kernels:
// random int8 tensors with per-tensor parameters, naive broadcasting, and
// running one op through its int8 kernel ("cpu.<Op>.int8") so that a refusal
// shows instead of falling through to a float kernel.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/int8/gemm_s8.h"
#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace int8 {
namespace test {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

inline std::vector<int8_t> RandomInt8(int64_t n, std::mt19937* gen) {
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<int8_t> v(static_cast<size_t>(n));
  for (int8_t& x : v) x = static_cast<int8_t>(dist(*gen));
  return v;
}

// An int8 tensor with per-tensor parameters.
inline TestTensor Q(Shape shape, const std::vector<int8_t>& v, float scale, int64_t zero_point,
                    bool constant = false) {
  return TestTensor::Of<int8_t>(std::move(shape), v, constant).WithQuant({scale}, {zero_point});
}

// A random int8 tensor with per-tensor parameters.
inline TestTensor RandomQ(Shape shape, float scale, int64_t zero_point, std::mt19937* gen) {
  const int64_t n = NumElements(shape);
  return Q(std::move(shape), RandomInt8(n, gen), scale, zero_point);
}

// An int8 output placeholder with per-tensor parameters.
inline TestTensor QOut(Shape shape, float scale, int64_t zero_point) {
  return TestTensor::Empty(DType::kInt8, std::move(shape)).WithQuant({scale}, {zero_point});
}

// Options that pick the int8 kernel of `op`.
inline RunOptions Int8Kernel(const std::string& op, int opset = 17, int threads = 1) {
  RunOptions o;
  o.kernel_id = "cpu." + op + ".int8";
  o.opset = opset;
  o.threads = threads;
  return o;
}

// Runs `op`'s int8 kernel with one int8 output of `out_shape` and parameters
// (scale, zero_point); its values go to *y.
inline Status RunInt8(const std::string& op, const Attributes& attrs, const std::vector<TestTensor>& inputs,
                      const Shape& out_shape, float scale, int64_t zero_point, std::vector<int8_t>* y,
                      int opset = 17, int threads = 1) {
  std::vector<TestTensor> outs = {QOut(out_shape, scale, zero_point)};
  Status s = RunKernel(op, attrs, inputs, &outs, Int8Kernel(op, opset, threads));
  *y = outs[0].As<int8_t>();
  return s;
}

// The flat index into a tensor of `in` shape that numpy broadcasting reads
// for flat output index `flat` of `out` shape.
inline int64_t BroadcastSource(const Shape& out, const Shape& in, int64_t flat) {
  int64_t index = 0, stride = 1;
  for (size_t k = 0; k < out.size(); ++k) {
    const size_t d = out.size() - 1 - k;
    const int64_t coord = flat % out[d];
    flat /= out[d];
    if (k < in.size()) {
      const size_t di = in.size() - 1 - k;
      if (in[di] != 1) index += coord * stride;
      stride *= in[di];
    }
  }
  return index;
}

// Random per-tensor parameters: scale in [0.002, 0.2), zero point in [-128, 127].
inline float RandomScale(std::mt19937* gen) {
  return std::uniform_real_distribution<float>(0.002f, 0.2f)(*gen);
}
inline int64_t RandomZeroPoint(std::mt19937* gen) { return std::uniform_int_distribution<int>(-128, 127)(*gen); }

// Runs f(path name) once per int8 code path this CPU has: the portable one,
// then the AVX2 one (UseInt8Avx2) where available; the selection is restored.
template <typename F>
void ForEachInt8Path(F f) {
  const GemmS8Impl saved = ActiveGemmS8Impl();
  SetGemmS8Impl(GemmS8Impl::kPortable);
  f("portable");
  if (SetGemmS8Impl(GemmS8Impl::kAvx2)) f("avx2");
  SetGemmS8Impl(saved);
}

// An int8 tensor of random values in which about one value in eight is -128
// and one in eight 127.
inline TestTensor RandomQWithExtremes(Shape shape, float scale, int64_t zero_point, std::mt19937* gen) {
  std::vector<int8_t> v = RandomInt8(NumElements(shape), gen);
  std::uniform_int_distribution<int> pick(0, 7);
  for (int8_t& x : v) {
    const int p = pick(*gen);
    if (p == 0) x = -128;
    if (p == 1) x = 127;
  }
  return Q(std::move(shape), v, scale, zero_point);
}

}  // namespace test
}  // namespace int8
}  // namespace loom
