// classify_digits: the Loom engine's public API in one small program.
//
//   classify_digits MODEL.plan IMAGES.npy LABELS.npy [--threads N] [--device D]
//
// Loads a plan with one float32 input (one image, e.g. 1x1x8x8) and one
// float32 output (class scores), runs every image of IMAGES.npy (N images,
// float32) through one ExecutionContext, takes the argmax of the scores and
// compares it with LABELS.npy (N integer labels). Prints the accuracy and the
// latency per image (mean, median, p99) in microseconds.
//
// --device fpga-model|fpga-rtl|fpga-xrt|fpga-zynq attaches the accelerator
// for a plan built with `loom build --target fpga16` (or fpga32); then it
// also prints the share of the model's MACs the accelerator computes and the
// projected latency on the board: the accelerator's cycle counters at its
// clock plus the CPU nodes' times the build target's cost model predicted.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "kernels/fpga/device/device_factory.h"
#include "kernels/fpga/kernels/fpga_kernels.h"
#include "kernels/fpga/runtime/fpga_runtime.h"
#include "loom/engine.h"
#include "tools/tensor_io/host_tensor.h"

#if LOOM_HAVE_RTL
#include "hw/sim/rtl_accel_device.h"
#endif

namespace {

constexpr char kUsage[] = "usage: classify_digits MODEL.plan IMAGES.npy LABELS.npy [--threads N] [--device D]";

struct Args {
  std::string plan;
  std::string images;
  std::string labels;
  int threads = 1;
  std::string device = "cpu";
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "classify_digits: error: %s\n", message.c_str());
  return 1;
}

bool ParseThreads(const std::string& text, int* threads) {
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < 1 || value > 256) return false;
  *threads = static_cast<int>(value);
  return true;
}

loom::Status ParseArgs(int argc, char** argv, Args* args) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string threads_text;
    if (arg == "--device") {
      if (i + 1 >= argc) return loom::Status::InvalidArgument("--device needs a value; " + std::string(kUsage));
      args->device = argv[++i];
      continue;
    }
    if (arg == "--threads") {
      if (i + 1 >= argc) return loom::Status::InvalidArgument("--threads needs a value; " + std::string(kUsage));
      threads_text = argv[++i];
    } else if (arg.rfind("--threads=", 0) == 0) {
      threads_text = arg.substr(10);
    } else if (arg.size() > 1 && arg[0] == '-') {
      return loom::Status::InvalidArgument("unknown option '" + arg + "'; " + kUsage);
    } else {
      positional.push_back(arg);
      continue;
    }
    if (!ParseThreads(threads_text, &args->threads)) {
      return loom::Status::InvalidArgument("--threads must be an integer in [1, 256], got '" + threads_text + "'");
    }
  }
  if (positional.size() != 3) {
    return loom::Status::InvalidArgument("expected 3 arguments, got " + std::to_string(positional.size()) + "; " +
                                         kUsage);
  }
  args->plan = positional[0];
  args->images = positional[1];
  args->labels = positional[2];
  return loom::Status::Ok();
}

