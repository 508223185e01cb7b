// Elementwise activations on int8 tensors: Relu, Clip, Sigmoid, HardSigmoid,
// HardSwish. Each is a function of one int8 value, so Run is either a clamp
// or a lookup in a 256-entry table that Prepare builds.
//
// Relu and Clip: y = clamp(Rescale(x)) into requant::ActivationRange(Y, lo,
// hi) (Relu: lo = 0, hi = +inf). With equal X and Y parameters Rescale is the
// identity and Run is a plain clamp; otherwise the table holds
// requant::Rescale(q, MakeRescaleParams(X → Y, that range)).
// Clip's bounds are real values: constant scalar inputs 1 and 2 (opset >= 11)
// or the min/max attributes (opset < 11); absent = unbounded. A float32 bound
// input is the real value; an int8 one is dequantized with its own per-tensor
// parameters, or X's when it has none. Non-constant bounds are Unsupported;
// min > max gives max everywhere, like the float Clip.
//
// Sigmoid, HardSigmoid (alpha, beta) and HardSwish: THESE TABLES ARE THE
// DEFINITION OF THE INT8 OPS (the accelerator does not run them; any other
// implementation must reproduce them). For every q in [−128, 127]:
//   real = (double)x_scale · (q − x_zp)
//   f    = Sigmoid      1 / (1 + exp(−real))
//          HardSigmoid  max(0, min(1, alpha · real + beta))   (alpha, beta as double)
//          HardSwish    real · max(0, min(1, real / 6 + 0.5))
//   y    = clamp(y_zp + round(f / (double)y_scale), −128, 127), round half away
//          from zero (std::round), all in double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/int8/tensor_quant.h"

