// MeanVarianceNormalization: y = (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9)
// with the expectations taken over `axes` (default [0, 2, 3]), as the ONNX
// function body defines it. The variance is computed as the mean squared
// deviation (the same quantity, without cancellation). Elements are grouped
// by their index over the kept axes; two passes with per-group sums in
// scratch.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"

namespace loom {
namespace nn {
namespace {

class MvnKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    if (setup.inputs.size() != 1 || !setup.HasInput(0)) return setup.Invalid("expects 1 input");
    const TensorInfo& x = setup.inputs[0];
    dtype_ = x.dtype;
    if (dtype_ != DType::kFloat32 && dtype_ != DType::kFloat64)
      return setup.Unsupported(std::string("dtype ") + DTypeName(dtype_));
    std::vector<int64_t> axes;
    bool has_axes = false;
    RETURN_IF_ERROR(ReadIntsAttr(setup, "axes", &axes, &has_axes));
    if (!has_axes) axes = {0, 2, 3};
    const int rank = x.rank();
    if (rank > kMaxRank)
      return setup.Unsupported("rank " + std::to_string(rank) + " above " + std::to_string(kMaxRank));
    std::vector<bool> reduced(rank, false);
    for (int64_t a : axes) {
      if (a < -rank || a >= rank)
        return setup.Invalid("axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank));
      const int64_t n = a < 0 ? a + rank : a;
      if (reduced[n]) return setup.Invalid("axis " + std::to_string(a) + " repeated");
      reduced[n] = true;
    }
    shape_ = x.shape;
    group_stride_.assign(rank, 0);
    groups_ = 1;
    for (int i = rank; i-- > 0;) {
      if (reduced[i]) continue;
      group_stride_[i] = groups_;
      groups_ *= x.shape[i];
    }
    const int64_t n = x.num_elements();
    group_size_ = groups_ ? n / std::max<int64_t>(1, groups_) : 0;
    if (setup.outputs.size() != 1) return setup.Invalid("expects 1 output");
    return CheckOutput(setup, 0, dtype_, x.shape);
  }

  size_t ScratchBytes(int) const override { return 2 * static_cast<size_t>(groups_) * sizeof(double); }

  Status Run(const KernelArgs& args) const override {
    if (dtype_ == DType::kFloat64) {
      RunTyped<double>(args);
    } else {
      RunTyped<float>(args);
    }
    return Status::Ok();
  }

 private:
  // Calls fn(element_index, group) over all elements in row-major order.
  template <typename Fn>
  void ForEach(Fn fn) const {
    const int rank = static_cast<int>(shape_.size());
    const int64_t n = NumElements(shape_);
    int64_t idx[16] = {0};
    int64_t group = 0;
    for (int64_t e = 0; e < n; ++e) {
      fn(e, group);
      for (int i = rank; i-- > 0;) {
        group += group_stride_[i];
        if (++idx[i] < shape_[i]) break;
        group -= group_stride_[i] * shape_[i];
        idx[i] = 0;
      }
    }
  }

  template <typename T>
  void RunTyped(const KernelArgs& args) const {
    const T* x = args.in<T>(0);
    T* y = args.out<T>(0);
    double* mean = static_cast<double*>(args.scratch);
    double* sq = mean + groups_;
    for (int64_t g = 0; g < groups_; ++g) mean[g] = sq[g] = 0;
    ForEach([&](int64_t e, int64_t g) { mean[g] += x[e]; });
    for (int64_t g = 0; g < groups_; ++g) mean[g] /= static_cast<double>(group_size_);
    ForEach([&](int64_t e, int64_t g) {
      const double d = x[e] - mean[g];
      sq[g] += d * d;
    });
    for (int64_t g = 0; g < groups_; ++g) sq[g] = std::sqrt(sq[g] / static_cast<double>(group_size_)) + 1e-9;
    ForEach([&](int64_t e, int64_t g) { y[e] = static_cast<T>((x[e] - mean[g]) / sq[g]); });
  }

  DType dtype_ = DType::kFloat32;
  Shape shape_;
  std::vector<int64_t> group_stride_;
  int64_t groups_ = 1, group_size_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeMeanVarianceNormalizationKernel() { return std::make_unique<MvnKernel>(); }

}  // namespace nn
}  // namespace loom
