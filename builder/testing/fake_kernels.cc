#include "builder/testing/fake_kernels.h"

#include <algorithm>
#include <cstring>

namespace loom {
namespace testing {

namespace {

int g_run_count = 0;
bool g_refuse_activation = false;

class CopyKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    if (!s.HasInput(0) || s.outputs.empty()) return s.Invalid("needs one input");
    if (s.inputs[0].shape != s.outputs[0].shape) return s.Invalid("shape mismatch");
    bytes_ = s.inputs[0].num_bytes();
    relu_ = s.op == "Relu" && s.inputs[0].dtype == DType::kFloat32;
    return Status::Ok();
  }
  Status Run(const KernelArgs& a) const override {
    ++g_run_count;
    std::memcpy(a.outputs[0], a.inputs[0], bytes_);
    if (relu_) {
      float* y = a.out<float>(0);
      for (size_t i = 0; i < bytes_ / 4; ++i) y[i] = std::max(y[i], 0.f);
    }
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    shapes->assign(s.outputs.size(), s.inputs[0].shape);
    return Status::Ok();
  }

 private:
  size_t bytes_ = 0;
  bool relu_ = false;
};

class AddKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    if (s.inputs.size() != 2 || s.inputs[0].shape != s.inputs[1].shape) return s.Unsupported("broadcasting");
    if (s.inputs[0].dtype != DType::kFloat32) return s.Unsupported("dtype");
    n_ = static_cast<size_t>(s.inputs[0].num_elements());
    return Status::Ok();
  }
  Status Run(const KernelArgs& a) const override {
    ++g_run_count;
    for (size_t i = 0; i < n_; ++i) a.out<float>(0)[i] = a.in<float>(0)[i] + a.in<float>(1)[i];
    return Status::Ok();
  }

 private:
  size_t n_ = 0;
};

class AnchorKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    if (g_refuse_activation && s.attrs.Has("loom.activation")) return s.Unsupported("fused activation");
    bytes_ = s.outputs[0].num_bytes();
    return Status::Ok();
  }
  Status Run(const KernelArgs& a) const override {
    ++g_run_count;
    std::memset(a.outputs[0], 0, bytes_);
    return Status::Ok();
  }

 private:
  size_t bytes_ = 0;
};

class ReshapeKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    bytes_ = s.inputs[0].num_bytes();
    return Status::Ok();
  }
  Status Run(const KernelArgs& a) const override {
    ++g_run_count;
    std::memcpy(a.outputs[0], a.inputs[0], bytes_);
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    if (!s.HasInput(1) || !s.inputs[1].const_data) return s.Unsupported("non-constant shape");
    const int64_t* d = static_cast<const int64_t*>(s.inputs[1].const_data);
    shapes->assign(1, Shape(d, d + s.inputs[1].num_elements()));
    return Status::Ok();
  }

 private:
  size_t bytes_ = 0;
};

class BrokenKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override { return s.Unsupported("mode 'whatever'"); }
  Status Run(const KernelArgs&) const override { return Status::Internal("never runs"); }
};

}  // namespace

KernelRegistry MakeFakeRegistry(const FakeKernelOptions& options) {
  g_refuse_activation = options.refuse_activation;
  KernelRegistry r;
  for (const char* op : {"Relu", "Identity", "Sigmoid", "Tanh", "LeakyRelu", "Clip", "HardSigmoid", "HardSwish",
                         "BatchNormalization", "Cast", "Dropout"})
    r.AddCpu(op, MakeKernel<CopyKernel>);
  r.AddCpu("Add", MakeKernel<AddKernel>);
  for (const char* op : {"Conv", "ConvTranspose", "Gemm", "MatMul"}) r.AddCpu(op, MakeKernel<AnchorKernel>);
  r.AddCpu("Reshape", MakeKernel<ReshapeKernel>);
  r.AddCpu("Broken", MakeKernel<BrokenKernel>);
  r.AddCpu("Frobnicate", MakeKernel<CopyKernel>, nullptr, "com.example");
  return r;
}

int FakeRunCount() { return g_run_count; }
void ResetFakeRunCount() { g_run_count = 0; }

}  // namespace testing
}  // namespace loom
