#include "common/checksum.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LOOM_CHECKSUM_AVX2 1
#endif

namespace loom {
namespace {

namespace ci = checksum_internal;
constexpr int kLanes = 8;
constexpr size_t kGroupBytes = 8 * kLanes;  // one word per lane

void StartLanes(size_t size, uint64_t seed, uint64_t* lane) {
  for (int l = 0; l < kLanes; ++l)
    lane[l] = seed ^ (size * 0xff51afd7ed558ccdull) ^ (0x9e3779b97f4a7c15ull * static_cast<uint64_t>(l + 1));
}

// Steps every lane through `groups` groups of eight words from p.
void StepGroups(uint64_t* lane, const unsigned char* p, size_t groups) {
  for (size_t g = 0; g < groups; ++g, p += kGroupBytes)
    for (int l = 0; l < kLanes; ++l) lane[l] = ci::Step(lane[l], ci::LoadWord(p + 8 * l));
}

#ifdef LOOM_CHECKSUM_AVX2
// Step() on four lanes: (h ^ w) * P with P = 2^40 + 0x1b3, as
// lo32(h) * 0x1b3 + (hi32(h) * 0x1b3 << 32) + (h << 40) mod 2^64; then h ^= h >> 29.
__attribute__((target("avx2"))) inline __m256i Step4(__m256i h, __m256i w) {
  static_assert(ci::kPrime == (1ull << 40) + 0x1b3, "Step4 hard-codes the prime");
  const __m256i low = _mm256_set1_epi64x(0x1b3);
  h = _mm256_xor_si256(h, w);
  const __m256i lo = _mm256_mul_epu32(h, low);
  const __m256i hi = _mm256_slli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(h, 32), low), 32);
  h = _mm256_add_epi64(_mm256_add_epi64(lo, hi), _mm256_slli_epi64(h, 40));
  return _mm256_xor_si256(h, _mm256_srli_epi64(h, 29));
}

__attribute__((target("avx2"))) void StepGroupsAvx2(uint64_t* lane, const unsigned char* p, size_t groups) {
  __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lane));
  __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lane + 4));
  for (size_t g = 0; g < groups; ++g, p += kGroupBytes) {
    a = Step4(a, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    b = Step4(b, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32)));
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(lane), a);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(lane + 4), b);
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

using StepGroupsFn = void (*)(uint64_t*, const unsigned char*, size_t);

StepGroupsFn BestStepGroups() {
#ifdef LOOM_CHECKSUM_AVX2
  if (HasAvx2()) return &StepGroupsAvx2;
#endif
  return &StepGroups;
}

// The words of the last partial group (fewer than 64 bytes), the lanes
// folded, then the trailing bytes.
uint64_t FinishLanes(uint64_t* lane, const unsigned char* p, size_t size) {
  size_t i = 0;
  for (int l = 0; i + 8 <= size; i += 8, ++l) lane[l] = ci::Step(lane[l], ci::LoadWord(p + i));
  uint64_t h = lane[0];
  for (int l = 1; l < kLanes; ++l) h = ci::Step(h, lane[l]);
  return ci::Finish(h, p + i, size - i);
}

uint64_t Checksum64x8With(StepGroupsFn step_groups, const void* data, size_t size, uint64_t seed) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t lane[kLanes];
  StartLanes(size, seed, lane);
  const size_t groups = size / kGroupBytes;
  step_groups(lane, p, groups);
  return FinishLanes(lane, p + groups * kGroupBytes, size - groups * kGroupBytes);
}

constexpr unsigned char kZeroGroup[kGroupBytes] = {};

}  // namespace

Checksum64x8Stream::Checksum64x8Stream(size_t total_size, uint64_t seed) { StartLanes(total_size, seed, lane_); }

void Checksum64x8Stream::Add(const void* data, size_t size) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  added_ += size;
  if (pending_bytes_ > 0) {  // complete the pending group first
    const size_t take = std::min(size, kGroupBytes - pending_bytes_);
    std::memcpy(pending_ + pending_bytes_, p, take);
    pending_bytes_ += take;
    p += take;
    size -= take;
    if (pending_bytes_ < kGroupBytes) return;
    StepGroups(lane_, pending_, 1);
    pending_bytes_ = 0;
  }
  const size_t groups = size / kGroupBytes;
  BestStepGroups()(lane_, p, groups);
  pending_bytes_ = size - groups * kGroupBytes;
  std::memcpy(pending_, p + groups * kGroupBytes, pending_bytes_);
}

void Checksum64x8Stream::AddZeros(size_t size) {
  while (size > 0) {
    const size_t n = std::min(size, kGroupBytes);
    Add(kZeroGroup, n);
    size -= n;
  }
}

uint64_t Checksum64x8Stream::Finish() { return FinishLanes(lane_, pending_, pending_bytes_); }

uint64_t checksum_internal::Checksum64x8Portable(const void* data, size_t size, uint64_t seed) {
  return Checksum64x8With(&StepGroups, data, size, seed);
}

uint64_t Checksum64x8(const void* data, size_t size, uint64_t seed) {
  return Checksum64x8With(BestStepGroups(), data, size, seed);
}

}  // namespace loom
