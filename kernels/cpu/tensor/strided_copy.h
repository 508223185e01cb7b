// A generic N-d strided copy, the engine behind Transpose, Slice, Expand, Tile,
// Concat, Split, DepthToSpace and SpaceToDepth:
//   for every index i in dims: dst[sum(i_d * dst_strides_d)] = src[sum(i_d * src_strides_d)]
// Strides are in elements and may be negative (Slice with negative steps) or
// zero on the source side (broadcast).
//
// Build() drops unit dims, merges dims that are contiguous on both sides, and
// picks the inner loop:
//   kRows        inner dim contiguous on both sides: one memcpy per row
//   kBroadcast   inner source stride 0: fill each row with one element
//   kTile2D      the source's unit-stride dim is not the destination's inner
//                dim (a real transpose): copy 16x16 tiles so that reads and
//                writes both stay within a few cache lines
//   kStrided     anything else: an element loop with strides
// The plan is a fixed-size value without heap storage, so a kernel may build
// one in Run when it depends on runtime inputs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/common/parallel.h"
#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {

class StridedCopy {
 public:
  static constexpr int kMaxDims = 2 * kMaxRank;
  enum class Kind { kEmpty, kRows, kBroadcast, kTile2D, kStrided };

  // Returns false if rank exceeds kMaxDims or elem_size is 0.
  bool Build(int rank, const int64_t* dims, const int64_t* src_strides, const int64_t* dst_strides, size_t elem_size);
  // Copies from src (element 0 of the source view) to dst (element 0 of the
  // destination view).
  void Run(ThreadPool* pool, const void* src, void* dst) const;

  Kind kind() const { return kind_; }
  int rank() const { return rank_; }  // after simplification
  int64_t num_elements() const { return num_elements_; }

 private:
  void RunRowsLike(ThreadPool* pool, const char* src, char* dst) const;
  void RunTile2D(ThreadPool* pool, const char* src, char* dst) const;

  Kind kind_ = Kind::kEmpty;
  int rank_ = 0;
  size_t elem_size_ = 0;
  int64_t num_elements_ = 0;
  int64_t dims_[kMaxDims] = {};
  int64_t src_strides_[kMaxDims] = {};
  int64_t dst_strides_[kMaxDims] = {};
  int tile_dim_ = -1;  // kTile2D: the dim with source stride 1
};

// Convenience: copies a dense source tensor of `src_shape` through a
// permutation (output dim d = input dim perm[d]) into a dense destination.
bool BuildPermute(const Shape& src_shape, const int64_t* perm, size_t elem_size, StridedCopy* plan);

}  // namespace tensor
}  // namespace loom
