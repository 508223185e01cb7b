#include "kernels/cpu/int8/conv_winograd_s8.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "kernels/cpu/int8/gemm_s8.h"

namespace loom {
namespace int8 {
namespace {

constexpr int kPoints = 16;
constexpr int64_t kRows = internal::kWinogradS8Rows;
// Per-task V block budget: the transformed tiles a task's GEMMs stream over.
// Every block streams all of U (int16, 16/9 · 2 times the int8 weights), so
// fewer, larger blocks read less: on ResNet-18 (1 thread) 256 KiB made the
// 28x28 layers 14% and the 14x14 ones 8% faster than 96 KiB (13 and 4 blocks
// -> 4 and 2); 512 KiB measured the same as 256.
constexpr int64_t kVBlockBytes = 256 * 1024;

size_t AlignUp(size_t v) { return (v + 63) / 64 * 64; }
int64_t RoundUp8(int64_t v) { return (v + 7) / 8 * 8; }

std::atomic<int> g_mode{-1};

// An int32 as uint32, for the output transform's wrapping sums.
inline uint32_t U32(int32_t v) { return static_cast<uint32_t>(v); }

}  // namespace

WinogradS8Mode ActiveWinogradS8Mode() {
  int mode = g_mode.load(std::memory_order_relaxed);
  if (mode < 0) {
    const char* env = std::getenv("LOOM_INT8_WINOGRAD");
    WinogradS8Mode m = WinogradS8Mode::kAuto;
    if (env && std::strcmp(env, "on") == 0) m = WinogradS8Mode::kOn;
    if (env && std::strcmp(env, "off") == 0) m = WinogradS8Mode::kOff;
    mode = static_cast<int>(m);
    g_mode.store(mode, std::memory_order_relaxed);
  }
  return static_cast<WinogradS8Mode>(mode);
}

void SetWinogradS8Mode(WinogradS8Mode mode) { g_mode.store(static_cast<int>(mode), std::memory_order_relaxed); }

bool UseWinogradS8(int64_t in_channels, int64_t out_channels, int64_t out_h, int64_t out_w) {
  if (in_channels > kWinogradS8MaxChannels || out_h < 1 || out_w < 1) return false;
  switch (ActiveWinogradS8Mode()) {
    case WinogradS8Mode::kOn:
      return true;
    case WinogradS8Mode::kOff:
      return false;
    case WinogradS8Mode::kAuto:
      break;
  }
  // With AVX-512 VNNI the u8 · s8 GEMM (vpdpbusd: 64 multiply-adds per
  // instruction) beats the int16 Winograd GEMMs: ResNet-18 int8 on one thread
  // took 16.7-16.8 ms against 29.1-43.5 ms with Winograd (best of 20 runs,
  // Xeon Cascade Lake).
  if (ActiveGemmS8Impl() == GemmS8Impl::kAvx512VnniU8) return false;
  // Measured on ResNet-18's shapes (conv_timing_test.cc): faster from 56x56 to
  // 14x14 outputs on both paths (AVX2 about 1.4x, portable 2-3x), not at 7x7
  // (its 4x4 tiles compute 16 outputs of which 7x7 are kept).
  return in_channels >= 16 && out_channels >= 16 && out_h >= 8 && out_w >= 8;
}

void WinogradS8Conv::Prepare(const int8_t* weights, int64_t cin, int64_t cout, int64_t in_h, int64_t in_w,
                             int64_t pad_top, int64_t pad_left, int64_t out_h, int64_t out_w, int32_t x_zero_point,
                             const OutputSteps* steps) {
  cin_ = cin;
  cpairs_ = (cin + 1) / 2;
  cout_ = cout;
  in_h_ = in_h;
  in_w_ = in_w;
  pad_top_ = pad_top;
  pad_left_ = pad_left;
  out_h_ = out_h;
  out_w_ = out_w;
  x_zero_point_ = x_zero_point;
  steps_ = steps;
  tiles_h_ = (out_h + 1) / 2;
  tiles_w_ = (out_w + 1) / 2;
  tiles_ = tiles_h_ * tiles_w_;
  padded_h_ = 2 * tiles_h_ + 2;
  padded_w_ = 2 * tiles_w_ + 2;
  row_stride_ = padded_w_ + 16;
  // Tiles per task: as many groups of 16 as the V block budget takes, spread
  // evenly and rounded up to a multiple of 8 (the GEMMs' half tile).
  const int64_t fit = std::max<int64_t>(1, kVBlockBytes / (kPoints * cpairs_ * 2 * 2 * 16));
  const int64_t blocks = ((tiles_ + 15) / 16 + fit - 1) / fit;
  block_ = RoundUp8((tiles_ + blocks - 1) / blocks);
  padded_bytes_ = AlignUp(static_cast<size_t>(cin_ * padded_h_ * row_stride_));
  v_bytes_ = AlignUp(static_cast<size_t>(kPoints * cpairs_ * block_ * 2) * sizeof(int16_t));
  m_bytes_ = AlignUp(static_cast<size_t>(kPoints * kRows * block_) * sizeof(int32_t));
  acc_bytes_ = AlignUp(static_cast<size_t>(4 * block_) * sizeof(int32_t));
  out_bytes_ = AlignUp(static_cast<size_t>(4 * block_));
  // U = G' g G'^T per (output, input channel), stored [16][cout][cpairs][2].
  u_.assign(static_cast<size_t>(kPoints * cout_ * cpairs_ * 2), 0);
  for (int64_t m = 0; m < cout_; ++m)
    for (int64_t c = 0; c < cin_; ++c) {
      const int8_t* g = weights + (m * cin_ + c) * 9;
      int32_t t[4][3];  // G' g
      for (int j = 0; j < 3; ++j) {
        t[0][j] = 2 * g[j];
        t[1][j] = g[j] + g[3 + j] + g[6 + j];
        t[2][j] = g[j] - g[3 + j] + g[6 + j];
        t[3][j] = 2 * g[6 + j];
      }
      for (int i = 0; i < 4; ++i) {
        const int32_t row[4] = {2 * t[i][0], t[i][0] + t[i][1] + t[i][2], t[i][0] - t[i][1] + t[i][2], 2 * t[i][2]};
        for (int j = 0; j < 4; ++j)
          u_[static_cast<size_t>((((i * 4 + j) * cout_ + m) * cpairs_ + c / 2) * 2 + c % 2)] =
              static_cast<int16_t>(row[j]);
      }
    }
}

struct WinogradS8Conv::Scratch {
  int16_t* v;
  int32_t* m;
  int32_t* acc;
  int8_t* out;
};

WinogradS8Conv::Scratch WinogradS8Conv::Carve(void* scratch, int thread) const {
  char* base = static_cast<char*>(scratch) + padded_bytes_ +
               static_cast<size_t>(thread) * (v_bytes_ + m_bytes_ + acc_bytes_ + out_bytes_);
  Scratch s;
  s.v = reinterpret_cast<int16_t*>(base);
  s.m = reinterpret_cast<int32_t*>(base + v_bytes_);
  s.acc = reinterpret_cast<int32_t*>(base + v_bytes_ + m_bytes_);
  s.out = reinterpret_cast<int8_t*>(base + v_bytes_ + m_bytes_ + acc_bytes_);
  return s;
}

size_t WinogradS8Conv::ScratchBytes(int num_threads) const {
  return padded_bytes_ +
         static_cast<size_t>(std::max(1, num_threads)) * (v_bytes_ + m_bytes_ + acc_bytes_ + out_bytes_);
}

// V [16][cpairs][block][2] of tiles [t0, t0 + block_): the tiles, then
// zeros past the last tile (to a multiple of 8) and the last channel.
void WinogradS8Conv::TransformInput(const int8_t* padded, int64_t t0, int16_t* v) const {
  internal::WinogradS8Tiles tiles;
  tiles.padded = padded;
  tiles.plane = padded_h_ * row_stride_;
  tiles.row_stride = row_stride_;
  tiles.cin = cin_;
  tiles.cpairs = cpairs_;
  tiles.tiles_w = tiles_w_;
  tiles.t0 = t0;
  tiles.count = std::min(block_, tiles_ - t0);
  tiles.block = block_;
#if defined(__x86_64__) || defined(__i386__)
  if (UseInt8Avx2()) {
    internal::WinogradS8InputAvx2(tiles, v);
  } else {
    internal::WinogradS8InputPortable(tiles, v);
  }
#else
  internal::WinogradS8InputPortable(tiles, v);
#endif
  // Zeros: past the last tile up to the multiple of 8 the GEMMs read, and
  // the missing odd channel.
  const int64_t count8 = RoundUp8(tiles.count);
  for (int p = 0; p < kPoints; ++p) {
    if (count8 > tiles.count)
      for (int64_t cp = 0; cp < cpairs_; ++cp) {
        int16_t* row = v + (p * cpairs_ + cp) * block_ * 2;
        std::memset(row + tiles.count * 2, 0, static_cast<size_t>((count8 - tiles.count) * 2) * sizeof(int16_t));
      }
    if (cin_ % 2 == 1) {
      int16_t* row = v + (p * cpairs_ + cpairs_ - 1) * block_ * 2;
      for (int64_t t = 0; t < tiles.count; ++t) row[2 * t + 1] = 0;
    }
  }
}

// Output channels [m0, m0 + rows) of tiles [t0, t0 + block_) from M: A^T M A,
// divided by 4, requantized with the bias, stored where inside the output.
void WinogradS8Conv::OutputRows(const int32_t* m, int64_t m0, int64_t rows, int64_t t0, const int32_t* bias,
                                int32_t* acc, int8_t* out, int8_t* y) const {
  const int64_t count = std::min(block_, tiles_ - t0), count8 = RoundUp8(count), point_stride = kRows * block_;
  const bool avx2 = UseInt8Avx2();
  for (int64_t r = 0; r < rows; ++r) {
#if defined(__x86_64__) || defined(__i386__)
    if (avx2) {
      internal::WinogradS8OutputAvx2(m + r * block_, point_stride, block_, count8, acc);
    } else {
      internal::WinogradS8OutputPortable(m + r * block_, point_stride, block_, count8, acc);
    }
#else
    (void)avx2;
    internal::WinogradS8OutputPortable(m + r * block_, point_stride, block_, count8, acc);
#endif
    const int64_t channel = m0 + r;
    if (count8 == block_) {
      RequantizeRow(*steps_, channel, acc, bias[channel], 4 * block_, out);
    } else {
      for (int i = 0; i < 4; ++i)
        RequantizeRow(*steps_, channel, acc + i * block_, bias[channel], count8, out + i * block_);
    }
    // Each run of tiles along a tile row fills two output rows (less a
    // right or bottom edge of an odd output plane).
    int8_t* yc = y + channel * out_h_ * out_w_;
    for (int64_t t = 0; t < count;) {
      const int64_t th = (t0 + t) / tiles_w_, tw0 = (t0 + t) % tiles_w_;
      const int64_t run = std::min(count - t, tiles_w_ - tw0);
      const int64_t width = std::min(2 * run, out_w_ - 2 * tw0);
      for (int64_t dy = 0; dy < 2 && 2 * th + dy < out_h_; ++dy) {
        const int8_t* left = out + 2 * dy * block_ + t;
        const int8_t* right = left + block_;
        int8_t* dst = yc + (2 * th + dy) * out_w_ + 2 * tw0;
        for (int64_t k = 0; k < width / 2; ++k) {
          dst[2 * k] = left[k];
          dst[2 * k + 1] = right[k];
        }
        if (width % 2 == 1) dst[width - 1] = left[width / 2];
      }
      t += run;
    }
  }
}

void WinogradS8Conv::Run(const int8_t* x, const int32_t* bias, int8_t* y, void* scratch, ThreadPool* pool) const {
  // The zero-point-bordered image, padded_h_ x padded_w_ per channel, rows row_stride_ apart.
  int8_t* padded = static_cast<int8_t*>(scratch);
  ParallelFor(pool, cin_ * padded_h_, 256, [&](int64_t begin, int64_t end, int) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t c = row / padded_h_, ih = row % padded_h_ - pad_top_;
      int8_t* dst = padded + row * row_stride_;
      std::memset(dst, x_zero_point_, static_cast<size_t>(row_stride_));
      if (ih < 0 || ih >= in_h_) continue;
      const int64_t w = std::min(in_w_, padded_w_ - pad_left_);
      std::memcpy(dst + pad_left_, x + (c * in_h_ + ih) * in_w_, static_cast<size_t>(w));
    }
  });
  const bool avx2 = UseInt8Avx2();
  const int64_t blocks = (tiles_ + block_ - 1) / block_;
  const int threads = pool ? pool->NumThreads() : 1;
  const int64_t row_groups = (cout_ + 3) / 4;
  int64_t splits = 1;
  if (threads > 1 && blocks < 2 * threads) splits = std::min<int64_t>(row_groups, (2 * threads + blocks - 1) / blocks);
  const int64_t rows_per_split = (row_groups + splits - 1) / splits * 4;
  ParallelFor(pool, blocks * splits, 1, [&](int64_t begin, int64_t end, int thread) {
    const Scratch s = Carve(scratch, thread);
    int64_t transformed = -1;  // the block s.v holds
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task / splits, split = task % splits;
      const int64_t r_begin = split * rows_per_split, r_end = std::min(cout_, r_begin + rows_per_split);
      if (r_begin >= r_end) continue;
      const int64_t t0 = b * block_;
      if (transformed != b) {
        TransformInput(padded, t0, s.v);
        transformed = b;
      }
      // The last block computes its tiles only (to a multiple of 8).
      const int64_t count8 = RoundUp8(std::min(block_, tiles_ - t0));
      for (int64_t m0 = r_begin; m0 < r_end; m0 += kRows) {
        const int64_t rows = std::min(kRows, r_end - m0);
#if defined(__x86_64__) || defined(__i386__)
        if (avx2) {
          internal::WinogradS8GemmAvx2(u_.data(), cout_, cpairs_, m0, rows, s.v, block_, count8, s.m);
        } else {
          internal::WinogradS8GemmPortable(u_.data(), cout_, cpairs_, m0, rows, s.v, block_, count8, s.m);
        }
#else
        (void)avx2;
        internal::WinogradS8GemmPortable(u_.data(), cout_, cpairs_, m0, rows, s.v, block_, count8, s.m);
#endif
        OutputRows(s.m, m0, rows, t0, bias, s.acc, s.out, y);
      }
    }
  });
}

