#include "engine/constant_checks.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "common/checksum.h"

namespace loom {

Status CheckConstantPadding(const plan::Plan& p, const uint8_t* constants, uint64_t constants_bytes) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [offset, end)
  for (const plan::Tensor* t : *p.tensors())
    if (t->storage() == plan::Storage::CONSTANT) ranges.emplace_back(t->offset(), t->offset() + t->size_bytes());
  std::sort(ranges.begin(), ranges.end());
  ranges.emplace_back(constants_bytes, constants_bytes);  // the tail after the last constant
  uint64_t at = 0;                                        // end of the constants so far
  for (const auto& [begin, end] : ranges) {
    for (uint64_t i = at; i < begin; ++i)
      if (constants[i] != 0) return Status::Corrupt("plan has non-zero bytes between its constants (file damaged)");
    at = std::max(at, end);
  }
  return Status::Ok();
}

Status CheckConstantChecksums(const plan::Plan& p, const uint8_t* constants, const std::vector<bool>& read) {
  std::set<std::pair<uint64_t, uint64_t>> checked;  // (offset, size) of constants found intact
  for (flatbuffers::uoffset_t i = 0; i < p.tensors()->size(); ++i) {
    const plan::Tensor& t = *p.tensors()->Get(i);
    if (t.storage() != plan::Storage::CONSTANT || (!read.empty() && !read[i])) continue;
    const std::pair<uint64_t, uint64_t> range(t.offset(), t.size_bytes());
    if (checked.count(range)) continue;
    if (Checksum64x8(constants + t.offset(), static_cast<size_t>(t.size_bytes())) != t.checksum()) {
      const std::string name = t.name() ? t.name()->str() : std::string();
      return Status::Corrupt("plan constant '" + name + "' (tensor " + std::to_string(i) +
                             ") checksum mismatch (file damaged)");
    }
    checked.insert(range);
  }
  return Status::Ok();
}

}  // namespace loom
