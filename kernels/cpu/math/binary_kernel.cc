#include "kernels/cpu/math/binary_kernel.h"

#include <algorithm>
#include <cstring>

namespace loom {
namespace math {
namespace {

// Runs of at most kMaxPeriod elements with a repeated operand are lengthened
// through a buffer of kRepeatBytes holding the period side by side.
constexpr int64_t kMaxPeriod = 64;
constexpr int64_t kRepeatBytes = 4096;

}  // namespace

const BinaryOpDef* BinaryKernel::Find(const KernelSetup& setup) const {
  for (size_t i = 0; i < table_size_; ++i) {
    if (setup.op == table_[i].op) return &table_[i];
  }
  return nullptr;
}

Status BinaryKernel::Prepare(const KernelSetup& setup) {
  const BinaryOpDef* def = Find(setup);
  if (!def) return setup.Unsupported("op is not an elementwise binary op");
  RETURN_IF_ERROR(CheckNode(setup, 2, 2, 1, 1));
  const TensorInfo& a = setup.inputs[0];
  const TensorInfo& b = setup.inputs[1];
  if (def->same_dtype && a.dtype != b.dtype) {
    return setup.Invalid(std::string("input B has dtype ") + DTypeName(b.dtype) + ", expected " + DTypeName(a.dtype) +
                         " like input A");
  }
  params_ = BinaryParams();
  if (def->parse) RETURN_IF_ERROR(def->parse(setup, &params_));
  DType out_dtype = DType::kUndefined;
  loop_ = def->select(a.dtype, b.dtype, params_, &out_dtype);
  if (!loop_) {
    if (a.dtype == b.dtype) return UnsupportedDType(setup, "inputs", a.dtype);
    return setup.Unsupported(std::string("dtypes ") + DTypeName(a.dtype) + " and " + DTypeName(b.dtype));
  }

  Shape out_shape;
  if (def->unidirectional) {
    out_shape = a.shape;
  } else if (!BroadcastPlan::BroadcastShapes({a.shape, b.shape}, &out_shape)) {
    return setup.Invalid("shapes " + ShapeToString(a.shape) + " and " + ShapeToString(b.shape) + " do not broadcast");
  }
  RETURN_IF_ERROR(CheckOutput(setup, 0, out_dtype, out_shape));
  std::string error;
  if (!plan_.Init({a.shape, b.shape}, out_shape, &error)) return setup.Invalid(error);
  elem_[0] = DTypeSize(a.dtype);
  elem_[1] = DTypeSize(b.dtype);
  elem_[2] = DTypeSize(out_dtype);
  repeat_ = plan_.RepeatedPeriod(&repeated_, &outer_, &rows_, &period_) && period_ <= kMaxPeriod && rows_ > 1 &&
            period_ * static_cast<int64_t>(elem_[repeated_]) * 2 <= kRepeatBytes;
  return Status::Ok();
}

Status BinaryKernel::Run(const KernelArgs& args) const {
  const auto* a = static_cast<const uint8_t*>(args.inputs[0]);
  const auto* b = static_cast<const uint8_t*>(args.inputs[1]);
  auto* y = static_cast<uint8_t*>(args.outputs[0]);
  if (repeat_) {
    RunRepeated(args);
    return Status::Ok();
  }
  const int step_a = plan_.step(0);
  const int step_b = plan_.step(1);
  ParallelFor(args.pool, plan_.size(), kElementwiseGrain, [&](int64_t begin, int64_t end, int) {
    plan_.ForRange(begin, end, [&](int64_t out, const int64_t* in, int64_t n) {
      loop_(a + in[0] * elem_[0], step_a, b + in[1] * elem_[1], step_b, y + out * elem_[2], n, params_);
    });
  });
  return Status::Ok();
}

void BinaryKernel::RunRepeated(const KernelArgs& args) const {
  const size_t period_bytes = static_cast<size_t>(period_) * elem_[repeated_];
  const int64_t k = std::min<int64_t>(rows_, kRepeatBytes / static_cast<int64_t>(period_bytes));  // rows per chunk
  const int64_t chunks = (rows_ + k - 1) / k;
  const int full = 1 - repeated_;
  const auto* rep = static_cast<const uint8_t*>(args.inputs[repeated_]);
  const auto* other = static_cast<const uint8_t*>(args.inputs[full]);
  auto* y = static_cast<uint8_t*>(args.outputs[0]);
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / (k * period_));
  ParallelFor(args.pool, outer_ * chunks, grain, [&](int64_t begin, int64_t end, int) {
    alignas(64) uint8_t buf[kRepeatBytes];
    int64_t filled = -1;  // the outer index whose period buf holds
    for (int64_t t = begin; t < end; ++t) {
      const int64_t o = t / chunks, r0 = (t % chunks) * k, n = std::min(k, rows_ - r0);
      if (o != filled) {
        for (int64_t r = 0; r < k; ++r) std::memcpy(buf + r * period_bytes, rep + o * period_bytes, period_bytes);
        filled = o;
      }
      const int64_t off = (o * rows_ + r0) * period_;
      const uint8_t* in[2];
      in[repeated_] = buf;
      in[full] = other + off * static_cast<int64_t>(elem_[full]);
      loop_(in[0], 1, in[1], 1, y + off * static_cast<int64_t>(elem_[2]), n * period_, params_);
    }
  });
}

Status BinaryKernel::InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const {
  const BinaryOpDef* def = Find(setup);
  if (!def || !setup.HasInput(0) || !setup.HasInput(1)) return setup.Invalid("expected inputs A and B");
  Shape out;
  if (def->unidirectional) {
    out = setup.inputs[0].shape;
  } else if (!BroadcastPlan::BroadcastShapes({setup.inputs[0].shape, setup.inputs[1].shape}, &out)) {
    return setup.Invalid("input shapes do not broadcast");
  }
  shapes->assign(1, out);
  return Status::Ok();
}

}  // namespace math
}  // namespace loom
