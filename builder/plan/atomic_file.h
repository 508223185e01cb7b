// Writes a file atomically: the bytes go to a temporary file in the same
// folder, which is renamed over `path` only once complete, so readers never
// see a partial file and a failed write leaves nothing behind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace loom {
namespace plan_writer {

Status WriteFileAtomically(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace plan_writer
}  // namespace loom
