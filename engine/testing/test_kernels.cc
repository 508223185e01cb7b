#include "engine/testing/test_kernels.h"

#include <cstring>

namespace loom {
namespace testing {
namespace {

Status CheckFloatUnary(const KernelSetup& s) {
  if (s.inputs.size() != 1 || s.outputs.size() != 1 || !s.inputs[0].present || !s.outputs[0].present)
    return s.Invalid("expected 1 input and 1 output");
  if (s.inputs[0].dtype != DType::kFloat32 || s.outputs[0].dtype != DType::kFloat32)
    return s.Unsupported("only float32");
  if (s.inputs[0].shape != s.outputs[0].shape)
    return s.Invalid("input shape " + ShapeToString(s.inputs[0].shape) + " differs from output shape " +
                     ShapeToString(s.outputs[0].shape));
  return Status::Ok();
}

// Two float32 inputs and one output, all of one shape.
Status CheckFloatBinary(const KernelSetup& s) {
  if (s.inputs.size() != 2 || s.outputs.size() != 1) return s.Invalid("expected 2 inputs and 1 output");
  for (const TensorInfo& t : {s.inputs[0], s.inputs[1], s.outputs[0]}) {
    if (!t.present || t.dtype != DType::kFloat32) return s.Unsupported("only float32");
    if (t.shape != s.outputs[0].shape) return s.Invalid("shapes differ");
  }
  return Status::Ok();
}

class AddKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(CheckFloatBinary(s));
    n_ = s.outputs[0].num_elements();
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    const float* a = args.in<float>(0);
    const float* b = args.in<float>(1);
    float* y = args.out<float>(0);
    ParallelFor(args.pool, n_, 16, [&](int64_t begin, int64_t end, int) {
      for (int64_t i = begin; i < end; ++i) y[i] = a[i] + b[i];
    });
    return Status::Ok();
  }

 private:
  int64_t n_ = 0;
};

class ReluKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(CheckFloatUnary(s));
    n_ = s.outputs[0].num_elements();
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    const float* x = args.in<float>(0);
    float* y = args.out<float>(0);
    for (int64_t i = 0; i < n_; ++i) y[i] = x[i] > 0.f ? x[i] : 0.f;
    return Status::Ok();
  }

 private:
  int64_t n_ = 0;
};

class ScaleKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(CheckFloatUnary(s));
    const Attribute* alpha = s.attrs.Find("alpha");
    if (alpha == nullptr || alpha->kind != Attribute::Kind::kFloat)
      return s.Invalid("attribute 'alpha' (float) is required");
    alpha_ = alpha->f;
    n_ = s.outputs[0].num_elements();
    return Status::Ok();
  }
  size_t ScratchBytes(int num_threads) const override {
    (void)num_threads;
    return static_cast<size_t>(n_) * sizeof(float);
  }
  Status Run(const KernelArgs& args) const override {
    float* staged = static_cast<float*>(args.scratch);
    std::memcpy(staged, args.in<float>(0), static_cast<size_t>(n_) * sizeof(float));
    float* y = args.out<float>(0);
    ParallelFor(args.pool, n_, 8, [&](int64_t begin, int64_t end, int) {
      for (int64_t i = begin; i < end; ++i) y[i] = staged[i] * alpha_;
    });
    return Status::Ok();
  }

 private:
  float alpha_ = 1.f;
  int64_t n_ = 0;
};

// Copies its input; an optional second input must be omitted (checked in
// Prepare and, as a null pointer, in Run).
class CheckKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    KernelSetup first = s;
    if (s.inputs.size() == 2) {
      if (s.inputs[1].present) return s.Invalid("input 1 must be omitted");
      first.inputs.resize(1);
      optional_ = true;
    }
    RETURN_IF_ERROR(CheckFloatUnary(first));
    n_ = s.outputs[0].num_elements();
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    if (optional_ && (args.num_inputs != 2 || args.inputs[1] != nullptr))
      return Status::Internal("omitted input arrived non-null");
    const float* x = args.in<float>(0);
    if (n_ > 0 && x[0] < 0.f) return Status::OutOfRange("first element is negative");
    std::memcpy(args.out<float>(0), x, static_cast<size_t>(n_) * sizeof(float));
    return Status::Ok();
  }

 private:
  bool optional_ = false;
  int64_t n_ = 0;
};

// y = x + b for a constant b, or + the derived constant "test.packed" (b's
// size) in b's place when the plan offers it: b is then never read.
// Prepare refuses a b whose first element is negative (a kernel that reads
// a constant to accept its node).
class PackedKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(CheckFloatBinary(s));
    if (s.inputs[1].const_data == nullptr) return s.Invalid("b must be constant");
    n_ = s.outputs[0].num_elements();
    derived_ = static_cast<const float*>(s.FindDerived("test.packed", s.inputs[1].num_bytes()));
    if (derived_ == nullptr && n_ > 0 && static_cast<const float*>(s.inputs[1].const_data)[0] < 0.f)
      return s.Invalid("b[0] is negative");
    return Status::Ok();
  }
  bool ReadsConstantInput(size_t i) const override { return !(i == 1 && derived_ != nullptr); }
  Status Run(const KernelArgs& args) const override {
    const float* x = args.in<float>(0);
    const float* b = derived_ ? derived_ : args.in<float>(1);
    float* y = args.out<float>(0);
    for (int64_t i = 0; i < n_; ++i) y[i] = x[i] + b[i];
    return Status::Ok();
  }

 private:
  int64_t n_ = 0;
  const float* derived_ = nullptr;
};

class RefuseKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override { return s.Unsupported("refused by design"); }
  Status Run(const KernelArgs&) const override { return Status::Internal("never prepared"); }
};

}  // namespace

const KernelRegistry& TestKernelRegistry() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    r->Add({"test.Add", "Add", "", Device::kCpu, MakeKernel<AddKernel>, LayoutBit(Layout::kRowMajor)});
    r->Add({"test.Relu", "Relu", "", Device::kCpu, MakeKernel<ReluKernel>, LayoutBit(Layout::kRowMajor)});
    r->Add({"test.Scale", "Scale", "", Device::kCpu, MakeKernel<ScaleKernel>, LayoutBit(Layout::kRowMajor)});
    r->Add({"test.Check", "Check", "", Device::kCpu, MakeKernel<CheckKernel>, LayoutBit(Layout::kRowMajor)});
    r->Add({"test.Packed", "Packed", "", Device::kCpu, MakeKernel<PackedKernel>, LayoutBit(Layout::kRowMajor)});
    r->Add({"test.Refuse", "Refuse", "", Device::kCpu, MakeKernel<RefuseKernel>, LayoutBit(Layout::kRowMajor)});
    return r;
  }();
  return *registry;
}

}  // namespace testing
}  // namespace loom
