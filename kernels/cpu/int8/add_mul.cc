// Add and Mul of int8 tensors with multidirectional (numpy) broadcasting.
//
//   Add  y = requant::RequantizeAdd(qa, qb): each input minus its zero point,
//        shifted left by kAddLeftShift and scaled to half the larger input
//        scale, summed, then requantized to the output. An input's scaled
//        term depends on its own value only, so Prepare tabulates both terms
//        (256 int32 each, computed with MultiplyByQuantizedMultiplier exactly
//        as RequantizeAdd does): an element costs one Requantize.
//   Mul  y = requant::Requantize((qa − a_zp) · (qb − b_zp), stage), the stage
//        MakeOutputStage(a_scale, b_scale, y_scale, y_zp, range): the product
//        of the input scales over the output scale. Either operand may be a
//        constant (an int8 initializer with per-tensor parameters).
//
// A fused Relu or Clip (loom.activation) narrows the output range; other
// fused activations are Unsupported. The broadcast plan (math/broadcast.h)
// walks the output in runs in which each input is either contiguous (same
// shapes: one run) or a single value (a scalar, or a per-channel operand
// against a spatial plane). Requantize is scalar integer code with
// data-dependent rounding, so for outputs of kPairTableMin elements or more
// Prepare tabulates the op for all 256 × 256 input pairs (64 KiB, made with
// the functions above, hence the same integers) and Run is one lookup per
// element; smaller outputs compute each element. On AVX2 CPUs runs in which
// both inputs are contiguous (same shapes) evaluate requantize.h's
// arithmetic in vector lanes instead (add_mul_avx2.h), 32 elements a step.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/int8/add_mul_avx2.h"
#include "kernels/cpu/int8/gemm_s8.h"
#include "kernels/cpu/int8/tensor_quant.h"
#include "kernels/cpu/math/broadcast.h"

namespace loom {
namespace int8 {
namespace {

// Outputs at least this large run through the pair table.
constexpr int64_t kPairTableMin = 8192;

struct AddOp {
  int32_t a_term[256];  // by qa + 128: MultiplyByQuantizedMultiplier((qa − a_zp) << kAddLeftShift, a)
  int32_t b_term[256];
  requant::OutputStage output;
  int32_t operator()(int32_t qa, int32_t qb) const {
    return requant::Requantize(a_term[qa + 128] + b_term[qb + 128], output);
  }
};

struct MulOp {
  int32_t a_zero_point = 0, b_zero_point = 0;
  requant::OutputStage stage;
  int32_t operator()(int32_t qa, int32_t qb) const {
    return requant::Requantize((qa - a_zero_point) * (qb - b_zero_point), stage);
  }
};

// AddOp or MulOp tabulated for every pair of inputs.
struct PairTableOp {
  const int8_t* v;  // [qa + 128][qb + 128]
  int32_t operator()(int32_t qa, int32_t qb) const { return v[(qa + 128) * 256 + (qb + 128)]; }
};

// y[i] = op(a[i], b[i]) over one run; an input whose step is 0 stays on its element 0.
template <typename Op>
void RunSpan(const Op& op, const int8_t* a, int step_a, const int8_t* b, int step_b, int8_t* y, int64_t n) {
  if (step_a && step_b) {
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<int8_t>(op(a[i], b[i]));
  } else if (step_a) {
    const int32_t s = b[0];
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<int8_t>(op(a[i], s));
  } else if (step_b) {
    const int32_t s = a[0];
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<int8_t>(op(s, b[i]));
  } else {
    const int8_t v = static_cast<int8_t>(op(a[0], b[0]));
    for (int64_t i = 0; i < n; ++i) y[i] = v;
  }
}

class BinaryInt8Kernel final : public Kernel {
 public:
  explicit BinaryInt8Kernel(bool mul) : mul_(mul) {}

