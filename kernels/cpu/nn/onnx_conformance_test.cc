// Runs the nn kernels on ONNX's own backend test cases (Debian's
// libonnx-testdata: model.onnx + test_data_set_0/{input,output}_N.pb) and
// compares with the expected outputs at ONNX's tolerance (rtol 1e-3,
// atol 1e-7). Only single-node models are used. Each case runs twice: with
// every input as runtime data, and with all inputs but the first constant.
//
// The files are protobuf; a minimal wire-format reader below extracts the
// few fields needed (no protobuf dependency in the kernel tests). Cases are
// skipped when the test data is not installed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/cpu/testing/kernel_tester.h"

namespace loom {
namespace {

using testing::RunKernel;
using testing::RunOptions;
using testing::TestTensor;

const char kDataRoot[] = "/usr/share/libonnx-testdata/data/";

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

// A protobuf message as a flat list of fields.
struct Field {
  uint32_t number = 0;
  uint32_t wire = 0;
  uint64_t varint = 0;       // wire 0, 1, 5
  std::string bytes;         // wire 2
};

bool ReadVarint(const char*& p, const char* end, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    const uint8_t b = static_cast<uint8_t>(*p++);
    *v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

bool ParseMessage(const std::string& data, std::vector<Field>* fields) {
  const char* p = data.data();
  const char* end = p + data.size();
  while (p < end) {
    uint64_t key;
    if (!ReadVarint(p, end, &key)) return false;
    Field f;
    f.number = static_cast<uint32_t>(key >> 3);
    f.wire = static_cast<uint32_t>(key & 7);
    if (f.wire == 0) {
      if (!ReadVarint(p, end, &f.varint)) return false;
    } else if (f.wire == 1 || f.wire == 5) {
      const size_t n = f.wire == 1 ? 8 : 4;
      if (static_cast<size_t>(end - p) < n) return false;
      std::memcpy(&f.varint, p, n);
      p += n;
    } else if (f.wire == 2) {
      uint64_t len;
      if (!ReadVarint(p, end, &len) || len > static_cast<uint64_t>(end - p)) return false;
      f.bytes.assign(p, static_cast<size_t>(len));
      p += len;
    } else {
      return false;
    }
    fields->push_back(std::move(f));
  }
  return true;
}

// Repeated scalar fields may be packed (wire 2) or not.
std::vector<uint64_t> Varints(const Field& f) {
  std::vector<uint64_t> out;
  if (f.wire != 2) {
    out.push_back(f.varint);
    return out;
  }
  const char* p = f.bytes.data();
  const char* end = p + f.bytes.size();
  uint64_t v;
  while (p < end && ReadVarint(p, end, &v)) out.push_back(v);
  return out;
}

template <typename T>
void AppendFixed(const Field& f, std::vector<T>* out) {
  if (f.wire != 2) {
    T v;
    std::memcpy(&v, &f.varint, sizeof(T));
    out->push_back(v);
    return;
  }
  const size_t n = f.bytes.size() / sizeof(T);
  if (n == 0) return;
  const size_t old = out->size();
  out->resize(old + n);
  std::memcpy(out->data() + old, f.bytes.data(), n * sizeof(T));
}

bool ParseTensor(const std::string& data, TestTensor* t, std::string* name = nullptr) {
  std::vector<Field> fields;
  if (!ParseMessage(data, &fields)) return false;
  *t = TestTensor();
  std::string raw;
  bool has_raw = false;
  std::vector<float> floats;
  std::vector<double> doubles;
  std::vector<uint64_t> ints;  // int32_data / int64_data / uint64_data
  for (const Field& f : fields) {
    switch (f.number) {
      case 1: for (uint64_t d : Varints(f)) t->shape.push_back(static_cast<int64_t>(d)); break;
      case 2: t->dtype = static_cast<DType>(f.varint); break;
      case 4: AppendFixed(f, &floats); break;
      case 5: case 7: case 11: for (uint64_t v : Varints(f)) ints.push_back(v); break;
      case 8: if (name) *name = f.bytes; break;
      case 9: raw = f.bytes; has_raw = true; break;
      case 10: AppendFixed(f, &doubles); break;
      default: break;
    }
  }
  const size_t esize = DTypeSize(t->dtype);
  if (esize == 0) return false;
  const int64_t n = NumElements(t->shape);
  if (has_raw) {
    t->bytes.assign(raw.begin(), raw.end());
  } else if (t->dtype == DType::kFloat32) {
    t->bytes.resize(floats.size() * 4);
    if (!floats.empty()) std::memcpy(t->bytes.data(), floats.data(), t->bytes.size());
  } else if (t->dtype == DType::kFloat64) {
    t->bytes.resize(doubles.size() * 8);
    if (!doubles.empty()) std::memcpy(t->bytes.data(), doubles.data(), t->bytes.size());
  } else {
    t->bytes.resize(ints.size() * esize);
    for (size_t i = 0; i < ints.size(); ++i) std::memcpy(t->bytes.data() + i * esize, &ints[i], esize);
  }
  return t->bytes.size() == static_cast<size_t>(n) * esize;
}

struct Node {
  std::string op;
  std::vector<std::string> inputs, outputs;
  Attributes attrs;
  TestTensor value;  // a Constant node's `value` tensor
};

bool ParseAttribute(const std::string& data, Attributes* attrs, TestTensor* tensor) {
  std::vector<Field> fields;
  if (!ParseMessage(data, &fields)) return false;
  Attribute a;
  int type = 0;
  for (const Field& f : fields) {
    switch (f.number) {
      case 1: a.name = f.bytes; break;
      case 2: std::memcpy(&a.f, &f.varint, 4); break;
      case 3: a.i = static_cast<int64_t>(f.varint); break;
      case 4: a.s = f.bytes; break;
      case 7: AppendFixed(f, &a.floats); break;
      case 8: for (uint64_t v : Varints(f)) a.ints.push_back(static_cast<int64_t>(v)); break;
      case 9: a.strings.push_back(f.bytes); break;
      case 5:
        if (!ParseTensor(f.bytes, tensor)) return false;
        tensor->constant = true;
        break;
      case 20: type = static_cast<int>(f.varint); break;
      default: break;
    }
  }
  switch (type) {
    case 1: a.kind = Attribute::Kind::kFloat; break;
    case 2: a.kind = Attribute::Kind::kInt; break;
    case 3: a.kind = Attribute::Kind::kString; break;
    case 6: a.kind = Attribute::Kind::kFloats; break;
    case 7: a.kind = Attribute::Kind::kInts; break;
    case 8: a.kind = Attribute::Kind::kStrings; break;
    case 4: return true;  // kept in `tensor`
    default: return false;
  }
  attrs->Set(std::move(a));
  return true;
}

struct Model {
  int opset = 0;
  std::vector<Node> nodes;
  std::map<std::string, TestTensor> initializers;
  std::vector<std::string> inputs, outputs;  // graph inputs (not initializers), outputs
};

std::string ValueInfoName(const std::string& data) {
  std::vector<Field> fields;
  if (!ParseMessage(data, &fields)) return "";
  for (const Field& f : fields)
    if (f.number == 1) return f.bytes;
  return "";
}

bool ParseModel(const std::string& data, Model* m) {
  std::vector<Field> fields;
  if (!ParseMessage(data, &fields)) return false;
  std::string graph;
  for (const Field& f : fields) {
    if (f.number == 7) graph = f.bytes;
    if (f.number == 8) {
      std::vector<Field> os;
      if (!ParseMessage(f.bytes, &os)) return false;
      std::string domain;
      int version = 0;
      for (const Field& o : os) {
        if (o.number == 1) domain = o.bytes;
        if (o.number == 2) version = static_cast<int>(o.varint);
      }
      if (domain.empty() || domain == "ai.onnx") m->opset = version;
    }
  }
  std::vector<Field> gf;
  if (!ParseMessage(graph, &gf)) return false;
  std::vector<std::string> all_inputs;
  for (const Field& f : gf) {
    if (f.number == 1) {
      std::vector<Field> nf;
      if (!ParseMessage(f.bytes, &nf)) return false;
      Node node;
      for (const Field& x : nf) {
        if (x.number == 1) node.inputs.push_back(x.bytes);
        if (x.number == 2) node.outputs.push_back(x.bytes);
        if (x.number == 4) node.op = x.bytes;
        if (x.number == 5 && !ParseAttribute(x.bytes, &node.attrs, &node.value)) return false;
      }
      m->nodes.push_back(std::move(node));
    } else if (f.number == 5) {
      TestTensor t;
      std::string name;
      if (!ParseTensor(f.bytes, &t, &name)) return false;
      t.constant = true;
      m->initializers[name] = std::move(t);
    } else if (f.number == 11) {
      all_inputs.push_back(ValueInfoName(f.bytes));
    } else if (f.number == 12) {
      m->outputs.push_back(ValueInfoName(f.bytes));
    }
  }
  for (const std::string& n : all_inputs)
    if (!m->initializers.count(n)) m->inputs.push_back(n);
  return true;
}

template <typename T>
void Convert(const TestTensor& t, std::vector<double>* out) {
  for (T v : t.As<T>()) out->push_back(static_cast<double>(v));
}

bool ToDoubles(const TestTensor& t, std::vector<double>* out) {
  switch (t.dtype) {
    case DType::kFloat32: Convert<float>(t, out); return true;
    case DType::kFloat64: Convert<double>(t, out); return true;
    case DType::kInt64: Convert<int64_t>(t, out); return true;
    case DType::kInt32: Convert<int32_t>(t, out); return true;
    case DType::kUInt8: Convert<uint8_t>(t, out); return true;
    case DType::kInt8: Convert<int8_t>(t, out); return true;
    default: return false;
  }
}

// Loads and runs one case; returns "" on success or a description of the failure.
std::string RunCase(const std::string& dir, bool constant_params) {
  std::string data;
  if (!ReadFile(dir + "/model.onnx", &data)) return "cannot read model";
  Model model;
  if (!ParseModel(data, &model)) return "cannot parse model";
  // One compute node, optionally fed by Constant nodes.
  std::map<std::string, TestTensor> values = model.initializers;
  const Node* compute = nullptr;
  for (const Node& n : model.nodes) {
    if (n.op == "Constant" && n.outputs.size() == 1) {
      values[n.outputs[0]] = n.value;
    } else if (compute) {
      return "expected a single node";
    } else {
      compute = &n;
    }
  }
  if (!compute) return "no compute node";
  const Node& node = *compute;
  const std::string set = dir + "/test_data_set_0/";
  for (size_t i = 0; i < model.inputs.size(); ++i) {
    TestTensor t;
    if (!ReadFile(set + "input_" + std::to_string(i) + ".pb", &data) || !ParseTensor(data, &t))
      return "cannot read input " + std::to_string(i);
    values[model.inputs[i]] = std::move(t);
  }
  std::vector<TestTensor> inputs;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty()) {
      inputs.push_back(TestTensor::Absent());
      continue;
    }
    auto it = values.find(node.inputs[i]);
    if (it == values.end()) return "unknown input " + node.inputs[i];
    TestTensor t = it->second;
    if (constant_params && i > 0) t.constant = true;
    inputs.push_back(std::move(t));
  }
  std::vector<TestTensor> expected, outputs;
  for (size_t i = 0; i < model.outputs.size(); ++i) {
    TestTensor t;
    if (!ReadFile(set + "output_" + std::to_string(i) + ".pb", &data) || !ParseTensor(data, &t))
      return "cannot read output " + std::to_string(i);
    outputs.push_back(TestTensor::Empty(t.dtype, t.shape));
    expected.push_back(std::move(t));
  }
  RunOptions opt;
  opt.opset = model.opset;
  opt.threads = constant_params ? 2 : 1;
  Status st = RunKernel(node.op, node.attrs, inputs, &outputs, opt);
  if (!st.ok()) return "kernel failed: " + st.ToString();
  for (size_t o = 0; o < outputs.size(); ++o) {
    const TestTensor& e = expected[o];
    const TestTensor& g = outputs[o];
    const int64_t n = NumElements(e.shape);
    std::vector<double> ev_all, gv_all;
    if (!ToDoubles(e, &ev_all) || !ToDoubles(g, &gv_all))
      return std::string("unhandled output dtype ") + DTypeName(e.dtype);
    if (g.dtype != e.dtype) return "output dtype differs";
    for (int64_t i = 0; i < n; ++i) {
      const double ev = ev_all[i], gv = gv_all[i];
      const bool both_nan = std::isnan(ev) && std::isnan(gv);
      if (!both_nan && !(std::fabs(gv - ev) <= 1e-7 + 1e-3 * std::fabs(ev)))
        return "output " + std::to_string(o) + " element " + std::to_string(i) + ": got " + std::to_string(gv) +
               ", expected " + std::to_string(ev);
    }
  }
  return "";
}

void RunCases(const std::vector<std::string>& cases) {
  int ran = 0;
  for (const std::string& c : cases) {
    const std::string dir = kDataRoot + c;
    std::ifstream probe(dir + "/model.onnx");
    if (!probe) continue;
    ++ran;
    for (bool constant : {false, true}) {
      const std::string err = RunCase(dir, constant);
      EXPECT_EQ(err, "") << c << (constant ? " (constant params)" : " (runtime params)");
    }
  }
  if (ran == 0) GTEST_SKIP() << "ONNX test data not installed under " << kDataRoot;
}

TEST(OnnxConformance, Conv) {
  RunCases({"node/test_basic_conv_with_padding", "node/test_basic_conv_without_padding",
            "node/test_conv_with_autopad_same", "node/test_conv_with_strides_and_asymmetric_padding",
            "node/test_conv_with_strides_no_padding", "node/test_conv_with_strides_padding",
            "pytorch-converted/test_Conv1d", "pytorch-converted/test_Conv1d_dilated",
            "pytorch-converted/test_Conv1d_groups", "pytorch-converted/test_Conv1d_pad1",
            "pytorch-converted/test_Conv1d_pad1size1", "pytorch-converted/test_Conv1d_pad2",
            "pytorch-converted/test_Conv1d_pad2size1", "pytorch-converted/test_Conv1d_stride",
            "pytorch-converted/test_Conv2d", "pytorch-converted/test_Conv2d_depthwise",
            "pytorch-converted/test_Conv2d_depthwise_padded", "pytorch-converted/test_Conv2d_depthwise_strided",
            "pytorch-converted/test_Conv2d_depthwise_with_multiplier", "pytorch-converted/test_Conv2d_dilated",
            "pytorch-converted/test_Conv2d_groups", "pytorch-converted/test_Conv2d_groups_thnn",
            "pytorch-converted/test_Conv2d_no_bias", "pytorch-converted/test_Conv2d_padding",
            "pytorch-converted/test_Conv2d_strided", "pytorch-converted/test_Conv3d",
            "pytorch-converted/test_Conv3d_dilated", "pytorch-converted/test_Conv3d_dilated_strided",
            "pytorch-converted/test_Conv3d_groups", "pytorch-converted/test_Conv3d_no_bias",
            "pytorch-converted/test_Conv3d_stride", "pytorch-converted/test_Conv3d_stride_padding",
            "pytorch-operator/test_operator_conv"});
}

TEST(OnnxConformance, MatMulAndGemm) {
  RunCases({"node/test_matmul_2d", "node/test_matmul_3d", "node/test_matmul_4d", "pytorch-operator/test_operator_mm", "node/test_gemm_all_attributes",
            "node/test_gemm_alpha", "node/test_gemm_beta", "node/test_gemm_default_matrix_bias",
            "node/test_gemm_default_no_bias", "node/test_gemm_default_scalar_bias",
            "node/test_gemm_default_single_elem_vector_bias", "node/test_gemm_default_vector_bias",
            "node/test_gemm_default_zero_bias", "node/test_gemm_transposeA", "node/test_gemm_transposeB",
            "pytorch-converted/test_Linear"});
}

TEST(OnnxConformance, Pooling) {
  RunCases({"node/test_averagepool_1d_default", "node/test_averagepool_2d_ceil", "node/test_averagepool_2d_default",
            "node/test_averagepool_2d_pads", "node/test_averagepool_2d_pads_count_include_pad",
            "node/test_averagepool_2d_precomputed_pads", "node/test_averagepool_2d_precomputed_pads_count_include_pad",
            "node/test_averagepool_2d_precomputed_same_upper", "node/test_averagepool_2d_precomputed_strides",
            "node/test_averagepool_2d_same_lower", "node/test_averagepool_2d_same_upper",
            "node/test_averagepool_2d_strides", "node/test_averagepool_3d_default", "node/test_maxpool_1d_default",
            "node/test_maxpool_2d_ceil", "node/test_maxpool_2d_default", "node/test_maxpool_2d_dilations",
            "node/test_maxpool_2d_pads", "node/test_maxpool_2d_precomputed_pads",
            "node/test_maxpool_2d_precomputed_same_upper", "node/test_maxpool_2d_precomputed_strides",
            "node/test_maxpool_2d_same_lower", "node/test_maxpool_2d_same_upper", "node/test_maxpool_2d_strides",
            "node/test_maxpool_2d_uint8", "node/test_maxpool_3d_default",
            "node/test_maxpool_with_argmax_2d_precomputed_pads", "node/test_maxpool_with_argmax_2d_precomputed_strides",
            "node/test_globalaveragepool", "node/test_globalaveragepool_precomputed", "node/test_globalmaxpool",
            "node/test_globalmaxpool_precomputed", "pytorch-converted/test_AvgPool2d",
            "pytorch-converted/test_AvgPool2d_stride", "pytorch-converted/test_AvgPool3d",
            "pytorch-converted/test_AvgPool3d_stride", "pytorch-converted/test_AvgPool3d_stride1_pad0_gpu_input",
            "pytorch-converted/test_MaxPool1d", "pytorch-converted/test_MaxPool1d_stride",
            "pytorch-converted/test_MaxPool1d_stride_padding_dilation", "pytorch-converted/test_MaxPool2d",
            "pytorch-converted/test_MaxPool2d_stride_padding_dilation", "pytorch-converted/test_MaxPool3d",
            "pytorch-converted/test_MaxPool3d_stride", "pytorch-converted/test_MaxPool3d_stride_padding",
            "pytorch-operator/test_operator_maxpool"});
}

TEST(OnnxConformance, Normalization) {
  RunCases({"node/test_layer_normalization_2d_axis0",
            "node/test_layer_normalization_2d_axis1",
            "node/test_layer_normalization_2d_axis_negative_1",
            "node/test_layer_normalization_2d_axis_negative_2",
            "node/test_layer_normalization_3d_axis0_epsilon",
            "node/test_layer_normalization_3d_axis1_epsilon",
            "node/test_layer_normalization_3d_axis2_epsilon",
            "node/test_layer_normalization_3d_axis_negative_1_epsilon",
            "node/test_layer_normalization_3d_axis_negative_2_epsilon",
            "node/test_layer_normalization_3d_axis_negative_3_epsilon",
            "node/test_layer_normalization_4d_axis0",
            "node/test_layer_normalization_4d_axis1",
            "node/test_layer_normalization_4d_axis2",
            "node/test_layer_normalization_4d_axis3",
            "node/test_layer_normalization_4d_axis_negative_1",
            "node/test_layer_normalization_4d_axis_negative_2",
            "node/test_layer_normalization_4d_axis_negative_3",
            "node/test_layer_normalization_4d_axis_negative_4",
            "node/test_layer_normalization_default_axis",
            "node/test_batchnorm_epsilon",
            "node/test_batchnorm_example",
            "node/test_instancenorm_epsilon",
            "node/test_instancenorm_example",
            "node/test_lrn",
            "node/test_lrn_default",
            "node/test_mvn",
            "pytorch-converted/test_BatchNorm1d_3d_input_eval",
            "pytorch-converted/test_BatchNorm2d_eval",
            "pytorch-converted/test_BatchNorm2d_momentum_eval",
            "pytorch-converted/test_BatchNorm3d_eval",
            "pytorch-converted/test_BatchNorm3d_momentum_eval"});
}

TEST(OnnxConformance, ConvTranspose) {
  RunCases({"node/test_convtranspose",
            "node/test_convtranspose_1d",
            "node/test_convtranspose_3d",
            "node/test_convtranspose_autopad_same",
            "node/test_convtranspose_dilations",
            "node/test_convtranspose_kernel_shape",
            "node/test_convtranspose_output_shape",
            "node/test_convtranspose_pad",
            "node/test_convtranspose_pads",
            "node/test_convtranspose_with_kernel",
            "pytorch-converted/test_ConvTranspose2d",
            "pytorch-converted/test_ConvTranspose2d_no_bias",
            "pytorch-operator/test_operator_convtranspose"});
}

TEST(OnnxConformance, Resize) {
  RunCases({"node/test_resize_downsample_scales_cubic",
            "node/test_resize_downsample_scales_cubic_A_n0p5_exclude_outside",
            "node/test_resize_downsample_scales_cubic_align_corners",
            "node/test_resize_downsample_scales_linear",
            "node/test_resize_downsample_scales_linear_align_corners",
            "node/test_resize_downsample_scales_nearest",
            "node/test_resize_downsample_sizes_cubic",
            "node/test_resize_downsample_sizes_linear_pytorch_half_pixel",
            "node/test_resize_downsample_sizes_nearest",
            "node/test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn",
            "node/test_resize_tf_crop_and_resize",
            "node/test_resize_upsample_scales_cubic",
            "node/test_resize_upsample_scales_cubic_A_n0p5_exclude_outside",
            "node/test_resize_upsample_scales_cubic_align_corners",
            "node/test_resize_upsample_scales_cubic_asymmetric",
            "node/test_resize_upsample_scales_linear",
            "node/test_resize_upsample_scales_linear_align_corners",
            "node/test_resize_upsample_scales_nearest",
            "node/test_resize_upsample_sizes_cubic",
            "node/test_resize_upsample_sizes_nearest",
            "node/test_resize_upsample_sizes_nearest_ceil_half_pixel",
            "node/test_resize_upsample_sizes_nearest_floor_align_corners",
            "node/test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric",
            "node/test_upsample_nearest"});
}

}  // namespace
}  // namespace loom
