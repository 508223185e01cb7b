// Winograd F(m x m, 3x3) convolution (see conv_winograd.h).
#include "kernels/cpu/nn/conv_winograd.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "kernels/cpu/nn/conv_winograd_filter.h"
#include "kernels/cpu/nn/conv_winograd_transform.h"

namespace loom {
namespace nn {
namespace {

constexpr size_t kBlockBudgetBytes = 512 * 1024;  // V + M of one tile block (half of a 1 MiB L2)
constexpr int64_t kMaxTilesPerBlock = 96;
constexpr int64_t kBlock = 8;  // NCHW8c's channel block

size_t AlignUp64(size_t v) { return (v + 63) / 64 * 64; }

}  // namespace

void WinogradConvF32::Prepare(const WinogradConvShape& shape, int tile_m, const float* w, const Activation& act,
                              const GemmF32Isa& isa, int64_t tiles_per_block) {
  s_ = shape;
  m_ = tile_m == 2 ? 2 : 4;
  a_ = m_ + 2;
  isa_ = &isa;
  act_ = act;
  const int64_t cin = s_.in_channels, cout = s_.out_channels, points = a_ * a_;
  const int64_t oh = s_.OutH(), ow = s_.OutW();
  tiles_h_ = (oh + m_ - 1) / m_;
  tiles_w_ = (ow + m_ - 1) / m_;
  tiles_ = tiles_h_ * tiles_w_;
  hp_ = tiles_h_ * m_ + 2;
  wp_ = tiles_w_ * m_ + 2;

  // U_p[ci][co] = (G g G^T)_p, packed per point.
  u_.clear();
  if (w) TransformWinogradFilters(m_, w, cin, cout, isa, &u_);

  if (tiles_per_block <= 0) {
    const int64_t per_tile = points * (cin + cout) * static_cast<int64_t>(sizeof(float));
    tiles_per_block = static_cast<int64_t>(kBlockBudgetBytes) / per_tile / isa.mr * isa.mr;
    // At least two register tiles of rows: fewer passes over U when channels are many.
    tiles_per_block = std::min(std::max<int64_t>(tiles_per_block, 2 * isa.mr), kMaxTilesPerBlock);
  }
  block_ = std::min(tiles_per_block, tiles_);
  input_bytes_ = AlignUp64(static_cast<size_t>(hp_ * wp_ * cin) * sizeof(float));
  v_bytes_ = AlignUp64(static_cast<size_t>(points * block_ * cin) * sizeof(float));
  m_bytes_ = AlignUp64(static_cast<size_t>(points * block_ * cout) * sizeof(float));
  table_bytes_ = AlignUp64(static_cast<size_t>(block_) * (sizeof(const float*) + sizeof(WinogradTileDst)));
  thread_bytes_ = v_bytes_ + m_bytes_ + table_bytes_ + AlignUp64(GemmF32ScratchBytes(1));
}

std::string WinogradConvF32::FilterKey(const WinogradConvShape& shape, int tile_m, const GemmF32Isa& isa) {
  const int a = (tile_m == 2 ? 2 : 4) + 2;
  return "conv_winograd.filters f" + std::to_string(a - 2) + " " +
         PackedMatrixF32::LayoutKeyManyB(static_cast<size_t>(a * a), shape.in_channels, shape.out_channels, isa);
}

size_t WinogradConvF32::FilterBytes(const WinogradConvShape& shape, int tile_m, const GemmF32Isa& isa) {
  const int a = (tile_m == 2 ? 2 : 4) + 2;
  return PackedMatrixF32::FloatsManyB(static_cast<size_t>(a * a), shape.in_channels, shape.out_channels, isa) *
         sizeof(float);
}

void WinogradConvF32::UseTransformedFilters(const float* u) {
  u_ = PackedMatrixF32::ViewManyB(u, static_cast<size_t>(a_ * a_), s_.in_channels, s_.out_channels, *isa_);
}

size_t WinogradConvF32::ScratchBytes(int num_threads) const {
  return input_bytes_ + static_cast<size_t>(std::max(num_threads, 1)) * thread_bytes_;
}

void WinogradConvF32::Run(const float* x, const float* bias, float* y, void* scratch, ThreadPool* pool,
                          const float* residual) const {
  const int64_t cin = s_.in_channels, cout = s_.out_channels, points = a_ * a_;
  const int64_t oh = s_.OutH(), ow = s_.OutW();
  const WinogradTransformFns& fns = WinogradTransformsFor(*isa_);
  float* xt = static_cast<float*>(scratch);
  char* slices = static_cast<char*>(scratch) + input_bytes_;
  // Smaller blocks when there are too few to keep every thread busy.
  const int threads = pool ? pool->NumThreads() : 1;
  int64_t block = block_;
  if (threads > 1) {
    const int64_t even = (tiles_ + threads - 1) / threads;
    block = std::min(block_, std::max<int64_t>((even + isa_->mr - 1) / isa_->mr * isa_->mr, isa_->mr));
    block = std::min(block, block_);
  }
  const int64_t blocks = (tiles_ + block - 1) / block;

  for (int64_t n = 0; n < s_.batch; ++n) {
    const float* xn = x + n * cin * s_.in_h * s_.in_w;
    float* yn = y + n * cout * oh * ow;
    const float* rn = residual ? residual + n * cout * oh * ow : nullptr;
    StageInput(xn, xt, pool);
    ParallelFor(pool, blocks, 1, [&](int64_t begin, int64_t end, int thread) {
      char* slice = slices + static_cast<size_t>(thread) * thread_bytes_;
      float* v = reinterpret_cast<float*>(slice);
      float* mm = reinterpret_cast<float*>(slice + v_bytes_);
      const float** src = reinterpret_cast<const float**>(slice + v_bytes_ + m_bytes_);
      WinogradTileDst* dst = reinterpret_cast<WinogradTileDst*>(src + block);
      void* gemm_scratch = slice + v_bytes_ + m_bytes_ + table_bytes_;
      for (int64_t b = begin; b < end; ++b) {
        const int64_t t0 = b * block, tn = std::min(block, tiles_ - t0);
        for (int64_t i = 0; i < tn; ++i) {
          const int64_t th = (t0 + i) / tiles_w_, tw = (t0 + i) % tiles_w_;
          src[i] = xt + (th * m_ * wp_ + tw * m_) * cin;
          dst[i].offset = th * m_ * ow + tw * m_;
          dst[i].rows = static_cast<int32_t>(std::min<int64_t>(m_, oh - th * m_));
          dst[i].cols = static_cast<int32_t>(std::min<int64_t>(m_, ow - tw * m_));
        }
        fns.input(m_, src, tn, wp_ * cin, cin, v, block * cin);
        for (int64_t p = 0; p < points; ++p) {
          GemmF32Params gp;
          gp.m = tn;
          gp.n = cout;
          gp.k = cin;
          gp.a = v + p * block * cin;
          gp.lda = cin;
          gp.packed_b = &u_[p];
          gp.c = mm + p * block * cout;
          gp.ldc = cout;
          gp.isa = isa_;
          GemmF32(gp, gemm_scratch, nullptr);
        }
        fns.output(m_, mm, tn, block * cout, cout, bias, rn ? Activation() : act_, dst, oh * ow, ow, s_.channel_block,
                   yn);
        if (rn) AddResidual(t0, tn, rn, yn);
      }
    });
  }
}

void WinogradConvF32::StageInput(const float* x, float* xt, ThreadPool* pool) const {
  const int64_t cin = s_.in_channels, ih_n = s_.in_h, iw_n = s_.in_w, plane = ih_n * iw_n;
  const int64_t w_lo = std::min(s_.pad_left, wp_), w_hi = std::min(s_.pad_left + iw_n, wp_);
  ParallelFor(pool, hp_, 4, [&](int64_t begin, int64_t end, int) {
    for (int64_t h = begin; h < end; ++h) {
      float* row = xt + h * wp_ * cin;
      const int64_t ih = h - s_.pad_top;
      if (ih < 0 || ih >= ih_n) {
        std::memset(row, 0, static_cast<size_t>(wp_ * cin) * sizeof(float));
        continue;
      }
      std::memset(row, 0, static_cast<size_t>(w_lo * cin) * sizeof(float));
      std::memset(row + w_hi * cin, 0, static_cast<size_t>((wp_ - w_hi) * cin) * sizeof(float));
      if (s_.channel_block == kBlock) {  // NCHW8c: 8 contiguous channels per pixel and block
        for (int64_t cb = 0; cb < cin; cb += kBlock) {
          const float* src = x + cb * plane + (ih * iw_n + w_lo - s_.pad_left) * kBlock;
          for (int64_t w = w_lo; w < w_hi; ++w, src += kBlock)
            std::memcpy(row + w * cin + cb, src, sizeof(float) * kBlock);
        }
        continue;
      }
      for (int64_t c0 = 0; c0 < cin; c0 += 16) {  // NCHW: 16 channels at a time
        const int64_t c1 = std::min(c0 + 16, cin);
        for (int64_t w = w_lo; w < w_hi; ++w) {
          const float* src = x + ih * iw_n + (w - s_.pad_left);
          float* dst = row + w * cin;
          for (int64_t c = c0; c < c1; ++c) dst[c] = src[c * plane];
        }
      }
    }
  });
}

void WinogradConvF32::AddResidual(int64_t t0, int64_t tn, const float* r, float* y) const {
  const int64_t cb = s_.channel_block, blocks = s_.out_channels / cb, oh = s_.OutH(), ow = s_.OutW();
  // The tiles of one tile row cover a contiguous column range of m_ output
  // rows: `width` pixels of `cb` channels each.
  for (int64_t t = t0; t < t0 + tn;) {
    const int64_t th = t / tiles_w_, tw0 = t % tiles_w_;
    const int64_t tw1 = std::min(tiles_w_, tw0 + (t0 + tn - t));
    const int64_t x0 = tw0 * m_, width = (std::min(tw1 * m_, ow) - x0) * cb;
    const int64_t y0 = th * m_, y1 = std::min(y0 + m_, oh);
    for (int64_t c = 0; c < blocks; ++c)
      for (int64_t row = y0; row < y1; ++row) {
        const int64_t offset = ((c * oh + row) * ow + x0) * cb;
        float* dst = y + offset;
        const float* src = r + offset;
        if (act_.kind == ActivationKind::kRelu) {  // the common case in one pass
          for (int64_t i = 0; i < width; ++i) {
            const float v = dst[i] + src[i];
            dst[i] = v > 0.f ? v : 0.f;
          }
          continue;
        }
        for (int64_t i = 0; i < width; ++i) dst[i] += src[i];
        ApplyActivation(act_, dst, width);
      }
    t += tw1 - tw0;
  }
}

WinogradConvShape WinogradShapeOf(int64_t batch, int64_t in_channels, int64_t out_channels, const WindowGeometry& g,
                                  int64_t channel_block) {
  WinogradConvShape s;
  s.batch = batch;
  s.in_channels = in_channels;
  s.out_channels = out_channels;
  s.in_h = g.in[1];
  s.in_w = g.in[2];
  s.pad_top = g.pad_begin[1];
  s.pad_left = g.pad_begin[2];
  s.pad_bottom = g.pad_end[1];
  s.pad_right = g.pad_end[2];
  s.channel_block = channel_block;
  return s;
}

int ChooseWinogradTile(const WinogradConvShape& shape, int requested) {
  if (const char* env = std::getenv("LOOM_CONV_WINOGRAD")) {
    const std::string e = env;
    if (e == "0" || e == "off") return 0;
    if (e == "2" || e == "f2") return 2;
    if (e == "4" || e == "f4" || e == "1" || e == "on") return 4;
  }
  if (requested >= 0) return requested;
  // Measured on AMD EPYC (AVX-512) with the zoo's 3x3 convs (resnet18,
  // googlenet; 1 and 2 threads): F(4x4) wins from about 6x6 tiles of output
  // (28x28: 2.1x over the direct path, 56x56: 1.9x); below that its few
  // tiles fill the GEMM's 12-row register tile poorly and F(2x2) wins (14x14:
  // 1.4-1.8x, 7x7: 1.1-1.3x). With few channels the transforms cost more
  // than the GEMM saves (16 -> 48 channels at 14x14 is slower). Other CPUs
  // differ: on an Intel Xeon (Emerald Rapids, two 512-bit FMA units) the
  // direct path is 1.4x faster than F(2x2) at 7x7 x 512 channels. For plans
  // built for the `cpu` target the builder times the three ways instead
  // (loom.winograd, builder/exec/choose_tactics.h).
  const int64_t oh = shape.OutH(), ow = shape.OutW();
  const int64_t tiles4 = ((oh + 3) / 4) * ((ow + 3) / 4), tiles2 = ((oh + 1) / 2) * ((ow + 1) / 2);
  if (shape.in_channels * shape.out_channels < 1024) return 0;
  if (tiles4 >= 36) return 4;
  return tiles2 >= 9 ? 2 : 0;
}

}  // namespace nn
}  // namespace loom
