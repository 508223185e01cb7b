// Cast (target dtype from attribute `to`) and CastLike (target dtype of the
// second input) between all numeric dtypes, bool, float16 and bfloat16.
//
// Conversions: float -> integer truncates toward zero and saturates at the
// target's range (NaN -> 0), so out-of-range values are defined; integer ->
// integer wraps; anything -> bool is `x != 0` (NaN -> true); float16 and
// bfloat16 go through float32 with round-to-nearest-even. Strings are not
// supported.
#include <cstring>
#include <memory>
#include <type_traits>

#include "common/float16.h"
#include "kernels/cpu/math/math_util.h"

namespace loom {
namespace math {
namespace {

// Storage types for the dtypes without an arithmetic C++ type.
struct Half {
  uint16_t bits;
};
struct BFloat {
  uint16_t bits;
};
struct Bool8 {
  uint8_t v;
};

template <typename S>
S Load(S x) {
  return x;
}
inline float Load(Half h) { return HalfToFloat(h.bits); }
inline float Load(BFloat b) { return BFloat16ToFloat(b.bits); }
inline uint8_t Load(Bool8 b) { return b.v != 0; }

template <typename D, typename V>
D Store(V v) {
  if constexpr (std::is_same_v<D, Half>) {
    return Half{FloatToHalf(static_cast<float>(v))};
  } else if constexpr (std::is_same_v<D, BFloat>) {
    return BFloat{FloatToBFloat16(static_cast<float>(v))};
  } else if constexpr (std::is_same_v<D, Bool8>) {
    return Bool8{static_cast<uint8_t>(v != V(0))};
  } else {
    return ConvertTo<D>(v);
  }
}

using CastLoop = void (*)(const void* x, void* y, int64_t n);

template <typename S, typename D>
void CastLoopImpl(const void* xv, void* yv, int64_t n) {
  const S* x = static_cast<const S*>(xv);
  D* y = static_cast<D*>(yv);
  for (int64_t i = 0; i < n; ++i) y[i] = Store<D>(Load(x[i]));
}

// Calls f(T{}) with the storage type of any castable dtype.
template <typename F>
bool VisitCastType(DType d, F&& f) {
  switch (d) {
    case DType::kFloat16:
      f(Half{});
      return true;
    case DType::kBFloat16:
      f(BFloat{});
      return true;
    case DType::kBool:
      f(Bool8{});
      return true;
    default:
      return VisitType<kNumericTypes>(d, f);
  }
}

class CastKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    DType to = DType::kUndefined;
    if (setup.op == "Cast") {
      RETURN_IF_ERROR(CheckNode(setup, 1, 1, 1, 1));
      const Attribute* a = setup.attrs.Find("to");
      if (!a || a->kind != Attribute::Kind::kInt) return setup.Invalid("missing int attribute 'to'");
      if (a->i < 0 || a->i > INT32_MAX || !IsKnownDType(static_cast<int32_t>(a->i))) {
        return setup.Invalid("attribute 'to' is " + std::to_string(a->i) + ", not a known dtype");
      }
      to = static_cast<DType>(a->i);
    } else if (setup.op == "CastLike") {
      RETURN_IF_ERROR(CheckNode(setup, 2, 2, 1, 1));
      to = setup.inputs[1].dtype;
    } else {
      return setup.Unsupported("op is not Cast or CastLike");
    }
    const TensorInfo& x = setup.inputs[0];
    loop_ = nullptr;
    VisitCastType(x.dtype, [&](auto src) {
      VisitCastType(to, [&](auto dst) { loop_ = &CastLoopImpl<decltype(src), decltype(dst)>; });
    });
    if (!loop_) {
      return setup.Unsupported(std::string("cast from ") + DTypeName(x.dtype) + " to " + DTypeName(to));
    }
    RETURN_IF_ERROR(CheckOutput(setup, 0, to, x.shape));
    same_type_ = x.dtype == to && to != DType::kBool;
    size_ = x.num_elements();
    in_elem_ = DTypeSize(x.dtype);
    out_elem_ = DTypeSize(to);
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    const auto* x = static_cast<const uint8_t*>(args.inputs[0]);
    auto* y = static_cast<uint8_t*>(args.outputs[0]);
    ParallelFor(args.pool, size_, kElementwiseGrain, [&](int64_t begin, int64_t end, int) {
      if (same_type_) {
        std::memcpy(y + begin * out_elem_, x + begin * in_elem_, static_cast<size_t>(end - begin) * in_elem_);
      } else {
        loop_(x + begin * in_elem_, y + begin * out_elem_, end - begin);
      }
    });
    return Status::Ok();
  }

  Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const override {
    if (!setup.HasInput(0)) return setup.Invalid("missing input");
    shapes->assign(1, setup.inputs[0].shape);
    return Status::Ok();
  }

 private:
  CastLoop loop_ = nullptr;
  bool same_type_ = false;
  int64_t size_ = 0;
  size_t in_elem_ = 0;
  size_t out_elem_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> NewCastKernel() { return std::make_unique<CastKernel>(); }

}  // namespace math
}  // namespace loom
