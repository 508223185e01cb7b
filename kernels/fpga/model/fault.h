// Fault: a device error as the accelerator reports it — the ERROR register's
// code plus a human-readable detail for logs and tests — and the field checks
// every unit shares. A Fault is the device's answer to a bad command stream,
// not a failure of the model: AccelModel::Run returns Ok and reports it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {

struct Fault {
  contract::ErrorCode code = contract::ErrorCode::kNone;
  std::string detail;  // e.g. "input row 70000 past the input buffer (4096 rows)"

  bool ok() const { return code == contract::ErrorCode::kNone; }
  static Fault Ok() { return Fault(); }
  static Fault Of(contract::ErrorCode code, std::string detail) { return Fault{code, std::move(detail)}; }
};

// Returns the Fault of `expr` from the caller when it is not ok.
#define LOOM_RETURN_IF_FAULT(expr)       \
  do {                                   \
    ::loom::fpga::Fault fault_ = (expr); \
    if (!fault_.ok()) return fault_;     \
  } while (0)

// BAD_FIELD naming the first field whose value is 0 (sizes, kernels, strides
// and dilations must be at least 1).
Fault AtLeastOne(std::initializer_list<std::pair<const char*, uint32_t>> fields);

// SRAM_RANGE unless rows [first, first + count) lie inside a buffer of
// `buffer_rows` rows: "<what> row <last> past the <buffer> buffer (<rows> rows)".
Fault RowsInside(const char* what, uint64_t first, uint64_t count, const char* buffer, uint32_t buffer_rows);

// MISALIGNED unless value is a multiple of alignment (the configuration's
// dram_alignment).
Fault DramAligned(const char* what, uint64_t value, uint32_t alignment);

// BAD_FIELD unless a requantization shift is in [-31, 31], the range
// requant::MultiplyByQuantizedMultiplier is defined for.
Fault ShiftInRange(const char* what, int32_t shift);

}  // namespace fpga
}  // namespace loom
