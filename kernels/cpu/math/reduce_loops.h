// The loops of the Reduce* kernels (reduce.cc) over every numeric dtype,
// instantiated by group of ops in reduce_fns_*.cc so that the instantiations
// (ten dtypes times ten reducers) compile in parallel.
//
// Each op is a "reducer": Init, Map (per element), Combine, Finish. Integer
// sums and products wrap; Mean of integers truncates; L2 and the log ops on
// integers are computed in double. ReduceLogSumExp subtracts the maximum
// before exponentiating. Two loops (reduce_plan.h): the last dim reduced
// (contiguous runs, 8 partial accumulators) or kept (rows accumulated
// elementwise in column blocks).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "kernels/cpu/math/reduce_plan.h"

namespace loom {
namespace math {
namespace reduce {

// Wide accumulator for integer means.
template <typename T>
using WideType =
    std::conditional_t<std::is_floating_point_v<T>, T, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

template <typename T, typename A = T>
struct SumBase {
  using Acc = A;
  static constexpr bool kShift = false;
  static Acc Init() { return Acc(0); }
  static Acc Combine(Acc a, Acc b) { return WrapAdd(a, b); }
};

template <typename T>
struct SumR : SumBase<T> {
  static T Map(T x, T) { return x; }
  static T Finish(T a, int64_t, T) { return a; }
};

template <typename T>
struct MeanR : SumBase<T, WideType<T>> {
  using Acc = WideType<T>;
  static Acc Map(T x, Acc) { return static_cast<Acc>(x); }
  static T Finish(Acc a, int64_t count, Acc) {
    if constexpr (std::is_integral_v<T>) {
      if (count == 0) return T(0);
    }
    return static_cast<T>(a / static_cast<Acc>(count));
  }
};

template <typename T>
struct L1R : SumBase<T> {
  static T Map(T x, T) { return AbsValue(x); }
  static T Finish(T a, int64_t, T) { return a; }
};

template <typename T>
struct SumSquareR : SumBase<T> {
  static T Map(T x, T) { return WrapMul(x, x); }
  static T Finish(T a, int64_t, T) { return a; }
};

template <typename T>
struct L2R : SumBase<T, ComputeType<T>> {
  using Acc = ComputeType<T>;
  static Acc Map(T x, Acc) { return static_cast<Acc>(x) * static_cast<Acc>(x); }
  static T Finish(Acc a, int64_t, Acc) { return ConvertTo<T>(std::sqrt(a)); }
};

template <typename T>
struct LogSumR : SumBase<T, ComputeType<T>> {
  using Acc = ComputeType<T>;
  static Acc Map(T x, Acc) { return static_cast<Acc>(x); }
  static T Finish(Acc a, int64_t, Acc) { return ConvertTo<T>(std::log(a)); }
};

template <typename T>
struct LogSumExpR : SumBase<T, ComputeType<T>> {
  using Acc = ComputeType<T>;
  static constexpr bool kShift = true;  // Map/Finish take the maximum as shift
  static Acc Map(T x, Acc shift) { return std::exp(static_cast<Acc>(x) - shift); }
  static T Finish(Acc a, int64_t, Acc shift) { return ConvertTo<T>(shift + std::log(a)); }
};

template <typename T>
struct ProdR {
  using Acc = T;
  static constexpr bool kShift = false;
  static T Init() { return T(1); }
  static T Map(T x, T) { return x; }
  static T Combine(T a, T b) { return WrapMul(a, b); }
  static T Finish(T a, int64_t, T) { return a; }
};

template <typename T>
struct MaxR {
  using Acc = T;
  static constexpr bool kShift = false;
  static T Init() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  }
  static T Map(T x, T) { return x; }
  static T Combine(T a, T b) { return (a > b || a != a) ? a : b; }
  static T Finish(T a, int64_t, T) { return a; }
};

template <typename T>
struct MinR {
  using Acc = T;
  static constexpr bool kShift = false;
  static T Init() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  }
  static T Map(T x, T) { return x; }
  static T Combine(T a, T b) { return (a < b || a != a) ? a : b; }
  static T Finish(T a, int64_t, T) { return a; }
};

// Reduces n contiguous elements with 8 partial accumulators (vectorizable).
template <typename R, typename T>
typename R::Acc ReduceRun(const T* x, int64_t n, typename R::Acc shift) {
  using Acc = typename R::Acc;
  constexpr int kLanes = 8;
  Acc part[kLanes];
  for (int j = 0; j < kLanes; ++j) part[j] = R::Init();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) part[j] = R::Combine(part[j], R::Map(x[i + j], shift));
  }
  Acc acc = R::Init();
  for (int j = 0; j < kLanes; ++j) acc = R::Combine(acc, part[j]);
  for (; i < n; ++i) acc = R::Combine(acc, R::Map(x[i], shift));
  return acc;
}

