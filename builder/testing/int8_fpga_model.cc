#include "builder/testing/int8_fpga_model.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <utility>

#include "builder/build_internal.h"
#include "kernels/fpga/device/device_factory.h"
#include "kernels/fpga/kernels/fpga_kernels.h"
#include "kernels/fpga/runtime/fpga_runtime.h"
#include "tools/tensor_io/host_tensor.h"

namespace loom {
namespace testing {
namespace {

std::string SaveModel(const TempDir& dir) {
  OnnxModel m(13);
  m.Input("x", {1, 3, 12, 12});
  m.Initializer("w1", {20, 3, 3, 3}, RandomFloats(20 * 27, 1, -0.5f, 0.5f));
  m.Initializer("b1", {20}, RandomFloats(20, 2, -0.1f, 0.1f));
  m.Initializer("w2", {20, 20, 3, 3}, RandomFloats(20 * 180, 3, -0.2f, 0.2f));
  m.Initializer("b2", {20}, RandomFloats(20, 4, -0.1f, 0.1f));
  m.Initializer("w3", {20, 20, 1, 1}, RandomFloats(400, 5, -0.4f, 0.4f));
  m.Initializer("b3", {20}, RandomFloats(20, 6, -0.1f, 0.1f));
  m.Initializer("wg", {5, 20}, RandomFloats(100, 7, -1.f, 1.f));
  m.Initializer("bg", {5}, RandomFloats(5, 8, -0.1f, 0.1f));
  SetIntsAttr(m.Node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1"), "pads", {1, 1, 1, 1});
  m.Node("Relu", {"c1"}, {"r1"}, "relu1");
  onnx::NodeProto* pool = m.Node("MaxPool", {"r1"}, {"p1"}, "pool1");
  SetIntsAttr(pool, "kernel_shape", {2, 2});
  SetIntsAttr(pool, "strides", {2, 2});
  SetIntsAttr(m.Node("Conv", {"p1", "w2", "b2"}, {"c2"}, "conv2"), "pads", {1, 1, 1, 1});
  m.Node("Relu", {"c2"}, {"r2"}, "relu2");
  m.Node("Conv", {"r2", "w3", "b3"}, {"c3"}, "conv3");
  m.Node("Add", {"c3", "p1"}, {"s"}, "add");
  m.Node("GlobalAveragePool", {"s"}, {"g"}, "gap");
  m.Node("Flatten", {"g"}, {"f"}, "flatten");
  SetIntAttr(m.Node("Gemm", {"f", "wg", "bg"}, {"y"}, "fc"), "transB", 1);
  m.Output("y", {1, kInt8ModelOutputFloats});
  return m.Save(dir.File("model.onnx"));
}


// Every node the accelerator accepts goes to it: the FPGA is 100 times
// faster and boundaries cost almost nothing.
class PreferFpga : public place::CostModel {
 public:
  std::string name() const override { return "prefer-fpga"; }
  double NodeMs(const ir::Graph&, const ir::Node&, Device device) const override {
    return device == Device::kFpga ? 0.01 : 1.0;
  }
  double BoundaryMs(const ir::Graph&, int, Device from, Device to) const override { return from == to ? 0 : 0.001; }
};

}  // namespace

std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

Status SaveCalibrationSamples(const std::string& dir, const Shape& shape, uint32_t seed) {
  std::filesystem::create_directories(dir);
  HostTensor t;
  t.dtype = DType::kFloat32;
  t.shape = shape;
  const std::vector<float> v = RandomFloats(static_cast<size_t>(NumElements(shape)), seed, -1.f, 1.f);
  t.data.assign(reinterpret_cast<const uint8_t*>(v.data()), reinterpret_cast<const uint8_t*>(v.data() + v.size()));
  return WriteNpy(dir + "/samples.npy", t);
}

std::unique_ptr<place::Target> PreferFpgaTarget(const std::string& config) {
  const fpga::contract::AccelConfig* accel = fpga::contract::FindConfig(config.c_str());
  if (accel == nullptr) return nullptr;
  auto device = std::make_shared<fpga::FpgaDeviceConfig>(*accel);
  return std::make_unique<place::Target>(
      "fpga16-test", "test", std::vector<place::TargetDevice>{{Device::kFpga, device}}, std::make_shared<PreferFpga>());
}

Status BuildInt8Plans(const std::string& model, const std::string& calib_dir, BuildOptions options,
                      const place::Target& target, Int8FpgaPlans* out) {
  options.int8.enabled = true;
  options.int8.calib_dir = calib_dir;
  options.int8.calib_method = "minmax";
  options.int8.progress = false;
  BuildEnvironment env;
  env.registry = &fpga::FpgaKernelRegistry();
  RETURN_IF_ERROR(BuildPlanIn(env, model, options, &out->cpu, nullptr).WithContext("the CPU plan"));
  env.target = &target;
  return BuildPlanIn(env, model, options, &out->fpga, &out->report).WithContext("the FPGA plan");
}

Status BuildInt8FpgaPlans(const TempDir& dir, bool fuse, Int8FpgaPlans* out, bool launch_per_node) {
  const std::string model = SaveModel(dir);
  RETURN_IF_ERROR(SaveCalibrationSamples(dir.File("calib"), {8, 3, 12, 12}, 11));
  BuildOptions o;
  if (!fuse) o.disabled_passes = {"fuse_activation"};
  o.fpga_launch_per_node = launch_per_node;
  return BuildInt8Plans(model, dir.File("calib"), o, *PreferFpgaTarget(), out);
}

Status LoadPlan(const std::vector<uint8_t>& plan, std::shared_ptr<DeviceRuntime> device, bool allow_cpu_fallback,
                std::shared_ptr<const Engine>* engine) {
  LoadOptions options;
  options.registry = &fpga::FpgaKernelRegistry();
  options.device = std::move(device);
  options.allow_cpu_fallback = allow_cpu_fallback;
  return Engine::LoadFromBuffer(plan.data(), plan.size(), options, engine);
}

Status RunOnce(ExecutionContext& context, const std::vector<float>& x, std::vector<float>* y) {
  if (y->empty()) y->assign(kInt8ModelOutputFloats, 0.f);
  RETURN_IF_ERROR(context.SetInput("x", x.data(), x.size() * sizeof(float)));
  RETURN_IF_ERROR(context.SetOutput("y", y->data(), y->size() * sizeof(float)));
  return context.Run();
}

PlanRun RunPlan(const std::vector<uint8_t>& plan, const std::vector<float>& x, std::shared_ptr<DeviceRuntime> device,
                bool allow_cpu_fallback, size_t y_floats) {
  PlanRun r;
  std::shared_ptr<const Engine> engine;
  r.status = LoadPlan(plan, std::move(device), allow_cpu_fallback, &engine);
  if (!r.status.ok()) return r;
  r.notes = engine->notes();
  std::unique_ptr<ExecutionContext> context;
  ContextOptions options;
  options.profile = true;
  r.status = engine->CreateContext(options, &context);
  if (!r.status.ok()) return r;
  r.y.assign(y_floats, 0.f);
  r.status = RunOnce(*context, x, &r.y);
  r.profile = context->profile();
  return r;
}

std::shared_ptr<DeviceRuntime> OpenModelRuntime(const std::string& config) {
  fpga::AccelDeviceOptions options;
  options.model_config = config;
  std::unique_ptr<fpga::AccelDevice> device;
  const Status s = fpga::OpenAccelDevice(options, &device);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return nullptr;
  return std::make_shared<fpga::FpgaRuntime>(std::move(device));
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace testing
}  // namespace loom
