// The AVX2 loops of add_mul_avx2.h: 32 elements per step (four vectors of
// eight int32 lanes), the last partial step through a buffer.
// Compiled with function-level target attributes only, and called only when
// the CPU has AVX2.
#if defined(__x86_64__) || defined(__i386__)

#include "kernels/cpu/int8/add_mul_avx2.h"

#include <immintrin.h>

#include <cstring>

#include "kernels/cpu/int8/requantize_avx2.h"

namespace loom {
namespace int8 {
namespace internal {
namespace {

struct Term8 {
  __m256i mul_high, mul_low, low_bias, bias, negative_below;
  __m128i right;
};

LOOM_AVX2 inline Term8 MakeTerm8(const AddTerm& t) {
  return {_mm256_set1_epi32(t.mul_high), _mm256_set1_epi32(t.mul_low),        _mm256_set1_epi32(t.low_bias),
          _mm256_set1_epi32(t.bias),     _mm256_set1_epi32(t.negative_below), _mm_cvtsi32_si128(t.right)};
}

// EvalAddTerm in eight lanes; kSimple when mul_low and right are 0 (the
// input of the larger scale: multiplier 2^30, shift 0), where the low part
// is (0 + 1024) >> 11 = 0.
template <bool kSimple>
LOOM_AVX2 inline __m256i Term(__m256i q, const Term8& t) {
  __m256i high = _mm256_add_epi32(_mm256_mullo_epi32(q, t.mul_high), t.bias);
  if (kSimple) return high;
  high = _mm256_add_epi32(high, _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(q, t.mul_low), t.low_bias), 11));
  high = _mm256_add_epi32(high, _mm256_cmpgt_epi32(t.negative_below, q));  // − [q < negative_below]
  return _mm256_sra_epi32(high, t.right);
}

// Eight int8 values at p as int32 lanes.
LOOM_AVX2 inline __m256i Load8(const int8_t* p) {
  return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}

// v0..v3 (elements 0-7, ..., 24-31, before the zero point) plus the zero
// point, clamped to [lo, hi], stored as 32 int8 values.
LOOM_AVX2 inline void Store32(__m256i v0, __m256i v1, __m256i v2, __m256i v3, __m256i zero_point16, __m256i lo,
                              __m256i hi, int8_t* y) {
  const __m256i w0 = _mm256_adds_epi16(_mm256_packs_epi32(v0, v1), zero_point16);
  const __m256i w1 = _mm256_adds_epi16(_mm256_packs_epi32(v2, v3), zero_point16);
  // Bytes in groups of four: v0[0-3] v1[0-3] v2[0-3] v3[0-3] | v0[4-7] v1[4-7] v2[4-7] v3[4-7].
  __m256i b = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(w0, w1), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  b = _mm256_min_epi8(_mm256_max_epi8(b, lo), hi);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), b);
}

// y[i] = clamp(zp + op(a[i], b[i])) for 32 elements; op maps eight int32
// lanes of each input to the int32 results before the zero point.
template <typename Op>
LOOM_AVX2 inline void Step(const Op& op, const int8_t* a, const int8_t* b, __m256i zero_point16, __m256i lo, __m256i hi,
                           int8_t* y) {
  Store32(op(Load8(a), Load8(b)), op(Load8(a + 8), Load8(b + 8)), op(Load8(a + 16), Load8(b + 16)),
          op(Load8(a + 24), Load8(b + 24)), zero_point16, lo, hi, y);
}

// Step over the whole run, the last partial step through a buffer.
template <typename Op>
LOOM_AVX2 inline void Loop(const OutputSteps& output, const int8_t* a, const int8_t* b, int8_t* y, int64_t n, Op op) {
  const OutputSteps::FixedPoint& f = output.fixed_point();
  const __m256i zero_point16 = _mm256_set1_epi16(static_cast<int16_t>(f.zero_point[0]));
  const __m256i lo = _mm256_set1_epi8(static_cast<int8_t>(f.lo[0] + f.zero_point[0]));
  const __m256i hi = _mm256_set1_epi8(static_cast<int8_t>(f.hi[0] + f.zero_point[0]));
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) Step(op, a + i, b + i, zero_point16, lo, hi, y + i);
  if (i < n) {
    const size_t rest = static_cast<size_t>(n - i);
    alignas(32) int8_t ta[32] = {}, tb[32] = {}, ty[32];
    std::memcpy(ta, a + i, rest);
    std::memcpy(tb, b + i, rest);
    Step(op, ta, tb, zero_point16, lo, hi, ty);
    std::memcpy(y + i, ty, rest);
  }
}

template <bool kSimpleA, bool kSimpleB>
struct AddOp8 {
  Term8 a, b;
  Stage8 s;
  LOOM_AVX2 __m256i operator()(__m256i qa, __m256i qb) const {
    const __m256i sum = _mm256_add_epi32(Term<kSimpleA>(qa, a), Term<kSimpleB>(qb, b));
    return RoundingShift8(RoundingHighMul8(sum, s.multiplier), s);
  }
};

struct MulOp8 {
  __m256i a_zero_point, b_zero_point;
  Stage8 s;
  LOOM_AVX2 __m256i operator()(__m256i qa, __m256i qb) const {
    const __m256i product = _mm256_mullo_epi32(_mm256_sub_epi32(qa, a_zero_point), _mm256_sub_epi32(qb, b_zero_point));
    return MultiplyByQuantizedMultiplier8(product, s);
  }
};

template <bool kSimpleA, bool kSimpleB>
LOOM_AVX2 void AddLoop(const AddTerm& term_a, const AddTerm& term_b, const OutputSteps& output, const int8_t* a,
                       const int8_t* b, int8_t* y, int64_t n) {
  const AddOp8<kSimpleA, kSimpleB> op{MakeTerm8(term_a), MakeTerm8(term_b), OneChannel(output.fixed_point(), 0)};
  Loop(output, a, b, y, n, op);
}

bool Simple(const AddTerm& t) { return t.mul_low == 0 && t.right == 0; }

}  // namespace

LOOM_AVX2 void AddAvx2(const AddTerm& term_a, const AddTerm& term_b, const OutputSteps& output, const int8_t* a,
                       const int8_t* b, int8_t* y, int64_t n) {
  if (Simple(term_a) && Simple(term_b)) {
    AddLoop<true, true>(term_a, term_b, output, a, b, y, n);
  } else if (Simple(term_a)) {
    AddLoop<true, false>(term_a, term_b, output, a, b, y, n);
  } else if (Simple(term_b)) {
    AddLoop<false, true>(term_a, term_b, output, a, b, y, n);
  } else {
    AddLoop<false, false>(term_a, term_b, output, a, b, y, n);
  }
}

LOOM_AVX2 void MulAvx2(int32_t a_zero_point, int32_t b_zero_point, const OutputSteps& output, const int8_t* a,
                       const int8_t* b, int8_t* y, int64_t n) {
  const MulOp8 op{_mm256_set1_epi32(a_zero_point), _mm256_set1_epi32(b_zero_point),
                  OneChannel(output.fixed_point(), 0)};
  Loop(output, a, b, y, n, op);
}

}  // namespace internal
}  // namespace int8
}  // namespace loom

#endif  // x86
