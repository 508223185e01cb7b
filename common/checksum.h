// A fast 64-bit checksum for plan sections and model hashes. Each 8-byte word
// goes through a step that is a bijection of the running state, so changing
// any single word (hence any bit flip) always changes the result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace loom {

inline uint64_t Checksum64(const void* data, size_t size, uint64_t seed = 0x9e3779b97f4a7c15ull) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t h = seed ^ (size * 0xff51afd7ed558ccdull);
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  uint64_t tail = 0;
  for (size_t k = 0; i + k < size; ++k) tail |= static_cast<uint64_t>(p[i + k]) << (8 * k);
  h = (h ^ tail) * 0x100000001b3ull;
  h ^= h >> 32;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 29;
  return h;
}

}  // namespace loom
