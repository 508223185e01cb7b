// The body of the Winograd tile transforms (conv_winograd_transform.h),
// included once by each per-ISA file inside its target pragma and an
// anonymous namespace: plain loops over contiguous channels that the compiler
// vectorizes for that file's ISA. Not a public header.
//
// 1-D transforms (Lavin & Gray's matrices), applied to rows, then columns:
//   F(4,3) input  B^T: [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0;
//                       0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1]
//   F(4,3) output A^T: [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
//   F(2,3) input  B^T: [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]
//   F(2,3) output A^T: [1 1 1 0; 0 1 -1 -1]

constexpr int64_t kChannelBlock = 64;  // channels transformed per pass (stack buffers)

// d[j * ds + c] = sum_k BT[j][k] * s[k * ss + c], c < n.
template <int M>
inline void Input1D(const float* __restrict s, int64_t ss, float* __restrict d, int64_t ds, int64_t n) {
  if (M == 4) {
    for (int64_t c = 0; c < n; ++c) {
      const float d0 = s[c], d1 = s[ss + c], d2 = s[2 * ss + c], d3 = s[3 * ss + c], d4 = s[4 * ss + c],
                  d5 = s[5 * ss + c];
      d[c] = 4.f * d0 - 5.f * d2 + d4;
      d[ds + c] = -4.f * (d1 + d2) + (d3 + d4);
      d[2 * ds + c] = 4.f * (d1 - d2) + (d4 - d3);
      d[3 * ds + c] = 2.f * (d3 - d1) + (d4 - d2);
      d[4 * ds + c] = 2.f * (d1 - d3) + (d4 - d2);
      d[5 * ds + c] = 4.f * d1 - 5.f * d3 + d5;
    }
  } else {
    for (int64_t c = 0; c < n; ++c) {
      const float d0 = s[c], d1 = s[ss + c], d2 = s[2 * ss + c], d3 = s[3 * ss + c];
      d[c] = d0 - d2;
      d[ds + c] = d1 + d2;
      d[2 * ds + c] = d2 - d1;
      d[3 * ds + c] = d1 - d3;
    }
  }
}

// d[i * ds + c] = sum_k AT[i][k] * s[k * ss + c], c < n.
template <int M>
inline void Output1D(const float* __restrict s, int64_t ss, float* __restrict d, int64_t ds, int64_t n) {
  if (M == 4) {
    for (int64_t c = 0; c < n; ++c) {
      const float m0 = s[c], m1 = s[ss + c], m2 = s[2 * ss + c], m3 = s[3 * ss + c], m4 = s[4 * ss + c],
                  m5 = s[5 * ss + c];
      const float a = m1 + m2, b = m1 - m2, e = m3 + m4, f = m3 - m4;
      d[c] = m0 + a + e;
      d[ds + c] = b + 2.f * f;
      d[2 * ds + c] = a + 4.f * e;
      d[3 * ds + c] = b + 8.f * f + m5;
    }
  } else {
    for (int64_t c = 0; c < n; ++c) {
      const float m0 = s[c], m1 = s[ss + c], m2 = s[2 * ss + c], m3 = s[3 * ss + c];
      d[c] = m0 + m1 + m2;
      d[ds + c] = m1 - m2 - m3;
    }
  }
}

template <int M>
void InputTiles(const float* const* src, int64_t tiles, int64_t row_stride, int64_t channels, float* v,
                int64_t point_stride) {
  constexpr int A = M + 2;
  alignas(64) float tmp[A * A * kChannelBlock];
  for (int64_t t = 0; t < tiles; ++t) {
    for (int64_t c0 = 0; c0 < channels; c0 += kChannelBlock) {
      const int64_t n = channels - c0 < kChannelBlock ? channels - c0 : kChannelBlock;
      // Rows: tmp[r][j] = B^T applied along the row r of the window.
      for (int r = 0; r < A; ++r)
        Input1D<M>(src[t] + r * row_stride + c0, channels, tmp + r * A * kChannelBlock, kChannelBlock, n);
      // Columns: point (i, j) = B^T applied down column j of tmp.
      float* out = v + t * channels + c0;
      for (int j = 0; j < A; ++j)
        Input1D<M>(tmp + j * kChannelBlock, A * kChannelBlock, out + j * point_stride, A * point_stride, n);
    }
  }
}

