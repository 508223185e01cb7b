// Helpers shared by the run-side subcommands: the one-line error report,
// engine loading, random inputs, and element access for summaries.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "common/status.h"
#include "loom/engine.h"
#include "tools/tensor_io/host_tensor.h"

namespace loom {
namespace cli {

// Prints "loom: error: <message>" as one line on stderr and returns 1.
int ReportError(const std::string& message);
int ReportError(const Status& status);

// Loads a plan with the built-in kernels; `allow_cpu_fallback` runs nodes
// placed on a device on their CPU fallbacks (LoadOptions).
Status LoadEngine(const std::string& path, std::shared_ptr<const Engine>* engine, bool allow_cpu_fallback = false);

// Seeded random contents for `desc`: floats uniform in [0, 1), integers in
// [0, 10), bools 0/1.
HostTensor RandomTensor(const TensorDesc& desc, std::mt19937_64* rng);

// Element i of raw data of `dtype`, as a double (for summaries).
double ElementAsDouble(DType dtype, const void* data, size_t i);

// "1.5 MiB (1572864 bytes)".
std::string FormatBytes(uint64_t bytes);

// "12.345 ms", or "45.67 us" below a millisecond.
std::string FormatMs(double ms);

// "float32 1x3x224x224".
std::string Describe(DType dtype, const Shape& shape);

}  // namespace cli
}  // namespace loom
