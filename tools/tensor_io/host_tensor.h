// Tensor files on the host: .npy (numpy) and ONNX TensorProto (.pb) readers
// and writers for the CLI, the samples and the tests. Standard library only,
// so they build on the board too: the .pb reader decodes the protobuf wire
// format of TensorProto directly, without libprotobuf.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/status.h"

namespace loom {

struct HostTensor {
  std::string name;  // TensorProto name; empty for .npy
  DType dtype = DType::kUndefined;
  Shape shape;
  std::vector<uint8_t> data;  // row-major, little-endian

  size_t num_elements() const;
  template <typename T> const T* as() const { return reinterpret_cast<const T*>(data.data()); }
  template <typename T> T* as() { return reinterpret_cast<T*>(data.data()); }
};

// .npy version 1.0-3.0, C order, little-endian numeric or bool dtypes.
Status ReadNpy(const std::string& path, HostTensor* out);
Status WriteNpy(const std::string& path, const HostTensor& tensor);

// A serialized onnx.TensorProto (as in ONNX test data: input_0.pb). Supports
// raw_data and the typed repeated fields; refuses external data and strings.
Status ReadTensorProto(const std::string& path, HostTensor* out);
Status ParseTensorProto(const uint8_t* data, size_t size, HostTensor* out);

}  // namespace loom
