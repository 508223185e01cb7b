// A small int8 model for heterogeneous-plan tests, built twice: as a CPU-only
// int8 plan and for an accelerator target that places on the FPGA every node
// the accelerator accepts. Tests run the FPGA plan through the engine on a
// device and compare its output bit for bit with the CPU plan's.
//
//   x[1,3,12,12] -> Conv(3->20, 3x3) -> Relu -> MaxPool(2x2/2) -> Conv(20->20, 3x3)
//     -> Relu -> Conv(20->20, 1x1) -> Add(pool) -> GlobalAveragePool -> Flatten
//     -> Gemm(20->5) -> y[1,5]
//
// With fused activations the FPGA plan has two launches (conv1..add, fc).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "builder/builder.h"
#include "builder/place/target.h"
#include "builder/testing/onnx_models.h"
#include "common/status.h"
#include "kernels/common/device_context.h"
#include "loom/engine.h"

namespace loom {
namespace testing {

constexpr size_t kInt8ModelInputFloats = 3 * 12 * 12;  // "x"
constexpr size_t kInt8ModelOutputFloats = 5;           // "y"

// n uniform floats in [lo, hi), the same for the same seed.
std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo, float hi);

// An input "x" for the model.
inline std::vector<float> Int8ModelInput(uint32_t seed) { return RandomFloats(kInt8ModelInputFloats, seed, -1.f, 1.f); }

// A target ("fpga16-test") with one FPGA of the contract configuration
// `config` whose cost model prefers the FPGA for every node it accepts.
std::unique_ptr<place::Target> PreferFpgaTarget(const std::string& config = "pynq_z2");

struct Int8FpgaPlans {
  std::vector<uint8_t> cpu;   // the CPU-only int8 plan
  std::vector<uint8_t> fpga;  // the plan for PreferFpgaTarget()
  BuildReport report;         // of the FPGA plan
};

// Builds `model` twice with int8 calibrated (minmax) from `calib_dir` on top
// of `options`: for the CPU, and for `target` (registry:
// fpga::FpgaKernelRegistry()).
Status BuildInt8Plans(const std::string& model, const std::string& calib_dir, BuildOptions options,
                      const place::Target& target, Int8FpgaPlans* out);

// Saves the model and its calibration samples into `dir` and builds both
// plans (registry: fpga::FpgaKernelRegistry()). `fuse` false disables the
// fuse_activation pass, so the Relus stay on the CPU between launches;
// `launch_per_node` gives every FPGA node its own launch.
Status BuildInt8FpgaPlans(const TempDir& dir, bool fuse, Int8FpgaPlans* out, bool launch_per_node = false);

// One load, context and run of a plan with the FPGA kernel registry.
struct PlanRun {
  Status status;
  std::vector<float> y;
  std::vector<std::string> notes;
  std::vector<NodeProfile> profile;
};
// `y_floats`: the size of output "y".
PlanRun RunPlan(const std::vector<uint8_t>& plan, const std::vector<float>& x, std::shared_ptr<DeviceRuntime> device,
                bool allow_cpu_fallback, size_t y_floats = kInt8ModelOutputFloats);

// The engine on `device` (null: none) for `plan`, or a failed Status.
Status LoadPlan(const std::vector<uint8_t>& plan, std::shared_ptr<DeviceRuntime> device, bool allow_cpu_fallback,
                std::shared_ptr<const Engine>* engine);

// Binds x and y (of y->size() floats, kInt8ModelOutputFloats when empty)
// and runs once.
Status RunOnce(ExecutionContext& context, const std::vector<float>& x, std::vector<float>* y);

// Writes `samples` random calibration inputs of `shape` (the first dim is
// the sample count) as dir/samples.npy.
Status SaveCalibrationSamples(const std::string& dir, const Shape& shape, uint32_t seed);

// fpga::OpenAccelDevice's fpga-model as a runtime (a test failure if it
// does not open).
std::shared_ptr<DeviceRuntime> OpenModelRuntime(const std::string& config = "pynq_z2");

// Whether two outputs are the same floats bit for bit.
bool SameBits(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace testing
}  // namespace loom
