// Unique: the distinct elements (no axis; input flattened) or distinct slices
// along `axis`, with four outputs: Y, indices of first occurrences,
// inverse_indices and counts. sorted=1 orders Y ascending (slices
// lexicographically), sorted=0 by first occurrence. NaNs compare equal and
// above every number.
//
// Algorithm, in scratch memory (5 int64 per item, no allocation in Run): sort
// item ids by (value, id) so each group of equal items starts with its first
// occurrence; walk the groups; for sorted=0 order the groups by first
// occurrence. The plan fixes the number of unique items, so Run checks it
// before writing.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

template <typename T>
inline int CompareValues(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  }
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Items are slices k of a [outer, m, inner] view, compared lexicographically.
template <typename T>
struct ItemView {
  const T* data;
  int64_t outer, m, inner;
  int Compare(int64_t a, int64_t b) const {
    for (int64_t o = 0; o < outer; ++o) {
      const T* pa = data + (o * m + a) * inner;
      const T* pb = data + (o * m + b) * inner;
      for (int64_t i = 0; i < inner; ++i) {
        const int c = CompareValues(pa[i], pb[i]);
        if (c != 0) return c;
      }
    }
    return 0;
  }
};

struct UniqueOutputs {
  void* y = nullptr;
  int64_t* indices = nullptr;
  int64_t* inverse = nullptr;
  int64_t* counts = nullptr;
};

// Returns the number of unique items; writes the outputs when `outs` is set
// and the count equals `expected`.
template <typename T>
int64_t RunUnique(const ItemView<T>& v, bool sorted, int64_t* scratch, int64_t expected, const UniqueOutputs* outs) {
  const int64_t m = v.m;
  int64_t* perm = scratch;
  int64_t* first = perm + m;   // per group, in sorted order
  int64_t* count = first + m;  // per group
  int64_t* order = count + m;  // output position -> group
  int64_t* pos = order + m;    // group -> output position
  for (int64_t i = 0; i < m; ++i) perm[i] = i;
  std::sort(perm, perm + m, [&](int64_t a, int64_t b) {
    const int c = v.Compare(a, b);
    return c != 0 ? c < 0 : a < b;
  });
  int64_t groups = 0;
  for (int64_t i = 0; i < m; ++i) {
    if (i == 0 || v.Compare(perm[i - 1], perm[i]) != 0) {
      first[groups] = perm[i];
      count[groups] = 0;
      ++groups;
    }
    ++count[groups - 1];
  }
  if (!outs || groups != expected) return groups;
  for (int64_t g = 0; g < groups; ++g) order[g] = g;
  if (!sorted) std::sort(order, order + groups, [&](int64_t a, int64_t b) { return first[a] < first[b]; });
  for (int64_t p = 0; p < groups; ++p) pos[order[p]] = p;
  // Y: slice first[order[p]] of each outer block.
  T* y = static_cast<T*>(outs->y);
  for (int64_t o = 0; o < v.outer; ++o) {
    for (int64_t p = 0; p < groups; ++p) {
      std::memcpy(y + (o * groups + p) * v.inner, v.data + (o * m + first[order[p]]) * v.inner,
                  static_cast<size_t>(v.inner) * sizeof(T));
    }
  }
  for (int64_t p = 0; p < groups; ++p) {
    if (outs->indices) outs->indices[p] = first[order[p]];
    if (outs->counts) outs->counts[p] = count[order[p]];
  }
  if (outs->inverse) {
    int64_t g = -1;
    for (int64_t i = 0; i < m; ++i) {
      if (i == 0 || v.Compare(perm[i - 1], perm[i]) != 0) ++g;
      outs->inverse[perm[i]] = pos[g];
    }
  }
  return groups;
}

constexpr int64_t kScratchPerItem = 5;

class UniqueKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(ReadNode(s));
    const TensorInfo& x = s.inputs[0];
    int64_t u = -1;
    if (x.const_data) {
      u = Count(x.const_data);
    } else if (s.outputs[0].rank() == static_cast<int>(OutShape(x.shape, 0).size())) {
      u = s.outputs[0].shape[static_cast<size_t>(has_axis_ ? axis_ : 0)];
    }
    std::vector<Shape> shapes = Shapes(x.shape, u);
    for (size_t i = 0; i < s.outputs.size(); ++i) {
      if (!s.outputs[i].present) continue;
      RETURN_IF_ERROR(CheckOutput(s, i, i == 0 ? dtype_ : DType::kInt64, shapes[i]));
    }
    unique_ = u;
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    UniqueKernel k;
    RETURN_IF_ERROR(k.ReadNode(s));
    if (!s.inputs[0].const_data) return s.Unsupported("Unique of non-constant data");
    *shapes = k.Shapes(s.inputs[0].shape, k.Count(s.inputs[0].const_data));
    shapes->resize(s.outputs.size());
    return Status::Ok();
  }
  size_t ScratchBytes(int) const override { return static_cast<size_t>(kScratchPerItem * m_) * sizeof(int64_t); }
  Status Run(const KernelArgs& args) const override {
    UniqueOutputs outs;
    outs.y = args.outputs[0];
    if (args.num_outputs > 1) outs.indices = static_cast<int64_t*>(args.outputs[1]);
    if (args.num_outputs > 2) outs.inverse = static_cast<int64_t*>(args.outputs[2]);
    if (args.num_outputs > 3) outs.counts = static_cast<int64_t*>(args.outputs[3]);
    const int64_t u = Dispatch(args.inputs[0], static_cast<int64_t*>(args.scratch), &outs);
    if (u != unique_)
      return Status::InvalidArgument("data has " + std::to_string(u) + " unique entries, the plan expects " +
                                     std::to_string(unique_));
    return Status::Ok();
  }

 private:
  Status ReadNode(const KernelSetup& s) {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 4));
    const TensorInfo& x = s.inputs[0];
    dtype_ = x.dtype;
    if (!IsNumericDType(dtype_) && dtype_ != DType::kBool)
      return s.Unsupported(std::string("dtype ") + DTypeName(dtype_));
    int64_t sorted = 1;
    RETURN_IF_ERROR(ReadIntAttr(s, "sorted", 1, &sorted));
    sorted_ = sorted != 0;
    has_axis_ = s.attrs.Has("axis");
    if (has_axis_) {
      if (x.rank() == 0) return s.Invalid("attribute 'axis' given for a scalar input");
      RETURN_IF_ERROR(ReadAxisAttr(s, "axis", 0, x.rank(), &axis_));
      outer_ = DimProduct(x.shape, 0, static_cast<size_t>(axis_));
      m_ = x.shape[static_cast<size_t>(axis_)];
      inner_ = DimProduct(x.shape, static_cast<size_t>(axis_) + 1, x.shape.size());
    } else {
      outer_ = 1;
      m_ = x.num_elements();
      inner_ = 1;
    }
    return Status::Ok();
  }
  Shape OutShape(const Shape& in, int64_t u) const {
    if (!has_axis_) return {u};
    Shape out = in;
    out[static_cast<size_t>(axis_)] = u;
    return out;
  }
  std::vector<Shape> Shapes(const Shape& in, int64_t u) const { return {OutShape(in, u), {u}, {m_}, {u}}; }
  int64_t Count(const void* data) const {
    std::vector<int64_t> scratch(static_cast<size_t>(kScratchPerItem * m_));
    return Dispatch(data, scratch.data(), nullptr);
  }
  int64_t Dispatch(const void* data, int64_t* scratch, const UniqueOutputs* outs) const {
    int64_t u = 0;
    auto run = [&](auto tag) {
      using T = typename decltype(tag)::type;
      ItemView<T> v{static_cast<const T*>(data), outer_, m_, inner_};
      u = RunUnique<T>(v, sorted_, scratch, unique_, outs);
    };
    if (dtype_ == DType::kBool) {
      run(TypeTag<uint8_t>{});
    } else {
      DispatchNumeric(dtype_, run);
    }
    return u;
  }

  DType dtype_ = DType::kFloat32;
  bool sorted_ = true;
  bool has_axis_ = false;
  int axis_ = 0;
  int64_t outer_ = 1, m_ = 0, inner_ = 1;
  int64_t unique_ = -1;
};

}  // namespace

std::unique_ptr<Kernel> MakeUniqueKernel() { return std::make_unique<UniqueKernel>(); }

}  // namespace tensor
}  // namespace loom
