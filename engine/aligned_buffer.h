// A buffer aligned to kPlanAlignment (64 bytes) whose allocation failure
// (e.g. an absurd size from a damaged plan) is a Status, not an exception.
// Large buffers go on huge pages where the system grants them
// (kernels/common/aligned_block.h): fewer page faults on first touch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>

#include "common/status.h"
#include "kernels/common/aligned_block.h"
#include "schemas/plan_format.h"

namespace loom {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  // Replaces the contents with `size` uninitialized bytes (at least one byte
  // is allocated, so data() is never null after a successful call).
  Status Allocate(size_t size, const char* what) {
    static_assert(kPlanAlignment <= kAlignedBlockAlignment, "AllocateAlignedBlock aligns to 64 bytes");
    block_.reset();
    size_ = 0;
    try {
      block_ = AllocateAlignedBlock(size == 0 ? 1 : size);
    } catch (const std::bad_alloc&) {
      return Status::OutOfRange(std::string("cannot allocate ") + std::to_string(size) + " bytes for " + what);
    }
    size_ = size;
    return Status::Ok();
  }

  uint8_t* data() { return static_cast<uint8_t*>(block_.get()); }
  const uint8_t* data() const { return static_cast<const uint8_t*>(block_.get()); }
  size_t size() const { return size_; }

 private:
  std::shared_ptr<void> block_;
  size_t size_ = 0;
};

}  // namespace loom