namespace internal {

// B^T d B, rows then columns, one tile and channel at a time.
void WinogradS8InputPortable(const WinogradS8Tiles& tiles, int16_t* v) {
  const int64_t point_stride = tiles.cpairs * tiles.block * 2, ld = tiles.row_stride;
  for (int64_t c = 0; c < tiles.cin; ++c) {
    int16_t* vc = v + (c / 2) * tiles.block * 2 + c % 2;
    const int8_t* src = tiles.padded + c * tiles.plane;
    for (int64_t t = 0; t < tiles.count;) {
      // One run of tiles along a tile row.
      const int64_t th = (tiles.t0 + t) / tiles.tiles_w, tw0 = (tiles.t0 + t) % tiles.tiles_w;
      const int64_t run = std::min(tiles.count - t, tiles.tiles_w - tw0);
      const int8_t* row0 = src + 2 * th * ld + 2 * tw0;
      int16_t* dst = vc + 2 * t;
      for (int64_t k = 0; k < run; ++k) {
        const int8_t* d = row0 + 2 * k;
        int16_t r[4][4];  // B^T d
        for (int j = 0; j < 4; ++j) {
          const int16_t d0 = d[j], d1 = d[ld + j], d2 = d[2 * ld + j], d3 = d[3 * ld + j];
          r[0][j] = static_cast<int16_t>(d0 - d2);
          r[1][j] = static_cast<int16_t>(d1 + d2);
          r[2][j] = static_cast<int16_t>(d2 - d1);
          r[3][j] = static_cast<int16_t>(d1 - d3);
        }
        for (int i = 0; i < 4; ++i) {
          int16_t* o = dst + 2 * k + i * 4 * point_stride;
          o[0] = static_cast<int16_t>(r[i][0] - r[i][2]);
          o[point_stride] = static_cast<int16_t>(r[i][1] + r[i][2]);
          o[2 * point_stride] = static_cast<int16_t>(r[i][2] - r[i][1]);
          o[3 * point_stride] = static_cast<int16_t>(r[i][1] - r[i][3]);
        }
      }
      t += run;
    }
  }
}

void WinogradS8OutputPortable(const int32_t* m, int64_t point_stride, int64_t stride, int64_t count, int32_t* acc) {
  for (int64_t t = 0; t < count; ++t) {
    uint32_t s[4][2];  // A^T M
    for (int j = 0; j < 4; ++j) {
      const uint32_t a = U32(m[j * point_stride + t]), b = U32(m[(4 + j) * point_stride + t]);
      const uint32_t c = U32(m[(8 + j) * point_stride + t]), d = U32(m[(12 + j) * point_stride + t]);
      s[j][0] = a + b + c;
      s[j][1] = b - c - d;
    }
    for (int i = 0; i < 2; ++i) {
      acc[2 * i * stride + t] = static_cast<int32_t>(s[0][i] + s[1][i] + s[2][i]) >> 2;
      acc[(2 * i + 1) * stride + t] = static_cast<int32_t>(s[1][i] - s[2][i] - s[3][i]) >> 2;
    }
  }
}

void WinogradS8GemmPortable(const int16_t* u, int64_t cout, int64_t cpairs, int64_t m0, int64_t rows, const int16_t* v,
                            int64_t stride, int64_t count, int32_t* m) {
  for (int p = 0; p < kPoints; ++p) {
    const int16_t* vp = v + p * cpairs * stride * 2;
    for (int64_t r = 0; r < rows; ++r) {
      const int16_t* ur = u + ((p * cout + m0 + r) * cpairs) * 2;
      int32_t* out = m + (p * kRows + r) * stride;
      for (int64_t t = 0; t < count; ++t) out[t] = 0;
      for (int64_t c = 0; c < cpairs; ++c) {
        const int32_t u0 = ur[2 * c], u1 = ur[2 * c + 1];
        const int16_t* vc = vp + c * stride * 2;
        for (int64_t t = 0; t < count; ++t) out[t] += u0 * vc[2 * t] + u1 * vc[2 * t + 1];
      }
    }
  }
}

}  // namespace internal
}  // namespace int8
}  // namespace loom