// A finite shift for LogSumExp (an infinite or NaN maximum needs none).
template <typename A>
A SafeShift(A max) {
  return std::isfinite(max) ? max : A(0);
}

// Last dim reduced: outputs [begin, end), each over contiguous runs.
template <typename T, typename R>
void ReduceLastDim(const ReducePlan& p, const void* xv, void* yv, int64_t begin, int64_t end) {
  using Acc = typename R::Acc;
  const T* x = static_cast<const T*>(xv);
  T* y = static_cast<T*>(yv);
  const int middle = p.num_reduced - 1;
  const int64_t run = p.reduced_dims[middle];
  for (int64_t o = begin; o < end; ++o) {
    const T* base = x + KeptOffset(p, p.num_kept, o);
    Acc shift = Acc(0);
    if constexpr (R::kShift) {
      Acc m = MaxR<Acc>::Init();
      ForEachReducedOffset(p, middle, [&](int64_t off) {
        for (int64_t i = 0; i < run; ++i) m = MaxR<Acc>::Combine(m, static_cast<Acc>(base[off + i]));
      });
      shift = SafeShift(m);
    }
    Acc acc = R::Init();
    ForEachReducedOffset(p, middle, [&](int64_t off) { acc = R::Combine(acc, ReduceRun<R>(base + off, run, shift)); });
    y[o] = R::Finish(acc, p.count, shift);
  }
}

constexpr int64_t kColumnBlock = 256;

