#include "kernels/cpu/tensor/tensor_util.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "common/float16.h"

namespace loom {
namespace tensor {

Status CheckInputDType(const KernelSetup& s, size_t i, DType want, const char* name) {
  if (s.inputs[i].dtype != want)
    return s.Invalid(std::string("input '") + name + "' has dtype " + DTypeName(s.inputs[i].dtype) + ", expected " +
                     DTypeName(want));
  return Status::Ok();
}

Status CheckIndexDType(const KernelSetup& s, size_t i, const char* name) {
  if (!IsIndexDType(s.inputs[i].dtype))
    return s.Invalid(std::string("input '") + name + "' has dtype " + DTypeName(s.inputs[i].dtype) +
                     ", expected int64 or int32");
  return Status::Ok();
}

Status CheckScalarLike(const KernelSetup& s, size_t i, const char* name) {
  const TensorInfo& t = s.inputs[i];
  if (t.rank() > 1 || t.num_elements() != 1)
    return s.Invalid(std::string("input '") + name + "' has shape " + ShapeToString(t.shape) + ", expected a scalar");
  return Status::Ok();
}

Status ConstInts(const KernelSetup& s, size_t i, std::vector<int64_t>* out) {
  const TensorInfo& t = s.inputs[i];
  if (!t.const_data) return s.Error(StatusCode::kInternal, "input " + std::to_string(i) + " is not constant");
  if (!IsIndexDType(t.dtype))
    return s.Invalid("input " + std::to_string(i) + " has dtype " + DTypeName(t.dtype) + ", expected int64 or int32");
  const int64_t n = t.num_elements();
  out->resize(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) (*out)[static_cast<size_t>(k)] = LoadIndex(t.const_data, t.dtype, k);
  return Status::Ok();
}

Status FirstBadIndex(const void* indices, DType dtype, int64_t n, int64_t dim) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = LoadIndex(indices, dtype, i);
    if (v < -dim || v >= dim)
      return Status::OutOfRange("index " + std::to_string(v) + " out of range [" + std::to_string(-dim) + ", " +
                                std::to_string(dim) + ")");
  }
  return Status::Ok();
}

double LoadAsDouble(const void* data, DType t, int64_t i) {
  switch (t) {
    case DType::kFloat32:
      return static_cast<const float*>(data)[i];
    case DType::kFloat64:
      return static_cast<const double*>(data)[i];
    case DType::kFloat16:
      return HalfToFloat(static_cast<const uint16_t*>(data)[i]);
    case DType::kBFloat16:
      return BFloat16ToFloat(static_cast<const uint16_t*>(data)[i]);
    case DType::kInt8:
      return static_cast<const int8_t*>(data)[i];
    case DType::kInt16:
      return static_cast<const int16_t*>(data)[i];
    case DType::kInt32:
      return static_cast<const int32_t*>(data)[i];
    case DType::kInt64:
      return static_cast<double>(static_cast<const int64_t*>(data)[i]);
    case DType::kUInt8:
      return static_cast<const uint8_t*>(data)[i];
    case DType::kBool:
      return static_cast<const uint8_t*>(data)[i] != 0;
    case DType::kUInt16:
      return static_cast<const uint16_t*>(data)[i];
    case DType::kUInt32:
      return static_cast<const uint32_t*>(data)[i];
    case DType::kUInt64:
      return static_cast<double>(static_cast<const uint64_t*>(data)[i]);
    default:
      return 0;
  }
}

namespace {

template <typename T>
void StoreInt(double v, void* dst) {
  T r;
  if (std::isnan(v)) {
    r = 0;
  } else if (v <= static_cast<double>(std::numeric_limits<T>::min())) {
    r = std::numeric_limits<T>::min();
  } else if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
    r = std::numeric_limits<T>::max();
  } else {
    r = static_cast<T>(v);
  }
  std::memcpy(dst, &r, sizeof(T));
}

}  // namespace

