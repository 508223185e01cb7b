// TopK: the k largest (or smallest) entries along `axis`, with their int64
// indices. Ordering is deterministic: ties keep the lower index first, and NaN
// counts as larger than every number. Results are always sorted (allowed for
// sorted=0, where the order is unspecified). K comes from the attribute before
// opset 10 and from the K input after; a runtime K must match the planned
// output shape. Each thread sorts index arrays in its own scratch slice.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

// Strict weak orders with NaN above every number.
template <typename T>
inline bool Greater(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return !std::isnan(b);
    if (std::isnan(b)) return false;
  }
  return a > b;
}
template <typename T>
inline bool Less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

class TopKKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    int64_t k = -1;
    RETURN_IF_ERROR(Plan(s, &axis_, &k));
    const TensorInfo& x = s.inputs[0];
    n_ = x.shape[static_cast<size_t>(axis_)];
    if (k < 0) {  // runtime K: take it from the planned output
      const TensorInfo& o = s.outputs[0];
      if (o.rank() != x.rank())
        return s.Invalid("output 0 has shape " + ShapeToString(o.shape) + ", expected rank " +
                         std::to_string(x.rank()));
      k = o.shape[static_cast<size_t>(axis_)];
      if (k > n_)
        return s.Invalid("output 0 has " + std::to_string(k) + " entries on axis, input has " + std::to_string(n_));
      k_runtime_ = true;
      k_dtype_ = s.inputs[1].dtype;
    }
    k_ = k;
    Shape out = x.shape;
    out[static_cast<size_t>(axis_)] = k;
    RETURN_IF_ERROR(CheckOutput(s, 0, x.dtype, out));
    RETURN_IF_ERROR(CheckOutput(s, 1, DType::kInt64, out));
    int64_t largest = 1;
    RETURN_IF_ERROR(ReadIntAttr(s, "largest", 1, &largest));
    largest_ = largest != 0;
    outer_ = DimProduct(x.shape, 0, static_cast<size_t>(axis_));
    inner_ = DimProduct(x.shape, static_cast<size_t>(axis_) + 1, x.shape.size());
    dtype_ = x.dtype;
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    int axis = 0;
    int64_t k = -1;
    RETURN_IF_ERROR(Plan(s, &axis, &k));
    if (k < 0) return s.Unsupported("TopK with a non-constant 'K' input");
    Shape out = s.inputs[0].shape;
    out[static_cast<size_t>(axis)] = k;
    *shapes = {out, out};
    return Status::Ok();
  }
  size_t ScratchBytes(int num_threads) const override {
    return static_cast<size_t>(num_threads) * static_cast<size_t>(n_) * 2 * sizeof(int64_t);
  }
  Status Run(const KernelArgs& args) const override {
    if (k_runtime_) {
      const int64_t k = LoadIndex(args.inputs[1], k_dtype_, 0);
      if (k != k_)
        return Status::InvalidArgument("runtime K = " + std::to_string(k) + " contradicts the planned " +
                                       std::to_string(k_));
    }
    if (k_ == 0 || outer_ * inner_ == 0) return Status::Ok();
    DispatchNumeric(dtype_, [&](auto tag) { RunTyped<typename decltype(tag)::type>(args); });
    return Status::Ok();
  }

 private:
  template <typename T>
  void RunTyped(const KernelArgs& args) const {
    const T* x = static_cast<const T*>(args.inputs[0]);
    T* values = static_cast<T*>(args.outputs[0]);
    int64_t* indices = static_cast<int64_t*>(args.outputs[1]);
    const int64_t n = n_, k = k_, inner = inner_;
    const bool largest = largest_;
    ParallelFor(args.pool, outer_ * inner_, n >= 1024 ? 1 : 1024 / n, [&](int64_t begin, int64_t end, int thread) {
      int64_t* order = static_cast<int64_t*>(args.scratch) + static_cast<int64_t>(thread) * 2 * n;
      T* line = reinterpret_cast<T*>(order + n);
      for (int64_t l = begin; l < end; ++l) {
        const int64_t o = l / inner, i = l % inner;
        const T* src = x + o * n * inner + i;
        for (int64_t j = 0; j < n; ++j) {
          line[j] = src[j * inner];
          order[j] = j;
        }
        auto before = [&](int64_t a, int64_t b) {
          const T va = line[a], vb = line[b];
          if (largest ? Greater(va, vb) : Less(va, vb)) return true;
          if (largest ? Greater(vb, va) : Less(vb, va)) return false;
          return a < b;
        };
        if (k < n) {
          std::partial_sort(order, order + k, order + n, before);
        } else {
          std::sort(order, order + n, before);
        }
        T* vout = values + o * k * inner + i;
        int64_t* iout = indices + o * k * inner + i;
        for (int64_t j = 0; j < k; ++j) {
          vout[j * inner] = line[order[j]];
          iout[j * inner] = order[j];
        }
      }
    });
  }

  // k = -1 when K is a runtime input.
  static Status Plan(const KernelSetup& s, int* axis, int64_t* k) {
    const bool attr_form = s.opset < 10;
    RETURN_IF_ERROR(CheckNode(s, attr_form ? 1 : 2, attr_form ? 1 : 2, 2, 2));
    const TensorInfo& x = s.inputs[0];
    if (!IsNumericDType(x.dtype)) return s.Unsupported(std::string("dtype ") + DTypeName(x.dtype));
    if (x.rank() == 0) return s.Invalid("input is a scalar; TopK needs rank >= 1");
    RETURN_IF_ERROR(ReadAxisAttr(s, "axis", -1, x.rank(), axis));
    const int64_t n = x.shape[static_cast<size_t>(*axis)];
    *k = -1;
    if (attr_form) {
      if (!s.attrs.Has("k")) return s.Invalid("attribute 'k' is required before opset 10");
      RETURN_IF_ERROR(ReadIntAttr(s, "k", 0, k));
    } else {
      RETURN_IF_ERROR(CheckIndexDType(s, 1, "K"));
      if (s.inputs[1].num_elements() != 1 || s.inputs[1].rank() > 1)
        return s.Invalid("input 'K' has shape " + ShapeToString(s.inputs[1].shape) + ", expected 1");
      if (!s.inputs[1].const_data) return Status::Ok();
      *k = LoadIndex(s.inputs[1].const_data, s.inputs[1].dtype, 0);
    }
    if (*k < 0 || *k > n)
      return s.Invalid("K = " + std::to_string(*k) + " out of range [0, " + std::to_string(n) + "]");
    return Status::Ok();
  }

  int axis_ = 0;
  int64_t n_ = 0, k_ = 0, outer_ = 0, inner_ = 0;
  bool k_runtime_ = false;
  DType k_dtype_ = DType::kInt64;
  bool largest_ = true;
  DType dtype_ = DType::kFloat32;
};

}  // namespace

std::unique_ptr<Kernel> MakeTopKKernel() { return std::make_unique<TopKKernel>(); }

}  // namespace tensor
}  // namespace loom