// Last dim kept: tasks [begin, end) of (output row, column block).
template <typename T, typename R>
void ReduceKeptDim(const ReducePlan& p, const void* xv, void* yv, int64_t begin, int64_t end) {
  using Acc = typename R::Acc;
  const T* x = static_cast<const T*>(xv);
  T* y = static_cast<T*>(yv);
  const int64_t cols = p.kept_dims[p.num_kept - 1];
  const int64_t blocks = (cols + kColumnBlock - 1) / kColumnBlock;
  Acc acc[kColumnBlock];
  Acc shift[kColumnBlock];
  for (int64_t t = begin; t < end; ++t) {
    const int64_t row = t / blocks;
    const int64_t c0 = (t % blocks) * kColumnBlock;
    const int64_t n = std::min(kColumnBlock, cols - c0);
    const T* base = x + KeptOffset(p, p.num_kept - 1, row) + c0;
    for (int64_t j = 0; j < n; ++j) {
      acc[j] = R::Init();
      shift[j] = Acc(0);
    }
    if constexpr (R::kShift) {
      for (int64_t j = 0; j < n; ++j) shift[j] = MaxR<Acc>::Init();
      ForEachReducedOffset(p, p.num_reduced, [&](int64_t off) {
        const T* in = base + off;
        for (int64_t j = 0; j < n; ++j) shift[j] = MaxR<Acc>::Combine(shift[j], static_cast<Acc>(in[j]));
      });
      for (int64_t j = 0; j < n; ++j) shift[j] = SafeShift(shift[j]);
      ForEachReducedOffset(p, p.num_reduced, [&](int64_t off) {
        const T* in = base + off;
        for (int64_t j = 0; j < n; ++j) acc[j] = R::Combine(acc[j], R::Map(in[j], shift[j]));
      });
    } else {
      bool fixed8 = false;
      if constexpr (std::is_same_v<T, float>) {
        // Rows of 8 floats (a channel-blocked tensor's global pooling, [N,
        // C/8, H, W, 8] over H and W): a fixed width the compiler keeps in
        // registers.
        fixed8 = n == 8;
        if (fixed8 && p.num_reduced == 1 && p.reduced_strides[0] == 8) {
          // The reduced rows are one contiguous run (H and W merged): four
          // partial rows, so that four additions per lane are in flight.
          Acc part[4][8];
          for (int k = 0; k < 4; ++k)
            for (int j = 0; j < 8; ++j) part[k][j] = R::Init();
          const int64_t rows = p.reduced_dims[0];
          int64_t r = 0;
          for (; r + 4 <= rows; r += 4)
            for (int k = 0; k < 4; ++k)
              for (int j = 0; j < 8; ++j) part[k][j] = R::Combine(part[k][j], R::Map(base[(r + k) * 8 + j], Acc(0)));
          for (; r < rows; ++r)
            for (int j = 0; j < 8; ++j) part[0][j] = R::Combine(part[0][j], R::Map(base[r * 8 + j], Acc(0)));
          for (int j = 0; j < 8; ++j)
            acc[j] = R::Combine(R::Combine(part[0][j], part[1][j]), R::Combine(part[2][j], part[3][j]));
        } else if (fixed8) {
          ForEachReducedOffset(p, p.num_reduced, [&](int64_t off) {
            const T* in = base + off;
            for (int j = 0; j < 8; ++j) acc[j] = R::Combine(acc[j], R::Map(in[j], Acc(0)));
          });
        }
      }
      if (!fixed8) {
        ForEachReducedOffset(p, p.num_reduced, [&](int64_t off) {
          const T* in = base + off;
          for (int64_t j = 0; j < n; ++j) acc[j] = R::Combine(acc[j], R::Map(in[j], Acc(0)));
        });
      }
    }
    T* out = y + row * cols + c0;
    for (int64_t j = 0; j < n; ++j) out[j] = R::Finish(acc[j], p.count, shift[j]);
  }
}

// Outputs of a reduction over an empty set.
template <typename T, typename R>
void FillEmpty(void* yv, int64_t n) {
  using Acc = typename R::Acc;
  T* y = static_cast<T*>(yv);
  const T v = R::Finish(R::Init(), 0, Acc(0));
  for (int64_t i = 0; i < n; ++i) y[i] = v;
}

using ReduceFn = void (*)(const ReducePlan& p, const void* x, void* y, int64_t begin, int64_t end);
using FillFn = void (*)(void* y, int64_t n);

struct ReduceFns {
  ReduceFn last = nullptr;
  ReduceFn kept = nullptr;
  FillFn fill = nullptr;
};

template <typename T, template <typename> class R>
ReduceFns MakeFns() {
  return {&ReduceLastDim<T, R<T>>, &ReduceKeptDim<T, R<T>>, &FillEmpty<T, R<T>>};
}

// When op is `name`: sets *known_op, and *fns to R's loops over the C++
// type of `dtype` if that is numeric (then returns true).
template <template <typename> class R>
bool SelectReduceFns(const char* name, const std::string& op, DType dtype, ReduceFns* fns, bool* known_op) {
  if (op != name) return false;
  *known_op = true;
  return VisitType<kNumericTypes>(dtype, [&](auto tag) { *fns = MakeFns<decltype(tag), R>(); });
}

// The two groups of reductions, each in its own file: ReduceSum, ReduceMean,
// ReduceL1, ReduceL2, ReduceSumSquare (reduce_fns_sum.cc); ReduceMax,
// ReduceMin, ReduceProd, ReduceLogSum, ReduceLogSumExp (reduce_fns_other.cc).
// Each returns true with *fns set when op is in its group and dtype numeric,
// and sets *known_op when op is in its group.
bool SelectSumReduceFns(const std::string& op, DType dtype, ReduceFns* fns, bool* known_op);
bool SelectOtherReduceFns(const std::string& op, DType dtype, ReduceFns* fns, bool* known_op);

}  // namespace reduce
}  // namespace math
}  // namespace loom
