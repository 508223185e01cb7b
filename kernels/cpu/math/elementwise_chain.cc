// ElementwiseChain: float32 elementwise steps over L1-sized blocks
// (elementwise_chain.h).
#include "kernels/cpu/math/elementwise_chain.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "kernels/cpu/math/math_util.h"
#include "kernels/cpu/math/unary_kernel.h"

namespace loom {
namespace math {
namespace {

struct Step;
// Runs a step over X's elements [begin, begin + n): out[i] = f(in[i]).
// `operand` is the binary step's operand (its scalar or tensor). The first
// step reads X, the others their output block (in == out: the loops still
// vectorize, the compiler's alias check accepts equal pointers).
using StepFn = void (*)(const Step& s, const float* in, float* out, int64_t begin, int64_t n, const float* operand);

struct Step {
  StepFn fn = nullptr;
  UnaryLoop unary = nullptr;  // unary steps
  UnaryParams params;         // unary steps; Clip: alpha = min, beta = max
  int operand = 0;            // binary steps: input index, 0 for `scalar`
  float scalar = 0.f;
  int64_t channels = 1, inner = 1;  // per-channel operands
};

void UnaryStep(const Step& s, const float* in, float* out, int64_t, int64_t n, const float*) {
  s.unary(in, out, n, s.params);
}

void ClipStep(const Step& s, const float* in, float* out, int64_t, int64_t n, const float*) {
  const float lo = s.params.alpha, hi = s.params.beta;
  for (int64_t i = 0; i < n; ++i) out[i] = std::min(std::max(in[i], lo), hi);  // as clip.cc
}

// The binary ops, each the float expression of its own kernel
// (arithmetic.cc, variadic.cc).
struct AddF {
  static float Apply(float a, float b) { return a + b; }
};
struct SubF {
  static float Apply(float a, float b) { return a - b; }
};
struct MulF {
  static float Apply(float a, float b) { return a * b; }
};
struct DivF {
  static float Apply(float a, float b) { return a / b; }
};
struct PowF {
  static float Apply(float a, float b) { return std::pow(a, b); }
};
struct MaxF {
  static float Apply(float a, float b) { return (a > b || a != a) ? a : b; }
};
struct MinF {
  static float Apply(float a, float b) { return (a < b || a != a) ? a : b; }
};

// x op operand, or operand op x when swapped.
template <typename Op, bool kSwapped>
inline float Apply(float x, float operand) {
  return kSwapped ? Op::Apply(operand, x) : Op::Apply(x, operand);
}

template <typename Op, bool kSwapped>
void ScalarStep(const Step&, const float* in, float* out, int64_t, int64_t n, const float* operand) {
  const float c = operand[0];
  for (int64_t i = 0; i < n; ++i) out[i] = Apply<Op, kSwapped>(in[i], c);
}

template <typename Op, bool kSwapped>
void FullStep(const Step&, const float* in, float* out, int64_t begin, int64_t n, const float* operand) {
  const float* b = operand + begin;
  for (int64_t i = 0; i < n; ++i) out[i] = Apply<Op, kSwapped>(in[i], b[i]);
}

// Per channel, runs of `inner` elements sharing one operand value.
template <typename Op, bool kSwapped>
void ChannelStep(const Step& s, const float* in, float* out, int64_t begin, int64_t n, const float* operand) {
  for (int64_t i = 0; i < n;) {
    const int64_t row = (begin + i) / s.inner;
    const float c = operand[row % s.channels];
    const int64_t end = std::min(n, (row + 1) * s.inner - begin);
    for (; i < end; ++i) out[i] = Apply<Op, kSwapped>(in[i], c);
  }
}

// Per channel along X's last axis (inner 1): the operand repeats.
template <typename Op, bool kSwapped>
void LastAxisStep(const Step& s, const float* in, float* out, int64_t begin, int64_t n, const float* operand) {
  int64_t c = begin % s.channels;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = Apply<Op, kSwapped>(in[i], operand[c]);
    if (++c == s.channels) c = 0;
  }
}

template <typename Op, bool kSwapped>
StepFn SelectBinaryOrder(ChainOperand kind, int64_t inner) {
  switch (kind) {
    case ChainOperand::kScalar:
      return &ScalarStep<Op, kSwapped>;
    case ChainOperand::kFull:
      return &FullStep<Op, kSwapped>;
    case ChainOperand::kChannel:
      return inner == 1 ? &LastAxisStep<Op, kSwapped> : &ChannelStep<Op, kSwapped>;
    case ChainOperand::kNone:
      break;
  }
  return nullptr;
}

template <typename Op>
StepFn SelectBinary(ChainOperand kind, int64_t inner, bool swapped) {
  return swapped ? SelectBinaryOrder<Op, true>(kind, inner) : SelectBinaryOrder<Op, false>(kind, inner);
}

struct BinaryStepDef {
  const char* op;
  StepFn (*select)(ChainOperand kind, int64_t inner, bool swapped);
};

const BinaryStepDef kBinarySteps[] = {
    {"Add", &SelectBinary<AddF>}, {"Sub", &SelectBinary<SubF>}, {"Mul", &SelectBinary<MulF>},
    {"Div", &SelectBinary<DivF>}, {"Pow", &SelectBinary<PowF>}, {"Max", &SelectBinary<MaxF>},
    {"Min", &SelectBinary<MinF>},
};

const BinaryStepDef* FindBinaryStep(const std::string& op) {
  for (const BinaryStepDef& d : kBinarySteps)
    if (op == d.op) return &d;
  return nullptr;
}

// A unary op with a float32 loop and a float32 output.
const UnaryOpDef* FindUnaryStep(const std::string& op) {
  const UnaryOpDef* def = FindMathUnaryOp(op);
  if (!def) def = FindActivationOp(op);
  if (!def || def->bool_output || !def->select(DType::kFloat32)) return nullptr;
  return def;
}

UnaryParams StepParams(float p0, float p1) {
  UnaryParams p;
  p.alpha = p0;
  p.beta = p1;
  return p;
}

class ElementwiseChainKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    steps_.clear();
    RETURN_IF_ERROR(CheckNode(setup, 1, setup.inputs.size() + 1, 1, 1));
    for (size_t k = 0; k < setup.inputs.size(); ++k) {
      const TensorInfo& t = setup.inputs[k];
      if (!t.present) return setup.Invalid("input " + std::to_string(k) + " is missing");
      if (t.dtype != DType::kFloat32) return UnsupportedDType(setup, "input " + std::to_string(k), t.dtype);
    }
    const Shape& x = setup.inputs[0].shape;
    RETURN_IF_ERROR(CheckOutput(setup, 0, DType::kFloat32, x));

