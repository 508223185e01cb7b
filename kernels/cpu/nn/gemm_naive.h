// Plain matrix product for the integer dtypes of MatMul and Gemm:
// C(i, j) = sum_k op(A)(i, k) * op(B)(k, j), with wrap-around integer
// arithmetic as numpy does (computed in the unsigned type, so no signed
// overflow). Not a hot path: real models multiply floats.
#pragma once

#include <cstdint>
#include <type_traits>

namespace loom {
namespace nn {

template <typename T>
void NaiveMatMul(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, bool trans_a, const T* b, int64_t ldb,
                 bool trans_b, T* c, int64_t ldc) {
  using U = std::make_unsigned_t<T>;
  for (int64_t i = 0; i < m; ++i) {
    T* crow = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) crow[j] = T(0);
    for (int64_t kk = 0; kk < k; ++kk) {
      const U av = static_cast<U>(trans_a ? a[kk * lda + i] : a[i * lda + kk]);
      for (int64_t j = 0; j < n; ++j) {
        const U bv = static_cast<U>(trans_b ? b[j * ldb + kk] : b[kk * ldb + j]);
        crow[j] = static_cast<T>(static_cast<U>(static_cast<U>(crow[j]) + av * bv));
      }
    }
  }
}

}  // namespace nn
}  // namespace loom