void StoreFromDouble(double v, DType t, void* dst) {
  switch (t) {
    case DType::kFloat32: {
      const float f = static_cast<float>(v);
      std::memcpy(dst, &f, 4);
      return;
    }
    case DType::kFloat64:
      std::memcpy(dst, &v, 8);
      return;
    case DType::kFloat16: {
      const uint16_t h = FloatToHalf(static_cast<float>(v));
      std::memcpy(dst, &h, 2);
      return;
    }
    case DType::kBFloat16: {
      const uint16_t h = FloatToBFloat16(static_cast<float>(v));
      std::memcpy(dst, &h, 2);
      return;
    }
    case DType::kBool:
      *static_cast<uint8_t*>(dst) = v != 0 ? 1 : 0;
      return;
    case DType::kInt8:
      StoreInt<int8_t>(v, dst);
      return;
    case DType::kInt16:
      StoreInt<int16_t>(v, dst);
      return;
    case DType::kInt32:
      StoreInt<int32_t>(v, dst);
      return;
    case DType::kInt64:
      StoreInt<int64_t>(v, dst);
      return;
    case DType::kUInt8:
      StoreInt<uint8_t>(v, dst);
      return;
    case DType::kUInt16:
      StoreInt<uint16_t>(v, dst);
      return;
    case DType::kUInt32:
      StoreInt<uint32_t>(v, dst);
      return;
    case DType::kUInt64:
      StoreInt<uint64_t>(v, dst);
      return;
    default:
      return;
  }
}

Status NormalizeAxes(const KernelSetup& s, const std::vector<int64_t>& axes, int64_t rank, const char* what,
                     std::vector<int64_t>* out) {
  out->clear();
  for (int64_t a : axes) {
    int64_t n = 0;
    if (!NormalizeAxis(a, rank, &n))
      return s.Invalid(std::string(what) + " value " + std::to_string(a) + " out of range [" + std::to_string(-rank) +
                       ", " + std::to_string(rank) + ")");
    for (int64_t prev : *out)
      if (prev == n) return s.Invalid(std::string(what) + " repeats axis " + std::to_string(n));
    out->push_back(n);
  }
  return Status::Ok();
}

Shape StridesOf(const Shape& shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

int64_t DimProduct(const Shape& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < shape.size(); ++i) p *= shape[i];
  return p;
}

void CopyBytes(ThreadPool* pool, void* dst, const void* src, size_t n) {
  if (n == 0 || dst == src) return;
  constexpr int64_t kGrain = int64_t{1} << 18;
  char* d = static_cast<char*>(dst);
  const char* sp = static_cast<const char*>(src);
  ParallelFor(pool, static_cast<int64_t>(n), kGrain, [&](int64_t begin, int64_t end, int) {
    std::memcpy(d + begin, sp + begin, static_cast<size_t>(end - begin));
  });
}

namespace {

template <typename T>
void FillTyped(ThreadPool* pool, void* dst, const void* value, int64_t n) {
  T v;
  std::memcpy(&v, value, sizeof(T));
  T* d = static_cast<T*>(dst);
  ParallelFor(pool, n, int64_t{1} << 16, [&](int64_t begin, int64_t end, int) {
    for (int64_t i = begin; i < end; ++i) d[i] = v;
  });
}

}  // namespace

void FillElements(ThreadPool* pool, void* dst, const void* value, size_t elem_size, int64_t n) {
  switch (elem_size) {
    case 1:
      FillTyped<uint8_t>(pool, dst, value, n);
      return;
    case 2:
      FillTyped<uint16_t>(pool, dst, value, n);
      return;
    case 4:
      FillTyped<uint32_t>(pool, dst, value, n);
      return;
    case 8:
      FillTyped<uint64_t>(pool, dst, value, n);
      return;
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(static_cast<char*>(dst) + i * elem_size, value, elem_size);
  }
}

}  // namespace tensor
}  // namespace loom
