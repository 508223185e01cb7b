// DepthToSpace and SpaceToDepth on NCHW tensors: both are a reshape to 6-D,
// a transpose, and a reshape back, so each is one StridedCopy built from a
// 6-D view of the input and a permutation.
//   DepthToSpace DCR: [N, b, b, C', H, W]  perm (0, 3, 4, 1, 5, 2) -> [N, C', H*b, W*b]
//   DepthToSpace CRD: [N, C', b, b, H, W]  perm (0, 1, 4, 2, 5, 3)
//   SpaceToDepth:     [N, C, H', b, W', b] perm (0, 3, 5, 1, 2, 4) -> [N, C*b*b, H', W']
#include <algorithm>

#include "kernels/cpu/tensor/strided_copy.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

class DepthSpaceKernel : public Kernel {
 public:
  explicit DepthSpaceKernel(bool to_space) : to_space_(to_space) {}

  Status Prepare(const KernelSetup& s) override {
    Shape out, view;
    int64_t perm[6];
    RETURN_IF_ERROR(Plan(s, &out, &view, perm));
    RETURN_IF_ERROR(CheckOutput(s, 0, s.inputs[0].dtype, out));
    if (!BuildPermute(view, perm, DTypeSize(s.inputs[0].dtype), &copy_))
      return s.Error(StatusCode::kInternal, "cannot build the copy plan");
    return Status::Ok();
  }
  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    Shape out, view;
    int64_t perm[6];
    RETURN_IF_ERROR(Plan(s, &out, &view, perm));
    *shapes = {out};
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    copy_.Run(args.pool, args.inputs[0], args.outputs[0]);
    return Status::Ok();
  }

 private:
  Status Plan(const KernelSetup& s, Shape* out, Shape* view, int64_t* perm) const {
    RETURN_IF_ERROR(CheckNode(s, 1, 1, 1, 1));
    const Shape& in = s.inputs[0].shape;
    if (in.size() != 4) return s.Invalid("input has shape " + ShapeToString(in) + ", expected 4-D NCHW");
    int64_t b = 0;
    RETURN_IF_ERROR(ReadIntAttr(s, "blocksize", 0, &b));
    if (b < 1 || b > (int64_t{1} << 20))
      return s.Invalid("attribute 'blocksize' = " + std::to_string(b) + ", expected >= 1");
    const int64_t n = in[0], c = in[1], h = in[2], w = in[3];
    if (h > (int64_t{1} << 32) || w > (int64_t{1} << 32)) return s.Unsupported("spatial dims " + ShapeToString(in));
    if (to_space_) {
      if (c % (b * b) != 0)
        return s.Invalid("channels " + std::to_string(c) +
                         " are not divisible by blocksize^2 = " + std::to_string(b * b));
      const int64_t c2 = c / (b * b);
      std::string mode;
      RETURN_IF_ERROR(ReadStringAttr(s, "mode", "DCR", &mode));
      *out = {n, c2, h * b, w * b};
      if (mode == "DCR") {
        *view = {n, b, b, c2, h, w};
        const int64_t p[6] = {0, 3, 4, 1, 5, 2};
        std::copy(p, p + 6, perm);
      } else if (mode == "CRD") {
        *view = {n, c2, b, b, h, w};
        const int64_t p[6] = {0, 1, 4, 2, 5, 3};
        std::copy(p, p + 6, perm);
      } else {
        return s.Invalid("attribute mode='" + mode + "' is not DCR or CRD");
      }
    } else {
      if (h % b != 0 || w % b != 0)
        return s.Invalid("spatial dims " + std::to_string(h) + "x" + std::to_string(w) +
                         " are not divisible by blocksize " + std::to_string(b));
      *out = {n, c * b * b, h / b, w / b};
      *view = {n, c, h / b, b, w / b, b};
      const int64_t p[6] = {0, 3, 5, 1, 2, 4};
      std::copy(p, p + 6, perm);
    }
    return Status::Ok();
  }

  bool to_space_;
  StridedCopy copy_;
};

}  // namespace

std::unique_ptr<Kernel> MakeDepthToSpaceKernel() { return std::make_unique<DepthSpaceKernel>(true); }
std::unique_ptr<Kernel> MakeSpaceToDepthKernel() { return std::make_unique<DepthSpaceKernel>(false); }

}  // namespace tensor
}  // namespace loom
