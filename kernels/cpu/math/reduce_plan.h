// The iteration plan of a reduction over a set of axes.
//
// Dims of size 1 are dropped and neighbouring dims of the same kind (both
// kept or both reduced) are merged, leaving alternating kept / reduced dims.
// Two loop shapes cover every case:
//   - the last dim is reduced: each output reduces contiguous runs of that
//     dim (one run per position of the other reduced dims);
//   - the last dim is kept: each output row of that dim accumulates input
//     rows elementwise, one per reduced position (a vectorizable loop).
// The plan is plain data, so Run can build one when axes arrive at run time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "kernels/cpu/math/math_util.h"

namespace loom {
namespace math {

struct ReducePlan {
  int num_kept = 0;  // collapsed kept dims, in order
  int64_t kept_dims[kMaxRank] = {};
  int64_t kept_strides[kMaxRank] = {};  // input element strides
  int num_reduced = 0;                  // collapsed reduced dims, in order
  int64_t reduced_dims[kMaxRank] = {};
  int64_t reduced_strides[kMaxRank] = {};
  bool last_reduced = false;  // innermost collapsed dim is reduced
  int64_t in_size = 0;
  int64_t out_size = 0;
  int64_t count = 1;  // elements reduced into each output
};

// Builds the plan for an input of `rank` dims `shape` reduced over the dims
// where mask[d] is true.
void BuildReducePlan(const int64_t* shape, int rank, const bool* mask, ReducePlan* plan);

// Validates `axes` (each in [-rank, rank), no duplicates) and sets mask[d]
// (which must hold `rank` entries). An empty list reduces every dim unless
// `noop_with_empty_axes`. Returns false with *error set on a bad axis.
bool AxesToMask(const int64_t* axes, int64_t num_axes, int rank, bool noop_with_empty_axes, bool* mask,
                std::string* error);

// Output dims of a reduction: reduced dims become 1 (keepdims) or vanish.
// Writes up to `rank` dims into out_dims and returns their count.
int ReducedShape(const int64_t* shape, int rank, const bool* mask, bool keepdims, int64_t* out_dims);

// Calls fn(offset) for every position of the first `n` reduced dims of
// `plan`, offset being the input element offset of that position.
template <typename Fn>
void ForEachReducedOffset(const ReducePlan& plan, int n, Fn&& fn) {
  int64_t idx[kMaxRank];
  for (int d = 0; d < n; ++d) {
    if (plan.reduced_dims[d] == 0) return;
    idx[d] = 0;
  }
  int64_t off = 0;
  for (;;) {
    fn(off);
    int d = n - 1;
    for (; d >= 0; --d) {
      ++idx[d];
      off += plan.reduced_strides[d];
      if (idx[d] < plan.reduced_dims[d]) break;
      off -= plan.reduced_dims[d] * plan.reduced_strides[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// Input element offset of output position `o` over the first `n` kept dims.
inline int64_t KeptOffset(const ReducePlan& plan, int n, int64_t o) {
  int64_t off = 0;
  for (int d = n - 1; d >= 0; --d) {
    const int64_t dim = plan.kept_dims[d];
    off += (o % dim) * plan.kept_strides[d];
    o /= dim;
  }
  return off;
}

}  // namespace math
}  // namespace loom
