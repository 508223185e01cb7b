// The CPU fallbacks of accelerator nodes: the int8 CPU kernel of the op,
// run on the node's own tensors, which the accelerator keeps in the padded
// NHWC layout (padded_layout.h). Each activation in that layout is converted
// to row-major scratch before the CPU kernel runs and back after it, so a
// plan whose FPGA nodes fall back (no device, or another accelerator) gives
// the accelerator's outputs: both compute the int8 arithmetic of
// kernels/common/requantize.h.
//
// An accelerator node may carry trailing inputs for its launch (the command
// stream and the constant images, counted by loom.launch_inputs); the
// fallback ignores them. Registered as "cpu.<Op>.padded", never offered as a
// candidate for an op (KernelDef::candidate); Prepare also refuses a node
// with no padded tensor.
#include <array>
#include <memory>
#include <vector>

#include "kernels/common/kernel.h"
#include "kernels/common/registry.h"
#include "kernels/cpu/layout/padded_layout.h"

namespace loom {
namespace int8 {
std::unique_ptr<Kernel> MakeConvKernel();
std::unique_ptr<Kernel> MakeGemmKernel();
std::unique_ptr<Kernel> MakeMatMulKernel();
std::unique_ptr<Kernel> MakeAddKernel();
std::unique_ptr<Kernel> MakeMaxPoolKernel();
}  // namespace int8

namespace layout {

constexpr char kLaunchInputsAttr[] = "loom.launch_inputs";

namespace {

constexpr size_t kMaxTensors = 8;

size_t AlignUp(size_t v) { return (v + 63) / 64 * 64; }

class PaddedFallbackKernel final : public Kernel {
 public:
  explicit PaddedFallbackKernel(KernelFactory inner) : make_inner_(inner) {}

  Status Prepare(const KernelSetup& setup) override {
    const int64_t n = setup.attrs.GetInt(kPadChannelsAttr, 0);
    if (n <= 0) return setup.Unsupported("node without loom.pad_channels (not an accelerator node)");
    const int64_t launch_inputs = setup.attrs.GetInt(kLaunchInputsAttr, 0);
    if (launch_inputs < 0 || static_cast<size_t>(launch_inputs) > setup.inputs.size())
      return setup.Invalid("loom.launch_inputs is " + std::to_string(launch_inputs));
    KernelSetup inner = setup;
    inner.inputs.resize(setup.inputs.size() - static_cast<size_t>(launch_inputs));
    if (inner.inputs.size() > kMaxTensors || inner.outputs.size() > kMaxTensors)
      return setup.Unsupported("more than " + std::to_string(kMaxTensors) + " inputs or outputs");
    num_inputs_ = inner.inputs.size();
    conversions_.clear();
    size_t offset = 0;
    auto plan = [&](TensorInfo* t, size_t index, bool output) -> Status {
      if (!t->present || t->layout != Layout::kNhwcPadded) return Status::Ok();
      if (t->const_data != nullptr) return setup.Unsupported("a constant in the padded layout");
      Conversion c;
      c.index = index;
      c.output = output;
      c.element_bytes = DTypeSize(t->dtype);
      const Status s = PaddedShapeOf(t->shape, n, &c.shape);
      if (!s.ok()) return setup.Invalid(s.message());
      c.scratch_offset = offset;
      offset += AlignUp(t->num_bytes());
      t->layout = Layout::kRowMajor;
      conversions_.push_back(c);
      return Status::Ok();
    };
    for (size_t i = 0; i < inner.inputs.size(); ++i) RETURN_IF_ERROR(plan(&inner.inputs[i], i, false));
    for (size_t i = 0; i < inner.outputs.size(); ++i) RETURN_IF_ERROR(plan(&inner.outputs[i], i, true));
    if (conversions_.empty()) return setup.Unsupported("no tensor in the padded NHWC layout");
    converted_bytes_ = offset;
    kernel_ = make_inner_();
    return kernel_->Prepare(inner);
  }