// B: the channel block of y (1 or 8; kChannelBlock is a multiple of 8).
template <int M, int B>
void OutputTiles(const float* mm, int64_t tiles, int64_t point_stride, int64_t channels, const float* bias,
                 const Activation& act, const WinogradTileDst* dst, int64_t plane, int64_t width, float* y) {
  constexpr int A = M + 2;
  alignas(64) float tmp[A * M * kChannelBlock];
  alignas(64) float out[M * M * kChannelBlock];
  for (int64_t t = 0; t < tiles; ++t) {
    const WinogradTileDst& td = dst[t];
    for (int64_t c0 = 0; c0 < channels; c0 += kChannelBlock) {
      const int64_t n = channels - c0 < kChannelBlock ? channels - c0 : kChannelBlock;
      const float* in = mm + t * channels + c0;
      // Rows: tmp[i][jj] = A^T applied along row i of the A x A points.
      for (int i = 0; i < A; ++i)
        Output1D<M>(in + i * A * point_stride, point_stride, tmp + i * M * kChannelBlock, kChannelBlock, n);
      // Columns: out[ii][jj] = A^T applied down column jj of tmp.
      for (int jj = 0; jj < M; ++jj)
        Output1D<M>(tmp + jj * kChannelBlock, M * kChannelBlock, out + jj * kChannelBlock, M * kChannelBlock, n);
      for (int q = 0; q < M * M; ++q) {
        float* o = out + q * kChannelBlock;
        if (bias)
          for (int64_t c = 0; c < n; ++c) o[c] += bias[c0 + c];
        ApplyActivation(act, o, n);
      }
      if (B == 1) {
        for (int64_t c = 0; c < n; ++c) {
          float* yc = y + (c0 + c) * plane + td.offset;
          for (int i = 0; i < td.rows; ++i)
            for (int j = 0; j < td.cols; ++j) yc[i * width + j] = out[(i * M + j) * kChannelBlock + c];
        }
        continue;
      }
      // Blocked: each point's B channels are contiguous in y.
      for (int64_t c = 0; c < n; c += B) {
        float* yc = y + (c0 + c) * plane + td.offset * B;
        for (int i = 0; i < td.rows; ++i)
          for (int j = 0; j < td.cols; ++j) {
            const float* o = out + (i * M + j) * kChannelBlock + c;
            float* d = yc + (i * width + j) * B;
            for (int k = 0; k < B; ++k) d[k] = o[k];
          }
      }
    }
  }
}

void InputTransform(int m, const float* const* src, int64_t tiles, int64_t row_stride, int64_t channels, float* v,
                    int64_t point_stride) {
  if (m == 4) {
    InputTiles<4>(src, tiles, row_stride, channels, v, point_stride);
  } else {
    InputTiles<2>(src, tiles, row_stride, channels, v, point_stride);
  }
}

void OutputTransform(int m, const float* mm, int64_t tiles, int64_t point_stride, int64_t channels, const float* bias,
                     const Activation& act, const WinogradTileDst* dst, int64_t plane, int64_t width, int64_t block,
                     float* y) {
  if (block == 8) {
    if (m == 4) {
      OutputTiles<4, 8>(mm, tiles, point_stride, channels, bias, act, dst, plane, width, y);
    } else {
      OutputTiles<2, 8>(mm, tiles, point_stride, channels, bias, act, dst, plane, width, y);
    }
  } else if (m == 4) {
    OutputTiles<4, 1>(mm, tiles, point_stride, channels, bias, act, dst, plane, width, y);
  } else {
    OutputTiles<2, 1>(mm, tiles, point_stride, channels, bias, act, dst, plane, width, y);
  }
}

constexpr WinogradTransformFns kTransforms = {InputTransform, OutputTransform};
