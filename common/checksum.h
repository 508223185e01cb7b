// Fast 64-bit checksums for plan sections and model hashes.
//
// Checksum64 (model hashes; plan sections up to format 1.3): one chain. Each
// 8-byte word goes through a step h = mix((h ^ w) * P) that is a bijection of
// the running state for a fixed word and injective in the word for a fixed
// state, so changing any single word (hence any bit flip) always changes the
// result. Its speed is bounded by the latency of that chain (about 0.4 ms/MB).
//
// Checksum64x8 (plan sections from format 1.4): the same step on eight
// independent lanes, 8-byte word i going to lane i % 8, so the eight chains
// run in parallel (about 6x faster; with AVX2 as fast as memory reads). It keeps the single-word property:
//   - a changed word changes the state of its lane right after its step (the
//     step is injective in the word); the lane's later steps are bijections of
//     its state, so the lane's final state differs; the other lanes are equal;
//   - the lanes are then folded in order, r = mix((r ^ lane_l) * P), each fold
//     a bijection of r for a fixed lane and injective in the lane for a fixed
//     r, so the folded value is injective in every single lane with the other
//     lanes fixed: it differs;
//   - the trailing bytes (size % 8) and the final mixing follow as in
//     Checksum64 (injective in the tail, bijections after).
// P is odd, so multiplying by it is a bijection mod 2^64; x ^= x >> s is one
// too. The size enters the start values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace loom {
namespace checksum_internal {

constexpr uint64_t kPrime = 0x100000001b3ull;

inline uint64_t Step(uint64_t h, uint64_t w) {
  h = (h ^ w) * kPrime;
  return h ^ (h >> 29);
}

inline uint64_t LoadWord(const unsigned char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// The bytes [p, p + n), n < 8, as a little-endian word, and the final mixing.
inline uint64_t Finish(uint64_t h, const unsigned char* p, size_t n) {
  uint64_t tail = 0;
  for (size_t k = 0; k < n; ++k) tail |= static_cast<uint64_t>(p[k]) << (8 * k);
  h = (h ^ tail) * kPrime;
  h ^= h >> 32;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 29;
  return h;
}

}  // namespace checksum_internal

inline uint64_t Checksum64(const void* data, size_t size, uint64_t seed = 0x9e3779b97f4a7c15ull) {
  namespace ci = checksum_internal;
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t h = seed ^ (size * 0xff51afd7ed558ccdull);
  size_t i = 0;
  for (; i + 8 <= size; i += 8) h = ci::Step(h, ci::LoadWord(p + i));
  return ci::Finish(h, p + i, size - i);
}

// Checksum64x8 runs the lane loop with AVX2 where the CPU has it (checked at
// run time; same result: 64-bit multiplies built from 32-bit ones), portable
// C++ otherwise (checksum.cc).
uint64_t Checksum64x8(const void* data, size_t size, uint64_t seed = 0x9e3779b97f4a7c15ull);

// Checksum64x8 of `total_size` bytes handed over in pieces (Add, AddZeros),
// without holding them all in one buffer: the plan writer's constants
// section, constant by constant with the zeros between them.
class Checksum64x8Stream {
 public:
  explicit Checksum64x8Stream(size_t total_size, uint64_t seed = 0x9e3779b97f4a7c15ull);
  void Add(const void* data, size_t size);
  void AddZeros(size_t size);
  // Checksum64x8 of the bytes added, which must number total_size.
  uint64_t Finish();
  size_t added() const { return added_; }

 private:
  uint64_t lane_[8];
  unsigned char pending_[64];  // bytes of the current group of eight words
  size_t pending_bytes_ = 0;
  size_t added_ = 0;
};

namespace checksum_internal {
// The portable Checksum64x8, for tests that compare the two paths.
uint64_t Checksum64x8Portable(const void* data, size_t size, uint64_t seed = 0x9e3779b97f4a7c15ull);
}  // namespace checksum_internal

}  // namespace loom
