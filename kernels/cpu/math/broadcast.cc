#include "kernels/cpu/math/broadcast.h"

namespace loom {
namespace math {

bool BroadcastPlan::BroadcastShapes(const std::vector<Shape>& shapes, Shape* out) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  Shape result(rank, 1);
  for (const Shape& s : shapes) {
    const size_t lead = rank - s.size();
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t& r = result[lead + d];
      const int64_t v = s[d];
      if (v < 0) return false;
      if (v == r || v == 1) continue;
      if (r != 1) return false;
      r = v;
    }
  }
  *out = std::move(result);
  return true;
}

bool BroadcastPlan::Init(const std::vector<Shape>& in_shapes, const Shape& out_shape, std::string* error) {
  const int n = static_cast<int>(in_shapes.size());
  const int rank = static_cast<int>(out_shape.size());
  if (n > kMaxInputs) {
    *error = "more than " + std::to_string(kMaxInputs) + " broadcast inputs";
    return false;
  }
  if (rank > kMaxRank) {
    *error = "rank " + std::to_string(rank) + " exceeds " + std::to_string(kMaxRank);
    return false;
  }
  num_inputs_ = n;
  size_ = NumElements(out_shape);
  if (size_ < 0) {
    *error = "invalid output shape " + ShapeToString(out_shape);
    return false;
  }

  // Element strides of each input, aligned to the output's dims (0 = broadcast).
  int64_t in_strides[kMaxInputs][kMaxRank];
  for (int i = 0; i < n; ++i) {
    const Shape& s = in_shapes[i];
    const int in_rank = static_cast<int>(s.size());
    if (in_rank > rank) {
      *error = "input " + std::to_string(i) + " of shape " + ShapeToString(s) + " does not broadcast to " +
               ShapeToString(out_shape);
      return false;
    }
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int sd = d - (rank - in_rank);
      const int64_t dim = sd >= 0 ? s[sd] : 1;
      if (dim != out_shape[d] && dim != 1) {
        *error = "input " + std::to_string(i) + " of shape " + ShapeToString(s) + " does not broadcast to " +
                 ShapeToString(out_shape);
        return false;
      }
      in_strides[i][d] = dim == 1 ? 0 : stride;
      stride *= dim;
    }
  }

  // Drop output dims of size 1; merge neighbours with the same broadcast pattern.
  rank_ = 0;
  for (int d = 0; d < rank; ++d) {
    if (out_shape[d] == 1) continue;
    bool merge = rank_ > 0;
    for (int i = 0; i < n && merge; ++i) {
      merge = (strides_[i][rank_ - 1] == 0) == (in_strides[i][d] == 0);
    }
    if (merge) {
      dims_[rank_ - 1] *= out_shape[d];
      for (int i = 0; i < n; ++i) strides_[i][rank_ - 1] = in_strides[i][d];
    } else {
      dims_[rank_] = out_shape[d];
      for (int i = 0; i < n; ++i) strides_[i][rank_] = in_strides[i][d];
      ++rank_;
    }
  }
  if (rank_ == 0) {  // scalar output (or all dims 1)
    rank_ = 1;
    dims_[0] = 1;
    for (int i = 0; i < n; ++i) strides_[i][0] = 0;
  }
  return true;
}

bool BroadcastPlan::RepeatedPeriod(int* repeated, int64_t* outer, int64_t* rows, int64_t* period) const {
  if (rank_ < 2 || rank_ > 3) return false;
  const int r = rank_ - 2;  // the rows dim
  const int64_t p = dims_[rank_ - 1], m = dims_[r];
  int found = -1;
  for (int i = 0; i < num_inputs_; ++i) {
    const int64_t* st = strides_[i];
    const bool outer_ok = rank_ == 2 || st[0] == (st[r] == 0 ? p : m * p);
    if (st[rank_ - 1] != 1 || !outer_ok) return false;
    if (st[r] == 0) {
      if (found >= 0) return false;
      found = i;
    } else if (st[r] != p) {
      return false;
    }
  }
  if (found < 0) return false;
  *repeated = found;
  *outer = rank_ == 3 ? dims_[0] : 1;
  *rows = m;
  *period = p;
  return true;
}

}  // namespace math
}  // namespace loom
