// The bytes of a plan file and its checked layout (schemas/plan_format.h).
//
// A file is mapped read-only (no copy: the constants section is used in
// place); a buffer is copied into 64-byte-aligned memory. Either way the
// header is checked before anything else is trusted, in this order:
//   magic, format version (a major version outside 1..kPlanFormatMajor is
//   refused with a message naming both versions), header size, section offsets and sizes
//   inside the file, constants_offset % 64 == 0, zero padding between and
//   after sections, then the checksums of the metadata and of the constants
//   (the algorithm of the header's format major: PlanSectionChecksum in
//   schemas/plan_checksum.h; Checksum64 in 1.x, Checksum64x8 from 2.0).
// The engine defers the constants section's checksum (kByCaller): a 2.2
// plan with Plan.constant_checksums has its constants checked one by one
// once the kernels have said which they read (engine.cc); other plans get
// CheckConstants() before any kernel reads them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"
#include "engine/aligned_buffer.h"

namespace loom {

// Where the sections of a plan lie, as read from its header.
struct PlanLayout {
  uint16_t format_major = 0;
  uint16_t format_minor = 0;
  uint64_t metadata_offset = 0;
  uint64_t metadata_bytes = 0;
  uint64_t constants_offset = 0;
  uint64_t constants_bytes = 0;
  uint64_t constants_checksum = 0;  // the header's, of the whole section
};

// Whether opening a plan checks the constants section's checksum, or leaves
// it to the caller (CheckConstants, or the constants' own checksums).
enum class ConstantsCheck { kWholeSection, kByCaller };

// Checks the header and the checksums of the plan bytes [data, data+size)
// (the constants section's only with kWholeSection). `data` must be 8-byte
// aligned.
Status CheckPlanBytes(const uint8_t* data, size_t size, PlanLayout* layout,
                      ConstantsCheck constants_check = ConstantsCheck::kWholeSection);
// The constants section's checksum against the header's.
Status CheckConstantsSection(const uint8_t* data, const PlanLayout& layout);

class PlanFile {
 public:
  ~PlanFile();
  PlanFile(const PlanFile&) = delete;
  PlanFile& operator=(const PlanFile&) = delete;

  // Maps `path` and checks it. Errors name the file.
  static Status Open(const std::string& path, std::unique_ptr<PlanFile>* out,
                     ConstantsCheck constants_check = ConstantsCheck::kWholeSection);
  // Copies [data, data+size) into aligned memory and checks it.
  static Status FromBuffer(const void* data, size_t size, std::unique_ptr<PlanFile>* out,
                           ConstantsCheck constants_check = ConstantsCheck::kWholeSection);
  // The constants section's checksum (for a file opened with kByCaller).
  Status CheckConstants() const;

  const PlanLayout& layout() const { return layout_; }
  const uint8_t* metadata() const { return data_ + layout_.metadata_offset; }
  size_t metadata_bytes() const { return static_cast<size_t>(layout_.metadata_bytes); }
  // 64-byte aligned; valid for the PlanFile's lifetime.
  const uint8_t* constants() const { return data_ + layout_.constants_offset; }
  size_t constants_bytes() const { return static_cast<size_t>(layout_.constants_bytes); }
  size_t file_bytes() const { return size_; }

 private:
  PlanFile() = default;

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;  // non-null when data_ is an mmap of a file
  AlignedBuffer copy_;       // holds data_ otherwise
  PlanLayout layout_;
};

}  // namespace loom
