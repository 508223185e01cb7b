// Checksum64 and Checksum64x8 (checksum.h): pinned values (plan files of
// every format version keep verifying), and the single-word guarantee tested
// with every single-bit flip of buffers of many sizes (across the lane
// groups, the leftover words and the trailing bytes), and with single-word
// replacements by random values; the AVX2 and portable paths agree; the
// stream over pieces equals the one-shot value.
#include "common/checksum.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace loom {
namespace {

using ChecksumFn = uint64_t (*)(const void*, size_t, uint64_t);

std::vector<unsigned char> Pattern(size_t n) {
  std::vector<unsigned char> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>(i * 37 + 11);
  return b;
}

TEST(ChecksumTest, PinnedValues) {
  const std::vector<unsigned char> b = Pattern(1000);
  const size_t sizes[] = {0, 1, 7, 8, 13, 64, 1000};
  // Checksum64 as plan formats 1.0 .. 1.3 and model hashes use it.
  const uint64_t v1[] = {0x50a3f71e7e23ce73ull, 0xe7df02c016f6ae88ull, 0x94996726d3145fd3ull, 0x22603e932f72ed03ull,
                         0xa882e60c6487ee48ull, 0x805d2b628c4a4ee7ull, 0x8f268658e635f59bull};
  // Checksum64x8 as plan format 2.0 uses it.
  const uint64_t v8[] = {0x385f15d5aaf6789eull, 0xd3be48de76e38750ull, 0x1a015f8c3b3b0bccull, 0x01748b836a59de53ull,
                         0xe0b569b9f0109f0eull, 0x71d5d79ec9b47f55ull, 0xe89f0e099dc3616cull};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    EXPECT_EQ(Checksum64(b.data(), sizes[i]), v1[i]) << sizes[i];
    EXPECT_EQ(Checksum64x8(b.data(), sizes[i]), v8[i]) << sizes[i];
    EXPECT_EQ(checksum_internal::Checksum64x8Portable(b.data(), sizes[i]), v8[i]) << sizes[i];
  }
}

void ExpectEveryBitFlipChanges(ChecksumFn fn, const char* name) {
  std::mt19937 gen(3);
  for (size_t size = 0; size <= 200; ++size) {
    std::vector<unsigned char> b(size);
    for (unsigned char& c : b) c = static_cast<unsigned char>(gen());
    const uint64_t base = fn(b.data(), size, 0x9e3779b97f4a7c15ull);
    for (size_t i = 0; i < size; ++i)
      for (int bit = 0; bit < 8; ++bit) {
        b[i] ^= static_cast<unsigned char>(1u << bit);
        ASSERT_NE(fn(b.data(), size, 0x9e3779b97f4a7c15ull), base)
            << name << " size " << size << " byte " << i << " bit " << bit;
        b[i] ^= static_cast<unsigned char>(1u << bit);
      }
  }
}

TEST(ChecksumTest, EverySingleBitFlipChangesTheResult) {
  ExpectEveryBitFlipChanges(&Checksum64, "Checksum64");
  ExpectEveryBitFlipChanges(&Checksum64x8, "Checksum64x8");
  ExpectEveryBitFlipChanges(&checksum_internal::Checksum64x8Portable, "Checksum64x8Portable");
}

// The AVX2 lane loop (where the CPU has it) and the portable one agree on
// random bytes of every size across several lane groups, at odd offsets.
TEST(ChecksumTest, DispatchedAndPortableLaneLoopsAgree) {
  std::mt19937_64 gen(5);
  std::vector<unsigned char> b(4096 + 16);
  for (unsigned char& c : b) c = static_cast<unsigned char>(gen());
  for (size_t offset : {0, 3}) {
    for (size_t size = 0; size <= 600; ++size)
      ASSERT_EQ(Checksum64x8(b.data() + offset, size, size),
                checksum_internal::Checksum64x8Portable(b.data() + offset, size, size))
          << "size " << size << " offset " << offset;
    ASSERT_EQ(Checksum64x8(b.data() + offset, 4096, 7),
              checksum_internal::Checksum64x8Portable(b.data() + offset, 4096, 7));
  }
}

TEST(ChecksumTest, EverySingleWordChangeChangesTheResult) {
  std::mt19937_64 gen(11);
  const size_t size = 4096 + 8 * 5 + 3;  // whole lane groups, five leftover words, three tail bytes
  std::vector<unsigned char> b(size);
  for (unsigned char& c : b) c = static_cast<unsigned char>(gen());
  for (ChecksumFn fn : {&Checksum64, &Checksum64x8}) {
    const uint64_t base = fn(b.data(), size, 1);
    for (size_t at = 0; at + 8 <= size; at += 8) {
      const std::vector<unsigned char> saved(b.begin() + at, b.begin() + at + 8);
      for (int trial = 0; trial < 4; ++trial) {
        uint64_t w = gen();
        if (std::memcmp(&w, saved.data(), 8) == 0) w ^= 1;
        std::memcpy(b.data() + at, &w, 8);
        ASSERT_NE(fn(b.data(), size, 1), base) << "word at " << at;
      }
      std::memcpy(b.data() + at, saved.data(), 8);
    }
  }
}

TEST(ChecksumTest, DependsOnTheSizeAndTheWordOrder) {
  std::vector<unsigned char> b = Pattern(256);
  for (ChecksumFn fn : {&Checksum64, &Checksum64x8}) {
    EXPECT_NE(fn(b.data(), 255, 0), fn(b.data(), 256, 0));
    std::vector<unsigned char> swapped = b;
    // Words 0 and 1 (different lanes of Checksum64x8) exchanged.
    for (int i = 0; i < 8; ++i) std::swap(swapped[i], swapped[8 + i]);
    EXPECT_NE(fn(b.data(), b.size(), 0), fn(swapped.data(), swapped.size(), 0));
  }
}

// The stream gives Checksum64x8 of the concatenated pieces, however they are
// cut (pieces of any length, zeros added separately).
TEST(ChecksumTest, StreamMatchesOneShot) {
  std::mt19937 rng(3);
  for (size_t size : {0, 5, 64, 100, 1000, 4099}) {
    std::vector<unsigned char> b = Pattern(size);
    for (size_t i = 0; i < size; i += 97) std::fill(b.begin() + i, b.begin() + std::min(size, i + 30), 0);
    for (int trial = 0; trial < 20; ++trial) {
      Checksum64x8Stream stream(size);
      size_t at = 0;
      while (at < size) {
        const size_t n = std::min(size - at, static_cast<size_t>(rng() % 150));
        const bool zeros = std::all_of(b.begin() + at, b.begin() + at + n, [](unsigned char c) { return c == 0; });
        if (zeros && rng() % 2) {
          stream.AddZeros(n);
        } else {
          stream.Add(b.data() + at, n);
        }
        at += n;
      }
      EXPECT_EQ(stream.added(), size);
      EXPECT_EQ(stream.Finish(), Checksum64x8(b.data(), size)) << size << " trial " << trial;
    }
  }
}

}  // namespace
}  // namespace loom
