#include "kernels/common/matmul_shape.h"

#include <algorithm>

namespace loom {

Status PlanMatMul(const KernelSetup& setup, const Shape& a, const Shape& b, MatMulShape* out) {
  if (a.empty() || b.empty()) return setup.Invalid("inputs must have at least 1 dim (got scalars)");
  Shape as = a, bs = b;
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  if (a_vec) as.insert(as.begin(), 1);
  if (b_vec) bs.push_back(1);
  MatMulShape p;
  p.m = as[as.size() - 2];
  p.k = as.back();
  p.n = bs.back();
  if (bs[bs.size() - 2] != p.k)
    return setup.Invalid("inner dims differ: A " + ShapeToString(a) + ", B " + ShapeToString(b));
  const size_t ab = as.size() - 2, bb = bs.size() - 2, rank = std::max(ab, bb);
  Shape batch(rank), a_batch(rank, 1), b_batch(rank, 1);
  for (size_t i = 0; i < ab; ++i) a_batch[rank - ab + i] = as[i];
  for (size_t i = 0; i < bb; ++i) b_batch[rank - bb + i] = bs[i];
  for (size_t i = 0; i < rank; ++i) {
    if (a_batch[i] != b_batch[i] && a_batch[i] != 1 && b_batch[i] != 1)
      return setup.Invalid("batch dims do not broadcast: A " + ShapeToString(a) + ", B " + ShapeToString(b));
    batch[i] = a_batch[i] == 1 ? b_batch[i] : a_batch[i];
  }
  p.output = batch;
  if (!a_vec) p.output.push_back(p.m);
  if (!b_vec) p.output.push_back(p.n);
  p.batches = NumElements(batch);
  p.b_matrices = NumElements(b_batch);

  if (p.b_matrices == 1) {
    p.fold = p.batches;
    p.a_offset.push_back(0);
    p.b_offset.push_back(0);
  } else {
    std::vector<int64_t> idx(rank, 0);
    for (int64_t t = 0; t < p.batches; ++t) {
      int64_t ao = 0, bo = 0, astr = p.m * p.k, bstr = p.k * p.n;
      for (size_t i = rank; i-- > 0;) {
        if (a_batch[i] != 1) ao += idx[i] * astr;
        if (b_batch[i] != 1) bo += idx[i] * bstr;
        astr *= a_batch[i];
        bstr *= b_batch[i];
      }
      p.a_offset.push_back(ao);
      p.b_offset.push_back(bo);
      for (size_t i = rank; i-- > 0;) {
        if (++idx[i] < batch[i]) break;
        idx[i] = 0;
      }
    }
  }
  *out = std::move(p);
  return Status::Ok();
}

}  // namespace loom
