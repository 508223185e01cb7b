// Transpose: output dim i is input dim perm[i] (default: reversed). The copy is
// a StridedCopy plan built once in Prepare: a permutation that keeps the last
// dim becomes row memcpys, a real transpose is copied in cache-sized tiles.
#include "kernels/cpu/tensor/strided_copy.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

class TransposeKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    std::vector<int64_t> perm;
    Shape out;
    RETURN_IF_ERROR(Plan(s, &perm, &out));
    RETURN_IF_ERROR(CheckOutput(s, 0, s.inputs[0].dtype, out));
    if (!BuildPermute(s.inputs[0].shape, perm.data(), DTypeSize(s.inputs[0].dtype), &copy_))
      return s.Unsupported("transpose of rank " + std::to_string(s.inputs[0].rank()));
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    std::vector<int64_t> perm;
    Shape out;
    RETURN_IF_ERROR(Plan(s, &perm, &out));
    *shapes = {out};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    copy_.Run(args.pool, args.inputs[0], args.outputs[0]);
    return Status::Ok();
  }

 private:
  static Status Plan(const KernelSetup& s, std::vector<int64_t>* perm, Shape* out) {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    const Shape& in = s.inputs[0].shape;
    const int64_t rank = static_cast<int64_t>(in.size());
    bool given = false;
    RETURN_IF_ERROR(ReadIntsAttr(s, "perm", perm, &given));
    if (!given) {
      for (int64_t i = rank - 1; i >= 0; --i) perm->push_back(i);
    }
    if (static_cast<int64_t>(perm->size()) != rank)
      return s.Invalid("attribute 'perm' " + IntsToString(*perm) + " has " + std::to_string(perm->size()) +
                       " values, input has rank " + std::to_string(rank));
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    out->clear();
    for (int64_t p : *perm) {
      if (p < 0 || p >= rank || seen[static_cast<size_t>(p)])
        return s.Invalid("attribute 'perm' " + IntsToString(*perm) + " is not a permutation of [0, " +
                         std::to_string(rank) + ")");
      seen[static_cast<size_t>(p)] = true;
      out->push_back(in[static_cast<size_t>(p)]);
    }
    return Status::Ok();
  }

  StridedCopy copy_;
};

}  // namespace

std::unique_ptr<Kernel> MakeTransposeKernel() { return std::make_unique<TransposeKernel>(); }

}  // namespace tensor
}  // namespace loom