// Checks that the plan looks like an image classifier and the files match it.
loom::Status CheckInputs(const loom::Engine& engine, const loom::HostTensor& images, const loom::HostTensor& labels,
                         int64_t* num_images) {
  if (engine.inputs().size() != 1 || engine.outputs().size() != 1) {
    return loom::Status::InvalidArgument("plan has " + std::to_string(engine.inputs().size()) + " inputs and " +
                                         std::to_string(engine.outputs().size()) + " outputs, expected 1 and 1");
  }
  const loom::TensorDesc& in = engine.inputs()[0];
  const loom::TensorDesc& out = engine.outputs()[0];
  if (in.dtype != loom::DType::kFloat32 || out.dtype != loom::DType::kFloat32) {
    return loom::Status::InvalidArgument(std::string("plan input and output must be float32, got ") +
                                         loom::DTypeName(in.dtype) + " and " + loom::DTypeName(out.dtype));
  }
  if (images.dtype != loom::DType::kFloat32) {
    return loom::Status::InvalidArgument(std::string("images must be float32, got ") +
                                         loom::DTypeName(images.dtype));
  }
  if (images.shape.empty() || images.shape[0] < 1) {
    return loom::Status::InvalidArgument("images must have shape Nx..., got " + loom::ShapeToString(images.shape));
  }
  const int64_t n = images.shape[0];
  loom::Shape image_shape(images.shape.begin() + 1, images.shape.end());
  if (loom::NumElements(image_shape) != loom::NumElements(in.shape)) {
    return loom::Status::InvalidArgument("images have shape " + loom::ShapeToString(images.shape) + " but input '" +
                                         in.name + "' has shape " + loom::ShapeToString(in.shape) +
                                         " (one image per run)");
  }
  if (labels.dtype != loom::DType::kInt64 && labels.dtype != loom::DType::kInt32) {
    return loom::Status::InvalidArgument(std::string("labels must be int64 or int32, got ") +
                                         loom::DTypeName(labels.dtype));
  }
  if (static_cast<int64_t>(labels.num_elements()) != n) {
    return loom::Status::InvalidArgument("labels has " + std::to_string(labels.num_elements()) +
                                         " elements, expected one per image (" + std::to_string(n) + ")");
  }
  if (loom::NumElements(out.shape) < 1) {
    return loom::Status::InvalidArgument("output '" + out.name + "' is empty");
  }
  *num_images = n;
  return loom::Status::Ok();
}

int64_t Label(const loom::HostTensor& labels, int64_t i) {
  return labels.dtype == loom::DType::kInt64 ? labels.as<int64_t>()[i] : labels.as<int32_t>()[i];
}

