#include "kernels/cpu/tensor/strided_copy.h"

#include <cstring>

namespace loom {
namespace tensor {
namespace {

constexpr int64_t kTile = 16;
constexpr int64_t kBytesPerTask = int64_t{1} << 16;

template <typename T>
void FillRow(char* dst, const char* src, int64_t n) {
  T v;
  std::memcpy(&v, src, sizeof(T));
  T* d = reinterpret_cast<T*>(dst);
  for (int64_t i = 0; i < n; ++i) d[i] = v;
}

template <typename T>
void StridedRow(char* dst, int64_t dst_stride, const char* src, int64_t src_stride, int64_t n) {
  T* d = reinterpret_cast<T*>(dst);
  const T* s = reinterpret_cast<const T*>(src);
  for (int64_t i = 0; i < n; ++i) d[i * dst_stride] = s[i * src_stride];
}

template <typename T>
void Tile(char* dst, int64_t dst_stride_a, const char* src, int64_t src_stride_b, int64_t a_count, int64_t b_count) {
  // dst[a * dst_stride_a + b] = src[a + b * src_stride_b]
  T* d = reinterpret_cast<T*>(dst);
  const T* s = reinterpret_cast<const T*>(src);
  for (int64_t b0 = 0; b0 < b_count; b0 += kTile) {
    const int64_t b1 = b0 + kTile < b_count ? b0 + kTile : b_count;
    for (int64_t a = 0; a < a_count; ++a) {
      T* drow = d + a * dst_stride_a;
      const T* scol = s + a;
      for (int64_t b = b0; b < b1; ++b) drow[b] = scol[b * src_stride_b];
    }
  }
}

// Elements of the same byte size are copied as unsigned integers of that size.
template <template <typename> class Fn, typename... Args>
void BySize(size_t elem_size, Args... args) {
  switch (elem_size) {
    case 1:
      Fn<uint8_t>::Call(args...);
      return;
    case 2:
      Fn<uint16_t>::Call(args...);
      return;
    case 4:
      Fn<uint32_t>::Call(args...);
      return;
    default:
      Fn<uint64_t>::Call(args...);
      return;
  }
}

template <typename T>
struct FillRowFn {
  static void Call(char* d, const char* s, int64_t n) { FillRow<T>(d, s, n); }
};
template <typename T>
struct StridedRowFn {
  static void Call(char* d, int64_t ds, const char* s, int64_t ss, int64_t n) { StridedRow<T>(d, ds, s, ss, n); }
};
template <typename T>
struct TileFn {
  static void Call(char* d, int64_t dsa, const char* s, int64_t ssb, int64_t na, int64_t nb) {
    Tile<T>(d, dsa, s, ssb, na, nb);
  }
};

}  // namespace

bool StridedCopy::Build(int rank, const int64_t* dims, const int64_t* src_strides, const int64_t* dst_strides,
                        size_t elem_size) {
  if (rank < 0 || rank > kMaxDims || !(elem_size == 1 || elem_size == 2 || elem_size == 4 || elem_size == 8))
    return false;
  elem_size_ = elem_size;
  num_elements_ = 1;
  for (int d = 0; d < rank; ++d) num_elements_ *= dims[d];
  if (num_elements_ == 0) {
    kind_ = Kind::kEmpty;
    rank_ = 0;
    return true;
  }
  // Drop unit dims, then merge each dim into its inner neighbour when both
  // sides are contiguous across the pair.
  rank_ = 0;
  for (int d = 0; d < rank; ++d) {
    if (dims[d] == 1) continue;
    dims_[rank_] = dims[d];
    src_strides_[rank_] = src_strides[d];
    dst_strides_[rank_] = dst_strides[d];
    ++rank_;
  }
  if (rank_ == 0) {
    rank_ = 1;
    dims_[0] = 1;
    src_strides_[0] = 1;
    dst_strides_[0] = 1;
  }
  int out = rank_ - 1;
  for (int d = rank_ - 2; d >= 0; --d) {
    if (src_strides_[d] == src_strides_[out] * dims_[out] && dst_strides_[d] == dst_strides_[out] * dims_[out]) {
      dims_[out] *= dims_[d];
    } else {
      --out;
      dims_[out] = dims_[d];
      src_strides_[out] = src_strides_[d];
      dst_strides_[out] = dst_strides_[d];
    }
  }
  const int kept = rank_ - out;
  for (int d = 0; d < kept; ++d) {
    dims_[d] = dims_[d + out];
    src_strides_[d] = src_strides_[d + out];
    dst_strides_[d] = dst_strides_[d + out];
  }
  rank_ = kept;

  const int last = rank_ - 1;
  tile_dim_ = -1;
  if (dst_strides_[last] == 1 && src_strides_[last] == 1) {
    kind_ = Kind::kRows;
  } else if (src_strides_[last] == 0) {
    kind_ = Kind::kBroadcast;
  } else {
    kind_ = Kind::kStrided;
    if (dst_strides_[last] == 1 && dims_[last] >= 4) {
      for (int d = 0; d < last; ++d) {
        if (src_strides_[d] == 1 && dims_[d] >= 4) tile_dim_ = d;
      }
      if (tile_dim_ >= 0) kind_ = Kind::kTile2D;
    }
  }
  return true;
}

void StridedCopy::Run(ThreadPool* pool, const void* src, void* dst) const {
  if (kind_ == Kind::kEmpty) return;
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  if (kind_ == Kind::kTile2D) {
    RunTile2D(pool, s, d);
  } else {
    RunRowsLike(pool, s, d);
  }
}

void StridedCopy::RunRowsLike(ThreadPool* pool, const char* src, char* dst) const {
  const int last = rank_ - 1;
  const int64_t row_len = dims_[last];
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= dims_[d];
  const int64_t row_bytes = row_len * static_cast<int64_t>(elem_size_);
  const int64_t grain = row_bytes >= kBytesPerTask ? 1 : kBytesPerTask / (row_bytes > 0 ? row_bytes : 1);
  const int64_t es = static_cast<int64_t>(elem_size_);

  ParallelFor(pool, rows, grain, [&](int64_t begin, int64_t end, int) {
    int64_t idx[kMaxDims];
    int64_t src_off = 0;
    int64_t dst_off = 0;
    int64_t rem = begin;
    for (int dim = last - 1; dim >= 0; --dim) {
      idx[dim] = rem % dims_[dim];
      rem /= dims_[dim];
      src_off += idx[dim] * src_strides_[dim];
      dst_off += idx[dim] * dst_strides_[dim];
    }
    for (int64_t row = begin; row < end; ++row) {
      const char* sp = src + src_off * es;
      char* dp = dst + dst_off * es;
      switch (kind_) {
        case Kind::kRows:
          std::memcpy(dp, sp, static_cast<size_t>(row_bytes));
          break;
        case Kind::kBroadcast:
          BySize<FillRowFn>(elem_size_, dp, sp, row_len);
          break;
        default:
          BySize<StridedRowFn>(elem_size_, dp, dst_strides_[last], sp, src_strides_[last], row_len);
          break;
      }
      for (int dim = last - 1; dim >= 0; --dim) {
        src_off += src_strides_[dim];
        dst_off += dst_strides_[dim];
        if (++idx[dim] < dims_[dim]) break;
        src_off -= src_strides_[dim] * dims_[dim];
        dst_off -= dst_strides_[dim] * dims_[dim];
        idx[dim] = 0;
      }
    }
  });
}

void StridedCopy::RunTile2D(ThreadPool* pool, const char* src, char* dst) const {
  // Work item = (index over the dims other than tile_dim_ and last) x (a block
  // of kTile indices of tile_dim_). Each item copies a kTile x dims_[last] strip.
  const int last = rank_ - 1;
  const int q = tile_dim_;
  const int64_t a_blocks = (dims_[q] + kTile - 1) / kTile;
  int64_t outer = 1;
  for (int d = 0; d < last; ++d)
    if (d != q) outer *= dims_[d];
  const int64_t es = static_cast<int64_t>(elem_size_);
  const int64_t strip_bytes = kTile * dims_[last] * es;
  const int64_t grain = strip_bytes >= kBytesPerTask ? 1 : kBytesPerTask / strip_bytes;

  ParallelFor(pool, outer * a_blocks, grain, [&](int64_t begin, int64_t end, int) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t block = item % a_blocks;
      int64_t rem = item / a_blocks;
      int64_t src_off = 0;
      int64_t dst_off = 0;
      for (int dim = last - 1; dim >= 0; --dim) {
        if (dim == q) continue;
        const int64_t i = rem % dims_[dim];
        rem /= dims_[dim];
        src_off += i * src_strides_[dim];
        dst_off += i * dst_strides_[dim];
      }
      const int64_t a0 = block * kTile;
      const int64_t a_count = a0 + kTile <= dims_[q] ? kTile : dims_[q] - a0;
      src_off += a0;  // source stride of q is 1
      dst_off += a0 * dst_strides_[q];
      BySize<TileFn>(elem_size_, dst + dst_off * es, dst_strides_[q], src + src_off * es, src_strides_[last], a_count,
                     dims_[last]);
    }
  });
}

bool BuildPermute(const Shape& src_shape, const int64_t* perm, size_t elem_size, StridedCopy* plan) {
  const int rank = static_cast<int>(src_shape.size());
  if (rank > StridedCopy::kMaxDims) return false;
  const Shape src_strides = StridesOf(src_shape);
  int64_t dims[StridedCopy::kMaxDims];
  int64_t ss[StridedCopy::kMaxDims];
  for (int d = 0; d < rank; ++d) {
    dims[d] = src_shape[static_cast<size_t>(perm[d])];
    ss[d] = src_strides[static_cast<size_t>(perm[d])];
  }
  int64_t ds[StridedCopy::kMaxDims];
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    ds[d] = stride;
    stride *= dims[d];
  }
  return plan->Build(rank, dims, ss, ds, elem_size);
}

}  // namespace tensor
}  // namespace loom