namespace loom {
namespace int8 {
namespace {

// The real value of constant scalar bound input i of a Clip (x: X's parameters).
Status ReadClipBound(const KernelSetup& s, size_t i, const ActQuant& x, float* out) {
  const TensorInfo& t = s.inputs[i];
  const char* name = i == 1 ? "min" : "max";
  if (t.num_elements() != 1)
    return s.Invalid(std::string("input ") + name + " has shape " + ShapeToString(t.shape) + ", expected a scalar");
  if (!t.const_data) return s.Unsupported(std::string("int8 Clip with a non-constant ") + name);
  if (t.dtype == DType::kFloat32) {
    *out = *static_cast<const float*>(t.const_data);
    return Status::Ok();
  }
  if (t.dtype != DType::kInt8)
    return s.Unsupported(std::string("int8 Clip with ") + name + " of dtype " + DTypeName(t.dtype));
  ActQuant q = x;
  if (!t.quant.empty()) RETURN_IF_ERROR(ReadActQuant(s, t, std::string("input ") + name, &q));
  const int32_t v = *static_cast<const int8_t*>(t.const_data);
  *out = static_cast<float>(static_cast<double>(q.scale) * (v - q.zero_point));
  return Status::Ok();
}

// Bounds [lo, hi] (real values) of a Relu or Clip node.
Status ReadBounds(const KernelSetup& s, const ActQuant& x, float* lo, float* hi) {
  const float inf = std::numeric_limits<float>::infinity();
  *lo = -inf;
  *hi = inf;
  if (s.op == "Relu") {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    *lo = 0.f;
    return Status::Ok();
  }
  if (s.opset < 11) {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    RETURN_IF_ERROR(ReadFloatAttr(s, "min", -inf, lo));
    RETURN_IF_ERROR(ReadFloatAttr(s, "max", inf, hi));
  } else {
    RETURN_IF_ERROR(CheckNode(s, 1, 3, 1, 1));
    if (s.HasInput(1)) RETURN_IF_ERROR(ReadClipBound(s, 1, x, lo));
    if (s.HasInput(2)) RETURN_IF_ERROR(ReadClipBound(s, 2, x, hi));
  }
  if (std::isnan(*lo) || std::isnan(*hi)) return s.Invalid("Clip bound is NaN");
  if (*lo > *hi) *lo = *hi;  // min(max(x, lo), hi) = hi everywhere
  return Status::Ok();
}

// f(real) of a table-defined activation (see the file comment).
double TableFunction(const std::string& op, double alpha, double beta, double real) {
  if (op == "Sigmoid") return 1.0 / (1.0 + std::exp(-real));
  if (op == "HardSigmoid") return std::max(0.0, std::min(1.0, alpha * real + beta));
  return real * std::max(0.0, std::min(1.0, real / 6.0 + 0.5));  // HardSwish
}

void Clamp(const int8_t* x, int8_t* y, int64_t n, int8_t lo, int8_t hi) {
  for (int64_t i = 0; i < n; ++i) y[i] = std::min(std::max(x[i], lo), hi);
}

class UnaryInt8Kernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    if (s.inputs.empty() || s.outputs.empty()) return s.Invalid("expects an input and an output");
    ActQuant x, y;
    RETURN_IF_ERROR(ReadActQuant(s, s.inputs[0], "input X", &x));
    RETURN_IF_ERROR(ReadActQuant(s, s.outputs[0], "output Y", &y));
    const Shape& shape = s.inputs[0].shape;
    if (s.op == "Relu" || s.op == "Clip") {
      float lo = 0.f, hi = 0.f;
      RETURN_IF_ERROR(ReadBounds(s, x, &lo, &hi));
      RETURN_IF_ERROR(CheckOutput(s, 0, DType::kInt8, shape));
      const requant::Range range = requant::ActivationRange(true, y.scale, y.zero_point, lo, hi);
      use_table_ = x != y;
      clamp_min_ = static_cast<int8_t>(range.min);
      clamp_max_ = static_cast<int8_t>(range.max);
      if (use_table_) RETURN_IF_ERROR(RequantStatus(s, MakeRescaleTable(x, y, range, &table_)));
    } else if (s.op == "Sigmoid" || s.op == "HardSigmoid" || s.op == "HardSwish") {
      RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
      RETURN_IF_ERROR(CheckOutput(s, 0, DType::kInt8, shape));
      float alpha = 0.2f, beta = 0.5f;
      if (s.op == "HardSigmoid") {
        RETURN_IF_ERROR(ReadFloatAttr(s, "alpha", 0.2f, &alpha));
        RETURN_IF_ERROR(ReadFloatAttr(s, "beta", 0.5f, &beta));
      }
      use_table_ = true;
      for (int q = -128; q <= 127; ++q) {
        const double real = static_cast<double>(x.scale) * (q - x.zero_point);
        const double f = TableFunction(s.op, alpha, beta, real);
        const double v = y.zero_point + std::round(f / static_cast<double>(y.scale));
        table_.v[q + 128] = static_cast<int8_t>(std::clamp(v, -128.0, 127.0));
      }
    } else {
      return s.Unsupported("op " + s.op + " (int8 activations)");
    }
    size_ = s.inputs[0].num_elements();
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    const int8_t* x = args.in<int8_t>(0);
    int8_t* y = args.out<int8_t>(0);
    ParallelFor(args.pool, size_, kElementwiseGrain, [&](int64_t begin, int64_t end, int) {
      if (use_table_) {
        LookupTable(table_, x + begin, y + begin, end - begin);
        return;
      }
      Clamp(x + begin, y + begin, end - begin, clamp_min_, clamp_max_);
    });
    return Status::Ok();
  }

 private:
  int64_t size_ = 0;
  bool use_table_ = false;
  Table table_{};
  int8_t clamp_min_ = -128, clamp_max_ = 127;
};

}  // namespace

std::unique_ptr<Kernel> MakeReluKernel() { return std::make_unique<UnaryInt8Kernel>(); }
std::unique_ptr<Kernel> MakeClipKernel() { return std::make_unique<UnaryInt8Kernel>(); }
std::unique_ptr<Kernel> MakeSigmoidKernel() { return std::make_unique<UnaryInt8Kernel>(); }
std::unique_ptr<Kernel> MakeHardSigmoidKernel() { return std::make_unique<UnaryInt8Kernel>(); }
std::unique_ptr<Kernel> MakeHardSwishKernel() { return std::make_unique<UnaryInt8Kernel>(); }

}  // namespace int8
}  // namespace loom
