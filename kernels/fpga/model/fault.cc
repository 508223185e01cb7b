#include "kernels/fpga/model/fault.h"

#include <sstream>

namespace loom {
namespace fpga {

using contract::ErrorCode;

Fault AtLeastOne(std::initializer_list<std::pair<const char*, uint32_t>> fields) {
  for (const auto& [name, value] : fields) {
    if (value == 0) return Fault::Of(ErrorCode::kBadField, std::string(name) + " is 0, must be at least 1");
  }
  return Fault::Ok();
}

Fault RowsInside(const char* what, uint64_t first, uint64_t count, const char* buffer, uint32_t buffer_rows) {
  if (first + count <= buffer_rows) return Fault::Ok();
  std::ostringstream m;
  m << what << " row " << first + count - 1 << " past the " << buffer << " buffer (" << buffer_rows << " rows)";
  return Fault::Of(ErrorCode::kSramRange, m.str());
}

Fault DramAligned(const char* what, uint64_t value, uint32_t alignment) {
  if (value % alignment == 0) return Fault::Ok();
  std::ostringstream m;
  m << what << " 0x" << std::hex << value << std::dec << " is not a multiple of " << alignment;
  return Fault::Of(ErrorCode::kMisaligned, m.str());
}

Fault ShiftInRange(const char* what, int32_t shift) {
  if (shift >= -31 && shift <= 31) return Fault::Ok();
  return Fault::Of(ErrorCode::kBadField, std::string(what) + " " + std::to_string(shift) + " outside [-31, 31]");
}

}  // namespace fpga
}  // namespace loom