    const Attribute* names = setup.attrs.Find("steps");
    if (!names || names->kind != Attribute::Kind::kStrings || names->strings.empty())
      return setup.Invalid("attribute 'steps' must be a non-empty list of strings");
    const size_t num = names->strings.size();
    std::vector<int64_t> operands, swapped;
    RETURN_IF_ERROR(ReadIntsAttr(setup, "operands", num, std::vector<int64_t>(num, 0), &operands));
    RETURN_IF_ERROR(ReadIntsAttr(setup, "swapped", num, std::vector<int64_t>(num, 0), &swapped));
    std::vector<float> params(2 * num, 0.f);
    if (const Attribute* p = setup.attrs.Find("params")) {
      if (p->kind != Attribute::Kind::kFloats || p->floats.size() != 2 * num)
        return setup.Invalid("attribute 'params' must be " + std::to_string(2 * num) + " floats (2 per step)");
      params = p->floats;
    }

    std::vector<bool> used(setup.inputs.size(), false);
    for (size_t s = 0; s < num; ++s) {
      const std::string& op = names->strings[s];
      const std::string what = "step " + std::to_string(s) + " (" + op + ")";
      const int64_t k = operands[s];
      if (swapped[s] != 0 && swapped[s] != 1) return setup.Invalid(what + ": swapped must be 0 or 1");
      Step step;
      if (const BinaryStepDef* def = FindBinaryStep(op)) {
        if (k < 0 || k >= static_cast<int64_t>(setup.inputs.size()))
          return setup.Invalid(what + ": operand " + std::to_string(k) + " is not an input");
        ChainOperand kind = ChainOperand::kScalar;
        step.operand = static_cast<int>(k);
        step.scalar = params[2 * s];
        if (k > 0) {
          const Shape& b = setup.inputs[static_cast<size_t>(k)].shape;
          kind = ClassifyChainOperand(b, x, &step.channels, &step.inner);
          if (kind == ChainOperand::kNone)
            return setup.Invalid(what + ": operand input " + std::to_string(k) + " of shape " + ShapeToString(b) +
                                 " is no scalar, per-channel or full-shape operand of X " + ShapeToString(x));
          used[static_cast<size_t>(k)] = true;
        }
        step.fn = def->select(kind, step.inner, swapped[s] == 1);
        steps_.push_back(step);
        continue;
      }
      if (k != 0 || swapped[s] != 0) return setup.Invalid(what + ": a unary step has operand 0 and swapped 0");
      step.params = StepParams(params[2 * s], params[2 * s + 1]);
      if (op == "Clip") {
        step.fn = &ClipStep;
      } else if (const UnaryOpDef* def = FindUnaryStep(op)) {
        step.fn = &UnaryStep;
        step.unary = def->select(DType::kFloat32);
      } else {
        return setup.Invalid(what + ": not an op of ElementwiseChain");
      }
      steps_.push_back(step);
    }
    for (size_t k = 1; k < used.size(); ++k)
      if (!used[k]) return setup.Invalid("input " + std::to_string(k) + " is the operand of no step");
    size_ = NumElements(x);
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    const float* x = args.in<float>(0);
    float* y = args.out<float>(0);
    ParallelFor(args.pool, size_, kElementwiseGrain, [&](int64_t begin, int64_t end, int) {
      for (int64_t b = begin; b < end; b += kChainBlock) {
        const int64_t n = std::min(kChainBlock, end - b);
        const float* in = x + b;
        for (const Step& s : steps_) {
          s.fn(s, in, y + b, b, n, s.operand > 0 ? args.in<float>(static_cast<size_t>(s.operand)) : &s.scalar);
          in = y + b;
        }
      }
    });
    return Status::Ok();
  }

  Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const override {
    if (!setup.HasInput(0)) return setup.Invalid("missing input X");
    shapes->assign(1, setup.inputs[0].shape);
    return Status::Ok();
  }