double Percentile(std::vector<double> sorted, double p) {
  std::sort(sorted.begin(), sorted.end());
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

// Multiply-accumulates of a Conv, Gemm or MatMul node from its shapes:
// output elements times the reduction (weight elements per output channel).
double NodeMacs(const loom::NodeDesc& n) {
  if (n.output_shapes.empty() || n.input_shapes.size() < 2) return 0;
  const double out = static_cast<double>(loom::NumElements(n.output_shapes[0]));
  const loom::Shape& w = n.input_shapes[1];
  if (n.op == "Conv" && w.size() >= 2) return out * static_cast<double>(loom::NumElements(w) / w[0]);
  if ((n.op == "Gemm" || n.op == "MatMul") && w.size() == 2) {
    const loom::Shape& a = n.input_shapes[0];
    return a.empty() ? 0 : out * static_cast<double>(a.back());
  }
  return 0;
}

// The accelerator for --device, and the kernels that drive it.
loom::Status Attach(const std::string& device, loom::LoadOptions* options) {
  if (device == "cpu") return loom::Status::Ok();
#if LOOM_HAVE_RTL
  loom::hw_sim::RegisterRtlAccelDevice();
#endif
  loom::fpga::AccelDeviceOptions open;
  open.name = device;
  std::unique_ptr<loom::fpga::AccelDevice> accel;
  RETURN_IF_ERROR(loom::fpga::OpenAccelDevice(open, &accel));
  options->device = std::make_shared<loom::fpga::FpgaRuntime>(std::move(accel));
  options->registry = &loom::fpga::FpgaKernelRegistry();
  return loom::Status::Ok();
}

// What the accelerator did in the last run, and what that projects to.
void PrintAcceleratorSummary(const loom::Engine& engine, const loom::ExecutionContext& ctx) {
  double total_macs = 0, fpga_macs = 0, cpu_predicted_ms = 0, board_ms = 0, clock_mhz = 0;
  int launches = 0, fpga_nodes = 0;
  const std::vector<loom::NodeProfile>& profile = ctx.profile();
  for (size_t i = 0; i < engine.nodes().size(); ++i) {
    const loom::NodeDesc& n = engine.nodes()[i];
    const double macs = NodeMacs(n);
    total_macs += macs;
    const bool on_fpga = n.device == "fpga" && !n.on_fallback;
    if (on_fpga) {
      fpga_macs += macs;
      ++fpga_nodes;
    } else {
      cpu_predicted_ms += n.predicted_ms;
    }
    if (i < profile.size() && profile[i].device.launched) {
      ++launches;
      board_ms += profile[i].device.BoardMs();
      clock_mhz = profile[i].device.clock_mhz;
    }
  }
  std::printf("accelerator: %d of %zu nodes, %.1f%% of the MACs (%.0f of %.0f), %d launch%s per image\n",
              fpga_nodes, engine.nodes().size(), total_macs > 0 ? 100.0 * fpga_macs / total_macs : 0.0, fpga_macs,
              total_macs, launches, launches == 1 ? "" : "es");
  if (launches > 0) {
    std::printf("projected on-board latency per image: %.3f ms (accelerator %.3f ms at %.0f MHz from its cycle "
                "counters, CPU nodes %.3f ms predicted for the target's CPU)\n",
                board_ms + cpu_predicted_ms, board_ms, clock_mhz, cpu_predicted_ms);
  }
}

int Run(const Args& args) {
  std::shared_ptr<const loom::Engine> engine;
  loom::LoadOptions options;
  loom::Status s = Attach(args.device, &options);
  if (!s.ok()) return Fail(s.ToString());
  s = loom::Engine::Load(args.plan, options, &engine);
  if (!s.ok()) return Fail(s.ToString());
  loom::HostTensor images, labels;
  s = loom::ReadNpy(args.images, &images);
  if (!s.ok()) return Fail(s.ToString());
  s = loom::ReadNpy(args.labels, &labels);
  if (!s.ok()) return Fail(s.ToString());
  int64_t n = 0;
  s = CheckInputs(*engine, images, labels, &n);
  if (!s.ok()) return Fail(s.ToString());

  std::unique_ptr<loom::ExecutionContext> ctx;
  loom::ContextOptions context;
  context.num_threads = args.threads;
  context.profile = args.device != "cpu";  // the accelerator's counters
  s = engine->CreateContext(context, &ctx);
  if (!s.ok()) return Fail(s.ToString());
  const loom::TensorDesc& in = engine->inputs()[0];
  const loom::TensorDesc& out = engine->outputs()[0];
  std::vector<float> scores(static_cast<size_t>(loom::NumElements(out.shape)));
  s = ctx->SetOutput(out.name, scores.data(), scores.size() * sizeof(float));
  if (!s.ok()) return Fail(s.ToString());

  const size_t image_elements = static_cast<size_t>(loom::NumElements(in.shape));
  auto run_image = [&](int64_t i) {
    loom::Status st = ctx->SetInput(in.name, images.as<float>() + i * image_elements, image_elements * sizeof(float));
    return st.ok() ? ctx->Run() : st;
  };
  s = run_image(0);  // warm-up, not timed
  if (!s.ok()) return Fail(s.ToString());

  std::vector<double> micros;
  micros.reserve(static_cast<size_t>(n));
  int64_t correct = 0;
  for (int64_t i = 0; i < n; ++i) {
    auto start = std::chrono::steady_clock::now();
    s = run_image(i);
    auto stop = std::chrono::steady_clock::now();
    if (!s.ok()) return Fail("image " + std::to_string(i) + ": " + s.ToString());
    micros.push_back(std::chrono::duration<double, std::micro>(stop - start).count());
    int64_t predicted = std::max_element(scores.begin(), scores.end()) - scores.begin();
    if (predicted == Label(labels, i)) ++correct;
  }

  double mean = 0;
  for (double m : micros) mean += m;
  mean /= static_cast<double>(micros.size());
  std::printf("plan: %s (input '%s' %s, output '%s' %s)\n", args.plan.c_str(), in.name.c_str(),
              loom::ShapeToString(in.shape).c_str(), out.name.c_str(), loom::ShapeToString(out.shape).c_str());
  std::printf("accuracy: %.1f%% (%lld/%lld)\n", 100.0 * static_cast<double>(correct) / static_cast<double>(n),
              static_cast<long long>(correct), static_cast<long long>(n));
  std::printf("latency per image: mean %.1f us, median %.1f us, p99 %.1f us (%d thread%s, device %s)\n", mean,
              Percentile(micros, 0.5), Percentile(micros, 0.99), args.threads, args.threads == 1 ? "" : "s",
              args.device.c_str());
  if (args.device != "cpu") PrintAcceleratorSummary(*engine, *ctx);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  loom::Status s = ParseArgs(argc, argv, &args);
  if (!s.ok()) return Fail(s.message());
  return Run(args);
}
