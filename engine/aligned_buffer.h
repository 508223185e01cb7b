// A heap buffer aligned to kPlanAlignment (64 bytes), allocated without
// exceptions: Allocate() reports failure (e.g. an absurd arena size from a
// damaged plan) as a Status instead of throwing std::bad_alloc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>

#include "common/status.h"
#include "schemas/plan_format.h"

namespace loom {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  ~AlignedBuffer() { Release(); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  // Replaces the contents with `size` uninitialized bytes (at least one byte
  // is allocated, so data() is never null after a successful call).
  Status Allocate(size_t size, const char* what) {
    Release();
    void* p = ::operator new(size == 0 ? 1 : size, std::align_val_t(kPlanAlignment), std::nothrow);
    if (p == nullptr) {
      return Status::OutOfRange(std::string("cannot allocate ") + std::to_string(size) + " bytes for " + what);
    }
    data_ = static_cast<uint8_t*>(p);
    size_ = size;
    return Status::Ok();
  }

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void Release() {
    if (data_ != nullptr) ::operator delete(data_, std::align_val_t(kPlanAlignment), std::nothrow);
    data_ = nullptr;
    size_ = 0;
  }

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace loom
