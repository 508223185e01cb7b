// Relayout (domain "loom"): copies a tensor between the row-major layout
// and the accelerator's padded NHWC layout (padded_layout.h). The builder
// inserts one wherever an activation crosses between a CPU node and an FPGA
// node; its attribute loom.pad_channels is the array size N. Same shape and
// dtype on both sides; exactly one side is NHWC_PADDED.
#include <memory>

#include "kernels/common/kernel.h"
#include "kernels/cpu/layout/padded_layout.h"

namespace loom {
namespace layout {
namespace {

class RelayoutKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    if (setup.inputs.size() != 1 || !setup.HasInput(0) || setup.outputs.size() != 1)
      return setup.Invalid("expected one input and one output");
    const TensorInfo& x = setup.inputs[0];
    const TensorInfo& y = setup.outputs[0];
    if (x.dtype != y.dtype || x.shape != y.shape)
      return setup.Invalid("input " + std::string(DTypeName(x.dtype)) + " " + ShapeToString(x.shape) +
                           " and output " + DTypeName(y.dtype) + " " + ShapeToString(y.shape) + " differ");
    const bool x_padded = x.layout == Layout::kNhwcPadded;
    const bool y_padded = y.layout == Layout::kNhwcPadded;
    if (x_padded == y_padded || (!x_padded && x.layout != Layout::kRowMajor) ||
        (!y_padded && y.layout != Layout::kRowMajor)) {
      return setup.Unsupported(std::string("relayout from ") + LayoutName(x.layout) + " to " +
                               LayoutName(y.layout));
    }
    element_bytes_ = DTypeSize(x.dtype);
    if (element_bytes_ != 1 && element_bytes_ != 2 && element_bytes_ != 4 && element_bytes_ != 8)
      return setup.Unsupported(std::string("dtype ") + DTypeName(x.dtype));
    const Status s = PaddedShapeOf(x.shape, setup.attrs.GetInt(kPadChannelsAttr, 0), &shape_);
    if (!s.ok()) return setup.Invalid(s.message());
    to_padded_ = y_padded;
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    if (to_padded_)
      ToPadded(shape_, element_bytes_, args.inputs[0], args.outputs[0]);
    else
      FromPadded(shape_, element_bytes_, args.inputs[0], args.outputs[0]);
    return Status::Ok();
  }

 private:
  PaddedShape shape_;
  size_t element_bytes_ = 1;
  bool to_padded_ = true;
};

}  // namespace

std::unique_ptr<Kernel> MakeRelayoutKernel() { return std::make_unique<RelayoutKernel>(); }

}  // namespace layout
}  // namespace loom
