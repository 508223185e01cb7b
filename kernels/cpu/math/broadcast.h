// Multidirectional (numpy) broadcasting for elementwise kernels with N inputs.
//
// A kernel builds a BroadcastPlan in Prepare from its input shapes and the
// output shape. Output dims of size 1 are dropped, and adjacent dims are
// merged when every input either spans both or is broadcast along both. What
// remains is a few outer dims plus one innermost run in which each input
// either advances one element per output element (step 1) or stays on one
// element (step 0: a scalar for that run). Run then walks the output in such
// runs, so the kernel's inner loop is a plain contiguous loop, or a
// vector-scalar loop:
//
//   [N,C,H,W] + [1,C,1,1]  ->  outer dims [N, C], runs of H*W, bias is a scalar per run
//   [4,5] + [5]            ->  outer dim [4], runs of 5, both inputs step 1
//   [2,3] * [2,3]          ->  one run of 6
//
// The plan is plain data (no heap), so Run can also build one on the fly.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "kernels/cpu/math/math_util.h"

namespace loom {
namespace math {

class BroadcastPlan {
 public:
  static constexpr int kMaxInputs = 8;

  // The numpy broadcast of `shapes` (dims aligned on the right; each pair
  // equal, or one of them 1). False if the shapes are incompatible.
  static bool BroadcastShapes(const std::vector<Shape>& shapes, Shape* out);

  // Plans inputs of `in_shapes` broadcast to `out_shape`. Returns false and
  // sets *error when an input does not broadcast to out_shape, or there are
  // more than kMaxInputs inputs or more than kMaxRank dims.
  bool Init(const std::vector<Shape>& in_shapes, const Shape& out_shape, std::string* error);

  int num_inputs() const { return num_inputs_; }
  int64_t size() const { return size_; }
  // Length of the innermost run and the per-element step (0 or 1) of input i in it.
  int64_t inner() const { return dims_[rank_ - 1]; }
  int step(int i) const { return static_cast<int>(strides_[i][rank_ - 1]); }

  // Calls fn(out_offset, in_offsets, count) for consecutive runs covering the
  // output elements [begin, end). in_offsets[i] is the element offset of input
  // i at out_offset; within the run input i advances by step(i).
  template <typename Fn>
  void ForRange(int64_t begin, int64_t end, Fn&& fn) const;

  // Whether the collapsed output is [outer, rows, period] (outer may be 1)
  // where input `repeated` holds one period per outer index, the same for
  // every row (element strides [period, 0, 1]), and every other input spans
  // the output contiguously. A channel-blocked tensor [N, C/8, H, W, 8]
  // times a per-channel [N, C/8, 1, 1, 8] is such a case, with runs of only
  // 8: kernels then repeat the period into a longer run themselves.
  bool RepeatedPeriod(int* repeated, int64_t* outer, int64_t* rows, int64_t* period) const;

 private:
  int num_inputs_ = 0;
  int rank_ = 1;  // collapsed rank, >= 1
  int64_t size_ = 0;
  int64_t dims_[kMaxRank] = {1};
  int64_t strides_[kMaxInputs][kMaxRank] = {};  // element strides, 0 where broadcast
};

template <typename Fn>
void BroadcastPlan::ForRange(int64_t begin, int64_t end, Fn&& fn) const {
  if (begin >= end) return;
  const int64_t inner = dims_[rank_ - 1];
  int64_t idx[kMaxRank];
  int64_t base[kMaxInputs];
  int64_t off[kMaxInputs];
  int64_t outer = begin / inner;
  int64_t pos = begin % inner;
  for (int i = 0; i < num_inputs_; ++i) base[i] = 0;
  for (int d = rank_ - 2; d >= 0; --d) {
    idx[d] = outer % dims_[d];
    outer /= dims_[d];
    for (int i = 0; i < num_inputs_; ++i) base[i] += idx[d] * strides_[i][d];
  }
  int64_t cur = begin;
  for (;;) {
    for (int i = 0; i < num_inputs_; ++i) off[i] = base[i] + pos * strides_[i][rank_ - 1];
    const int64_t len = std::min(inner - pos, end - cur);
    fn(cur, static_cast<const int64_t*>(off), len);
    cur += len;
    if (cur >= end) return;
    pos = 0;
    for (int d = rank_ - 2; d >= 0; --d) {  // odometer over the outer dims
      ++idx[d];
      for (int i = 0; i < num_inputs_; ++i) base[i] += strides_[i][d];
      if (idx[d] < dims_[d]) break;
      idx[d] = 0;
      for (int i = 0; i < num_inputs_; ++i) base[i] -= dims_[d] * strides_[i][d];
    }
  }
}

}  // namespace math
}  // namespace loom
