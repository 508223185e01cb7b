// Whole-file reads and writes for the tensor readers and writers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace loom {

// Reads all of `path`; errors name the file.
Status ReadWholeFile(const std::string& path, std::vector<uint8_t>* out);
// Writes [data, data+size) to `path` (replacing it); errors name the file.
Status WriteWholeFile(const std::string& path, const void* data, size_t size);

}  // namespace loom