  size_t ScratchBytes(int num_threads) const override {
    return converted_bytes_ + kernel_->ScratchBytes(num_threads);
  }

  Status Run(const KernelArgs& args) const override {
    std::array<const void*, kMaxTensors> inputs{};
    std::array<void*, kMaxTensors> outputs{};
    for (size_t i = 0; i < num_inputs_; ++i) inputs[i] = args.inputs[i];
    for (size_t i = 0; i < args.num_outputs; ++i) outputs[i] = args.outputs[i];
    uint8_t* scratch = static_cast<uint8_t*>(args.scratch);
    for (const Conversion& c : conversions_) {
      void* row_major = scratch + c.scratch_offset;
      if (c.output) {
        outputs[c.index] = row_major;
      } else {
        FromPadded(c.shape, c.element_bytes, args.inputs[c.index], row_major);
        inputs[c.index] = row_major;
      }
    }
    KernelArgs inner = args;
    inner.inputs = inputs.data();
    inner.num_inputs = num_inputs_;
    inner.outputs = outputs.data();
    inner.scratch = scratch + converted_bytes_;
    RETURN_IF_ERROR(kernel_->Run(inner));
    for (const Conversion& c : conversions_)
      if (c.output) ToPadded(c.shape, c.element_bytes, scratch + c.scratch_offset, args.outputs[c.index]);
    return Status::Ok();
  }

 private:
  struct Conversion {
    size_t index = 0;
    bool output = false;
    PaddedShape shape;
    size_t element_bytes = 1;
    size_t scratch_offset = 0;
  };

  KernelFactory make_inner_;
  std::unique_ptr<Kernel> kernel_;
  std::vector<Conversion> conversions_;
  size_t num_inputs_ = 0;
  size_t converted_bytes_ = 0;
};

template <KernelFactory kInner>
std::unique_ptr<Kernel> MakePaddedFallback() {
  return std::make_unique<PaddedFallbackKernel>(kInner);
}

}  // namespace

std::unique_ptr<Kernel> MakeRelayoutKernel();
std::unique_ptr<Kernel> MakeToNchwcKernel();    // nchwc_reorder.cc
std::unique_ptr<Kernel> MakeFromNchwcKernel();  // nchwc_reorder.cc

}  // namespace layout

void RegisterCpuLayoutKernels(KernelRegistry* r) {
  KernelDef relayout;
  relayout.id = "cpu.Relayout";
  relayout.op = "Relayout";
  relayout.domain = "loom";
  relayout.create = layout::MakeRelayoutKernel;
  relayout.layouts = LayoutBit(Layout::kRowMajor) | LayoutBit(Layout::kNhwcPadded);
  r->Add(relayout);
  // NCHW <-> channel-blocked NCHW8c (builder/passes/layout_nchwc).
  r->AddCpu("ToNchwc", layout::MakeToNchwcKernel, "loom", "loom");
  r->AddCpu("FromNchwc", layout::MakeFromNchwcKernel, "loom", "loom");
  const std::pair<const char*, KernelFactory> fallbacks[] = {
      {"Conv", layout::MakePaddedFallback<int8::MakeConvKernel>},
      {"Gemm", layout::MakePaddedFallback<int8::MakeGemmKernel>},
      {"MatMul", layout::MakePaddedFallback<int8::MakeMatMulKernel>},
      {"Add", layout::MakePaddedFallback<int8::MakeAddKernel>},
      {"MaxPool", layout::MakePaddedFallback<int8::MakeMaxPoolKernel>},
  };
  for (const auto& [op, factory] : fallbacks) {
    KernelDef def;
    def.id = std::string("cpu.") + op + ".padded";
    def.op = op;
    def.create = factory;
    def.layouts = LayoutBit(Layout::kRowMajor) | LayoutBit(Layout::kNhwcPadded);
    def.candidate = false;  // named by the plans of FPGA nodes only
    r->Add(def);
  }
}

}  // namespace loom
