// Concat of int8 tensors along `axis`; every input may carry its own
// per-tensor parameters. Seen as [outer, axis · inner] matrices, each input is
// a block of columns of the output:
//   - an input whose (scale, zero point) equal the output's is copied as
//     bytes, row by row, and skipped when the memory planner already placed
//     it in the output (concat elision);
//   - any other is rescaled through a 256-entry table, entry q being
//     requant::Rescale(q, MakeRescaleParams(input → output, full range)).
// Large inputs are split across the thread pool.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/attribute_readers.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cpu/int8/tensor_quant.h"
#include "kernels/cpu/tensor/strided_copy.h"

namespace loom {
namespace int8 {
namespace {

class ConcatKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    if (s.inputs.empty() || s.outputs.empty()) return s.Invalid("expects inputs and an output");
    ActQuant yq;
    RETURN_IF_ERROR(ReadActQuant(s, s.outputs[0], "output concat_result", &yq));
    std::vector<ActQuant> xq(s.inputs.size());
    for (size_t i = 0; i < s.inputs.size(); ++i)
      RETURN_IF_ERROR(ReadActQuant(s, s.inputs[i], "input " + std::to_string(i), &xq[i]));
    RETURN_IF_ERROR(CheckNode(s, 1, SIZE_MAX, 1, 1));
    const TensorInfo& first = s.inputs[0];
    if (first.rank() == 0) return s.Invalid("input 0 is a scalar; Concat needs rank >= 1");
    if (s.opset >= 4 && !s.attrs.Has("axis")) return s.Invalid("attribute 'axis' is required");
    int axis = 0;
    RETURN_IF_ERROR(ReadAxisAttr(s, "axis", 1, first.rank(), &axis));
    const size_t ax = static_cast<size_t>(axis);
    Shape out = first.shape;
    out[ax] = 0;
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      const Shape& shape = s.inputs[i].shape;
      bool same = shape.size() == first.shape.size();
      for (size_t d = 0; same && d < shape.size(); ++d) same = d == ax || shape[d] == first.shape[d];
      if (!same)
        return s.Invalid("input " + std::to_string(i) + " has shape " + ShapeToString(shape) +
                         ", incompatible with input 0 shape " + ShapeToString(first.shape) + " on axis " +
                         std::to_string(axis));
      out[ax] += shape[ax];
    }
    RETURN_IF_ERROR(CheckOutput(s, 0, DType::kInt8, out));

    int64_t inner = 1;
    outer_ = 1;
    for (size_t d = 0; d < out.size(); ++d) {
      if (d < ax) outer_ *= out[d];
      if (d > ax) inner *= out[d];
    }
    out_row_ = out[ax] * inner;
    parts_.assign(s.inputs.size(), Part());
    int64_t column = 0;
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      Part& p = parts_[i];
      p.row = s.inputs[i].shape[ax] * inner;
      p.dst_offset = column;
      column += p.row;
      p.rescale = xq[i] != yq;
      if (p.rescale) {
        RETURN_IF_ERROR(RequantStatus(s, MakeRescaleTable(xq[i], yq, requant::Range(), &p.table)));
      } else {
        const int64_t dims[2] = {outer_, p.row};
        const int64_t src_strides[2] = {p.row, 1};
        const int64_t dst_strides[2] = {out_row_, 1};
        p.copy.Build(2, dims, src_strides, dst_strides, 1);
      }
    }
    return Status::Ok();
  }

  Status Run(const KernelArgs& args) const override {
    int8_t* dst = args.out<int8_t>(0);
    for (size_t i = 0; i < parts_.size(); ++i) {
      const Part& p = parts_[i];
      const int8_t* src = args.in<int8_t>(i);
      int8_t* at = dst + p.dst_offset;
      if (!p.rescale) {
        if (src != at) p.copy.Run(args.pool, src, at);
        continue;
      }
      if (p.row == 0) continue;
      // Element i of the input is column i % row of output row i / row (in
      // place when the planner placed the input in the output: then outer is 1).
      ParallelFor(args.pool, outer_ * p.row, kElementwiseGrain, [&](int64_t begin, int64_t end, int) {
        for (int64_t e = begin; e < end;) {
          const int64_t r = e / p.row, c = e % p.row, n = std::min(p.row - c, end - e);
          LookupTable(p.table, src + e, at + r * out_row_ + c, n);
          e += n;
        }
      });
    }
    return Status::Ok();
  }

 private:
  struct Part {
    int64_t row = 0;         // elements of the input per outer index
    int64_t dst_offset = 0;  // its first column in the output row
    bool rescale = false;
    Table table{};             // rescale
    tensor::StridedCopy copy;  // byte copy
  };

  int64_t outer_ = 1, out_row_ = 0;
  std::vector<Part> parts_;
};

}  // namespace

std::unique_ptr<Kernel> MakeConcatKernel() { return std::make_unique<ConcatKernel>(); }

}  // namespace int8
}  // namespace loom