  Status Prepare(const KernelSetup& setup) override {
    if (setup.inputs.size() < 2 || setup.outputs.empty()) return setup.Invalid("expects inputs A and B, output C");
    ActQuant a, b, y;
    RETURN_IF_ERROR(ReadActQuant(setup, setup.inputs[0], "input A", &a));
    RETURN_IF_ERROR(ReadActQuant(setup, setup.inputs[1], "input B", &b));
    RETURN_IF_ERROR(ReadActQuant(setup, setup.outputs[0], "output C", &y));
    RETURN_IF_ERROR(CheckNode(setup, 2, 2, 1, 1));
    const Shape& a_shape = setup.inputs[0].shape;
    const Shape& b_shape = setup.inputs[1].shape;
    Shape out_shape;
    if (!math::BroadcastPlan::BroadcastShapes({a_shape, b_shape}, &out_shape))
      return setup.Invalid("shapes " + ShapeToString(a_shape) + " and " + ShapeToString(b_shape) +
                           " do not broadcast");
    RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kInt8, out_shape));
    std::string error;
    if (!plan_.Init({a_shape, b_shape}, out_shape, &error)) return setup.Invalid(error);
    requant::Range range;
    RETURN_IF_ERROR(FusedActivationRange(setup, y, &range));
    if (mul_) {
      mul_op_.a_zero_point = a.zero_point;
      mul_op_.b_zero_point = b.zero_point;
      RETURN_IF_ERROR(RequantStatus(
          setup, requant::MakeOutputStage(a.scale, b.scale, y.scale, y.zero_point, range, &mul_op_.stage)));
    } else {
      requant::AddParams p;
      RETURN_IF_ERROR(RequantStatus(setup, requant::MakeAddParams(a.scale, a.zero_point, b.scale, b.zero_point,
                                                                  y.scale, y.zero_point, range, &p)));
      for (int q = -128; q <= 127; ++q) {
        add_op_.a_term[q + 128] =
            requant::MultiplyByQuantizedMultiplier((q - p.a_zero_point) * (1 << requant::kAddLeftShift), p.a);
        add_op_.b_term[q + 128] =
            requant::MultiplyByQuantizedMultiplier((q - p.b_zero_point) * (1 << requant::kAddLeftShift), p.b);
      }
      add_op_.output = p.output;
      vector_ = MakeAddTerms(p);
      output_steps_.Build({p.output});
    }
    if (mul_) {
      vector_ = true;
      output_steps_.Build({mul_op_.stage});
    }
    const requant::Range& r = mul_ ? mul_op_.stage.range : add_op_.output.range;
    vector_ = vector_ && r.min <= r.max;
    pair_table_.clear();
    if (plan_.size() >= kPairTableMin) {
      if (mul_) {
        BuildPairTable(mul_op_);
      } else {
        BuildPairTable(add_op_);
      }
    }
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    const bool vector = vector_ && UseInt8Avx2();
    if (!pair_table_.empty()) {
      RunOp(PairTableOp{pair_table_.data()}, args, vector);
    } else if (mul_) {
      RunOp(mul_op_, args, vector);
    } else {
      RunOp(add_op_, args, vector);
    }
    return Status::Ok();
  }

 private:
  template <typename Op>
  void BuildPairTable(const Op& op) {
    pair_table_.resize(256 * 256);
    for (int qa = -128; qa <= 127; ++qa)
      for (int qb = -128; qb <= 127; ++qb) pair_table_[(qa + 128) * 256 + (qb + 128)] = static_cast<int8_t>(op(qa, qb));
  }

  // The vector path's add terms (add_mul_avx2.h) of `p`; false, leaving it
  // unused, when they do not reproduce ScaleAddInput for every input or the
  // output stage shifts left.
  bool MakeAddTerms(const requant::AddParams& p) {
    if (p.output.m.shift > 0) return false;
    if (!internal::MakeAddTerm(p.a_zero_point, p.a, &term_a_) || !internal::MakeAddTerm(p.b_zero_point, p.b, &term_b_))
      return false;
    for (int q = -128; q <= 127; ++q)
      if (internal::EvalAddTerm(q, term_a_) != requant::ScaleAddInput(q, p.a_zero_point, p.a) ||
          internal::EvalAddTerm(q, term_b_) != requant::ScaleAddInput(q, p.b_zero_point, p.b))
        return false;
    return true;
  }

  template <typename Op>
  void RunOp(const Op& op, const KernelArgs& args, bool vector) const {
    const int8_t* a = args.in<int8_t>(0);
    const int8_t* b = args.in<int8_t>(1);
    int8_t* y = args.out<int8_t>(0);
    const int step_a = plan_.step(0), step_b = plan_.step(1);
    ParallelFor(args.pool, plan_.size(), kElementwiseGrain, [&](int64_t begin, int64_t end, int) {
      plan_.ForRange(begin, end, [&](int64_t out, const int64_t* in, int64_t n) {
#if defined(__x86_64__) || defined(__i386__)
        if (vector && step_a && step_b) {
          if (mul_) {
            internal::MulAvx2(mul_op_.a_zero_point, mul_op_.b_zero_point, output_steps_, a + in[0], b + in[1], y + out,
                              n);
          } else {
            internal::AddAvx2(term_a_, term_b_, output_steps_, a + in[0], b + in[1], y + out, n);
          }
          return;
        }
#else
        (void)vector;
#endif
        RunSpan(op, a + in[0], step_a, b + in[1], step_b, y + out, n);
      });
    });
  }

  bool mul_;
  AddOp add_op_{};
  MulOp mul_op_;
  std::vector<int8_t> pair_table_;  // large outputs: the op for every input pair
  bool vector_ = false;             // the AVX2 path may run (add_mul_avx2.h)
  internal::AddTerm term_a_, term_b_;
  OutputSteps output_steps_;  // the output stage, for the vector path
  math::BroadcastPlan plan_;
};

}  // namespace

std::unique_ptr<Kernel> MakeAddKernel() { return std::make_unique<BinaryInt8Kernel>(false); }
std::unique_ptr<Kernel> MakeMulKernel() { return std::make_unique<BinaryInt8Kernel>(true); }

}  // namespace int8
}  // namespace loom