 private:
  std::vector<Step> steps_;
  int64_t size_ = 0;
};

}  // namespace

ChainOperand ClassifyChainOperand(const Shape& operand, const Shape& x, int64_t* channels, int64_t* inner) {
  if (operand.size() > x.size()) return ChainOperand::kNone;
  if (NumElements(operand) == 1) return ChainOperand::kScalar;
  const size_t offset = x.size() - operand.size();
  bool same = NumElements(operand) == NumElements(x);
  int non_one = 0;
  size_t axis = 0;
  for (size_t i = 0; i < operand.size(); ++i) {
    const int64_t d = operand[i], xd = x[offset + i];
    if (d != xd) same = false;
    if (d == 1) continue;
    if (d != xd) return ChainOperand::kNone;
    ++non_one;
    axis = offset + i;
  }
  if (same) return ChainOperand::kFull;
  if (non_one != 1) return ChainOperand::kNone;
  *channels = x[axis];
  *inner = 1;
  for (size_t i = axis + 1; i < x.size(); ++i) *inner *= x[i];
  return ChainOperand::kChannel;
}

bool IsChainBinaryOp(const std::string& op) { return FindBinaryStep(op) != nullptr; }

Status ChainUnaryParams(const KernelSetup& node, float params[2]) {
  const UnaryOpDef* def = FindUnaryStep(node.op);
  if (!def) return node.Unsupported("op " + node.op + " as a step of ElementwiseChain");
  UnaryParams p;
  if (def->parse) RETURN_IF_ERROR(def->parse(node, &p));
  params[0] = p.alpha;
  params[1] = p.beta;
  // Only alpha and beta travel in the program.
  const UnaryParams back = StepParams(params[0], params[1]);
  if (p.gamma != back.gamma || p.detect_positive != back.detect_positive || p.detect_negative != back.detect_negative)
    return node.Unsupported("attributes of " + node.op + " as a step of ElementwiseChain");
  return Status::Ok();
}

std::unique_ptr<Kernel> NewElementwiseChainKernel() { return std::make_unique<ElementwiseChainKernel>(); }

}  // namespace math
}  // namespace loom
