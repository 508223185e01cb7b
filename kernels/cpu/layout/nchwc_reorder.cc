// loom.ToNchwc and loom.FromNchwc: float32 NCHW [N, C, H, W] <-> the
// channel-blocked layout [N, C/8, H, W, 8] (kernels/cpu/nn/nchwc_vector.h),
// blocked[n, cb, h, w, c] = nchw[n, cb * 8 + c, h, w]; C % 8 == 0.
//
// One task is an image row of one block: 8 channel rows of W floats <-> W
// pixels of 8 floats, moved as 8 x 8 transposes through a small tile (the
// compiler vectorizes it), then the remaining columns one by one. Threaded
// over (n, block, rows).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "kernels/common/kernel.h"
#include "kernels/common/kernel_checks.h"

namespace loom {
namespace layout {
namespace {

constexpr int64_t kB = 8;

// Row h of the 8 planes at `planar` (`plane` floats apart) -> w blocked pixels.
void ToBlockedRow(const float* planar, int64_t plane, int64_t w, float* blocked) {
  int64_t i = 0;
  for (; i + kB <= w; i += kB) {
    float t[kB][kB];
    for (int64_t c = 0; c < kB; ++c) std::memcpy(t[c], planar + c * plane + i, sizeof(t[c]));
    float* out = blocked + i * kB;
    for (int64_t p = 0; p < kB; ++p)
      for (int64_t c = 0; c < kB; ++c) out[p * kB + c] = t[c][p];
  }
  for (; i < w; ++i)
    for (int64_t c = 0; c < kB; ++c) blocked[i * kB + c] = planar[c * plane + i];
}

// The inverse of ToBlockedRow.
void FromBlockedRow(const float* blocked, int64_t plane, int64_t w, float* planar) {
  int64_t i = 0;
  for (; i + kB <= w; i += kB) {
    float t[kB][kB];
    std::memcpy(t, blocked + i * kB, sizeof(t));
    for (int64_t c = 0; c < kB; ++c)
      for (int64_t p = 0; p < kB; ++p) planar[c * plane + i + p] = t[p][c];
  }
  for (; i < w; ++i)
    for (int64_t c = 0; c < kB; ++c) planar[c * plane + i] = blocked[i * kB + c];
}

class NchwcReorderKernel final : public Kernel {
 public:
  explicit NchwcReorderKernel(bool to_blocked) : to_blocked_(to_blocked) {}

  Status Prepare(const KernelSetup& setup) override {
    RETURN_IF_ERROR(CheckNode(setup, 1, 1, 1, 1));
    if (!setup.HasInput(0)) return setup.Invalid("missing input X");
    const TensorInfo& x = setup.inputs[0];
    if (x.dtype != DType::kFloat32) return setup.Invalid(std::string("X has dtype ") + DTypeName(x.dtype));
    Shape out;
    if (to_blocked_) {
      if (x.rank() != 4 || x.shape[1] % kB != 0)
        return setup.Invalid("X has shape " + ShapeToString(x.shape) + ", expected [N, C, H, W] with C % 8 == 0");
      n_ = x.shape[0];
      blocks_ = x.shape[1] / kB;
      h_ = x.shape[2];
      w_ = x.shape[3];
      out = {n_, blocks_, h_, w_, kB};
    } else {
      if (x.rank() != 5 || x.shape[4] != kB)
        return setup.Invalid("X has shape " + ShapeToString(x.shape) + ", expected [N, C/8, H, W, 8]");
      n_ = x.shape[0];
      blocks_ = x.shape[1];
      h_ = x.shape[2];
      w_ = x.shape[3];
      out = {n_, blocks_ * kB, h_, w_};
    }
    for (int64_t d : x.shape)
      if (d < 0) return setup.Invalid("X has a negative dim: " + ShapeToString(x.shape));
    return CheckOutput(setup, 0, DType::kFloat32, out);
  }

  Status Run(const KernelArgs& args) const override {
    const float* x = args.in<float>(0);
    float* y = args.out<float>(0);
    const int64_t plane = h_ * w_, rows = n_ * blocks_ * h_;
    // About 16 KB of data per chunk.
    const int64_t grain = std::max<int64_t>(1, 2048 / std::max<int64_t>(1, kB * w_));
    ParallelFor(args.pool, rows, grain, [&](int64_t begin, int64_t end, int) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t h = r % h_, block = r / h_;  // block = n * blocks + cb
        const int64_t planar = block * kB * plane + h * w_, blocked = (block * plane + h * w_) * kB;
        if (to_blocked_) {
          ToBlockedRow(x + planar, plane, w_, y + blocked);
        } else {
          FromBlockedRow(x + blocked, plane, w_, y + planar);
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool to_blocked_;
  int64_t n_ = 0, blocks_ = 0, h_ = 0, w_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakeToNchwcKernel() { return std::make_unique<NchwcReorderKernel>(true); }
std::unique_ptr<Kernel> MakeFromNchwcKernel() { return std::make_unique<NchwcReorderKernel>(false); }

}  // namespace layout
}  // namespace loom
