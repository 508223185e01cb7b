// Test fixture for cli_commands_test.sh, on the real CPU kernels:
//   loom_cli_plan_fixture write DIR   writes DIR/model.plan, a plan computing
//       sum = a + b and "y/out" = Relu(sum) on float32 [2,3] inputs a and b,
//       plus DIR/a.npy, DIR/b.npy, DIR/bad.npy (wrong shape) and
//       DIR/pb/input_{0,1}.pb (TensorProtos named b and a, in that order, so
//       matching by name is needed)
//   loom_cli_plan_fixture check OUT   checks OUT/sum.npy and OUT/y_out.npy
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "engine/testing/plan_writer.h"
#include "tools/tensor_io/file_util.h"
#include "tools/tensor_io/host_tensor.h"

namespace loom {
namespace {

const std::vector<float> kA = {-1.5f, 0.f, 2.f, 3.5f, -4.f, 1.f};
const std::vector<float> kB = {1.f, -2.f, 0.5f, -5.f, 4.5f, 0.25f};

HostTensor Floats(const Shape& shape, const std::vector<float>& v) {
  HostTensor t;
  t.dtype = DType::kFloat32;
  t.shape = shape;
  t.data.resize(v.size() * 4);
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

// A raw_data TensorProto: dims (1), data_type (2), name (8), raw_data (9).
std::vector<uint8_t> EncodeTensorProto(const std::string& name, const HostTensor& t) {
  std::vector<uint8_t> out;
  auto varint = [&](uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<uint8_t>(v));
  };
  for (int64_t d : t.shape) {
    varint(1 << 3);
    varint(static_cast<uint64_t>(d));
  }
  varint(2 << 3);
  varint(static_cast<uint64_t>(t.dtype));
  varint(8 << 3 | 2);
  varint(name.size());
  out.insert(out.end(), name.begin(), name.end());
  varint(9 << 3 | 2);
  varint(t.data.size());
  out.insert(out.end(), t.data.begin(), t.data.end());
  return out;
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "fixture: %s\n", what.c_str());
  return 1;
}

int Write(const std::string& dir) {
  testing::PlanWriter w;
  const Shape shape = {2, 3};
  const int a = w.Activation("a", DType::kFloat32, shape);
  const int b = w.Activation("b", DType::kFloat32, shape);
  const int sum = w.Activation("sum", DType::kFloat32, shape);
  const int y = w.Activation("y/out", DType::kFloat32, shape);
  w.Input(a);
  w.Input(b);
  w.AddNode("add_1", "Add", "cpu.Add", {a, b}, {sum});
  w.AddNode("relu_1", "Relu", "cpu.Relu", {sum}, {y}).placement_reason = "cpu: no accelerator configured";
  w.Output(sum);
  w.Output(y);
  const std::vector<uint8_t> plan = w.Finish();
  Status s = WriteWholeFile(dir + "/model.plan", plan.data(), plan.size());
  if (s.ok()) s = WriteNpy(dir + "/a.npy", Floats(shape, kA));
  if (s.ok()) s = WriteNpy(dir + "/b.npy", Floats(shape, kB));
  if (s.ok()) s = WriteNpy(dir + "/bad.npy", Floats({6}, kA));
  mkdir((dir + "/pb").c_str(), 0755);
  const std::vector<uint8_t> pb0 = EncodeTensorProto("b", Floats(shape, kB));
  const std::vector<uint8_t> pb1 = EncodeTensorProto("a", Floats(shape, kA));
  if (s.ok()) s = WriteWholeFile(dir + "/pb/input_0.pb", pb0.data(), pb0.size());
  if (s.ok()) s = WriteWholeFile(dir + "/pb/input_1.pb", pb1.data(), pb1.size());
  return s.ok() ? 0 : Fail(s.ToString());
}

int Check(const std::string& out) {
  HostTensor sum, y;
  Status s = ReadNpy(out + "/sum.npy", &sum);
  if (s.ok()) s = ReadNpy(out + "/y_out.npy", &y);
  if (!s.ok()) return Fail(s.ToString());
  if (sum.shape != Shape{2, 3} || y.shape != Shape{2, 3} || sum.dtype != DType::kFloat32) return Fail("bad shapes");
  for (size_t i = 0; i < kA.size(); ++i) {
    const float e = kA[i] + kB[i];
    if (sum.as<float>()[i] != e) return Fail("sum[" + std::to_string(i) + "] is wrong");
    if (y.as<float>()[i] != (e > 0 ? e : 0.f)) return Fail("y[" + std::to_string(i) + "] is wrong");
  }
  return 0;
}

}  // namespace
}  // namespace loom

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "write" && argc == 3) return loom::Write(argv[2]);
  if (mode == "check" && argc == 3) return loom::Check(argv[2]);
  std::fprintf(stderr, "usage: %s write DIR | check OUT\n", argv[0]);
  return 2;
}
