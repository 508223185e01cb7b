#include "tools/loom/cli_util.h"

#include <cstdio>
#include <cstring>

#include "common/float16.h"

namespace loom {
namespace cli {

int ReportError(const std::string& message) {
  std::string line = message;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::fprintf(stderr, "loom: error: %s\n", line.c_str());
  return 1;
}

int ReportError(const Status& status) { return ReportError(status.ToString()); }

Status LoadEngine(const std::string& path, std::shared_ptr<const Engine>* engine, bool allow_cpu_fallback) {
  LoadOptions options;
  options.allow_cpu_fallback = allow_cpu_fallback;
  return Engine::Load(path, options, engine);
}

HostTensor RandomTensor(const TensorDesc& desc, std::mt19937_64* rng) {
  HostTensor t;
  t.name = desc.name;
  t.dtype = desc.dtype;
  t.shape = desc.shape;
  t.data.resize(desc.size_bytes);
  const size_t n = t.num_elements();
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> small(0, 9);
  for (size_t i = 0; i < n; ++i) {
    const double u = unit(*rng);
    const int k = small(*rng);
    switch (desc.dtype) {
      case DType::kFloat32: t.as<float>()[i] = static_cast<float>(u); break;
      case DType::kFloat64: t.as<double>()[i] = u; break;
      case DType::kFloat16: t.as<uint16_t>()[i] = FloatToHalf(static_cast<float>(u)); break;
      case DType::kBFloat16: t.as<uint16_t>()[i] = FloatToBFloat16(static_cast<float>(u)); break;
      case DType::kBool: t.data[i] = static_cast<uint8_t>(k & 1); break;
      case DType::kInt8: t.as<int8_t>()[i] = static_cast<int8_t>(k); break;
      case DType::kUInt8: t.data[i] = static_cast<uint8_t>(k); break;
      case DType::kInt16: t.as<int16_t>()[i] = static_cast<int16_t>(k); break;
      case DType::kUInt16: t.as<uint16_t>()[i] = static_cast<uint16_t>(k); break;
      case DType::kInt32: t.as<int32_t>()[i] = k; break;
      case DType::kUInt32: t.as<uint32_t>()[i] = static_cast<uint32_t>(k); break;
      case DType::kInt64: t.as<int64_t>()[i] = k; break;
      case DType::kUInt64: t.as<uint64_t>()[i] = static_cast<uint64_t>(k); break;
      default: break;
    }
  }
  return t;
}

double ElementAsDouble(DType dtype, const void* data, size_t i) {
  const auto* p = static_cast<const uint8_t*>(data);
  auto load = [&](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, p + i * sizeof(v), sizeof(v));
    return static_cast<double>(v);
  };
  switch (dtype) {
    case DType::kFloat32: return load(float{});
    case DType::kFloat64: return load(double{});
    case DType::kFloat16: {
      uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      return HalfToFloat(h);
    }
    case DType::kBFloat16: {
      uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      return BFloat16ToFloat(h);
    }
    case DType::kBool:
    case DType::kUInt8: return load(uint8_t{});
    case DType::kInt8: return load(int8_t{});
    case DType::kInt16: return load(int16_t{});
    case DType::kUInt16: return load(uint16_t{});
    case DType::kInt32: return load(int32_t{});
    case DType::kUInt32: return load(uint32_t{});
    case DType::kInt64: return load(int64_t{});
    case DType::kUInt64: return load(uint64_t{});
    default: return 0.0;
  }
}

std::string FormatBytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[64];
  if (u == 0) {
    std::snprintf(buf, sizeof(buf), "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(buf, sizeof(buf), "%.1f %s (%llu bytes)", v, units[u], static_cast<unsigned long long>(bytes));
  }
  return buf;
}

std::string FormatMs(double ms) {
  char buf[32];
  if (ms >= 1.0) {
    std::snprintf(buf, sizeof(buf), "%.3f ms", ms);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2f us", ms * 1000.0);
  }
  return buf;
}

std::string Describe(DType dtype, const Shape& shape) {
  return std::string(DTypeName(dtype)) + " " + ShapeToString(shape);
}

}  // namespace cli
}  // namespace loom
