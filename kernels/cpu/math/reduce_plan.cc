#include "kernels/cpu/math/reduce_plan.h"

namespace loom {
namespace math {

void BuildReducePlan(const int64_t* shape, int rank, const bool* mask, ReducePlan* plan) {
  *plan = ReducePlan();
  int64_t strides[kMaxRank];
  int64_t stride = 1;
  plan->in_size = 1;
  plan->out_size = 1;
  for (int d = rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape[d];
    plan->in_size *= shape[d];
    if (mask[d]) {
      plan->count *= shape[d];
    } else {
      plan->out_size *= shape[d];
    }
  }
  int last_kind = -1;  // 0 kept, 1 reduced
  for (int d = 0; d < rank; ++d) {
    if (shape[d] == 1) continue;
    const int kind = mask[d] ? 1 : 0;
    int& n = kind ? plan->num_reduced : plan->num_kept;
    int64_t* dims = kind ? plan->reduced_dims : plan->kept_dims;
    int64_t* strs = kind ? plan->reduced_strides : plan->kept_strides;
    if (kind == last_kind) {  // merge with the previous dim of this kind
      dims[n - 1] *= shape[d];
      strs[n - 1] = strides[d];
    } else {
      dims[n] = shape[d];
      strs[n] = strides[d];
      ++n;
    }
    last_kind = kind;
  }
  plan->last_reduced = last_kind == 1;
  if (plan->num_kept == 0 && !plan->last_reduced) {  // nothing left: a single element
    plan->num_kept = 1;
    plan->kept_dims[0] = 1;
    plan->kept_strides[0] = 1;
  }
}

bool AxesToMask(const int64_t* axes, int64_t num_axes, int rank, bool noop_with_empty_axes, bool* mask,
                std::string* error) {
  for (int d = 0; d < rank; ++d) mask[d] = num_axes == 0 && !noop_with_empty_axes;
  for (int64_t i = 0; i < num_axes; ++i) {
    int64_t axis = 0;
    if (!NormalizeAxis(axes[i], rank, &axis)) {
      *error = "axis " + std::to_string(axes[i]) + " out of range for rank " + std::to_string(rank);
      return false;
    }
    if (mask[axis]) {
      *error = "axis " + std::to_string(axes[i]) + " appears twice";
      return false;
    }
    mask[axis] = true;
  }
  return true;
}

int ReducedShape(const int64_t* shape, int rank, const bool* mask, bool keepdims, int64_t* out_dims) {
  int n = 0;
  for (int d = 0; d < rank; ++d) {
    if (!mask[d]) {
      out_dims[n++] = shape[d];
    } else if (keepdims) {
      out_dims[n++] = 1;
    }
  }
  return n;
}

}  // namespace math
}  // namespace loom
