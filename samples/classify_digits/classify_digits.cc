// classify_digits: the Loom engine's public API in one small program.
//
//   classify_digits MODEL.plan IMAGES.npy LABELS.npy [--threads N]
//
// Loads a plan with one float32 input (one image, e.g. 1x1x8x8) and one
// float32 output (class scores), runs every image of IMAGES.npy (N images,
// float32) through one ExecutionContext, takes the argmax of the scores and
// compares it with LABELS.npy (N integer labels). Prints the accuracy and the
// latency per image (mean, median, p99) in microseconds.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "loom/engine.h"
#include "tools/tensor_io/host_tensor.h"

namespace {

constexpr char kUsage[] = "usage: classify_digits MODEL.plan IMAGES.npy LABELS.npy [--threads N]";

struct Args {
  std::string plan;
  std::string images;
  std::string labels;
  int threads = 1;
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

int Run(const Args& args) {
  std::shared_ptr<const loom::Engine> engine;
  loom::Status s = loom::Engine::Load(args.plan, &engine);
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
  s = engine->CreateContext({args.threads}, &ctx);
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
  std::printf("latency per image: mean %.1f us, median %.1f us, p99 %.1f us (%d thread%s)\n", mean,
              Percentile(micros, 0.5), Percentile(micros, 0.99), args.threads, args.threads == 1 ? "" : "s");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  loom::Status s = ParseArgs(argc, argv, &args);
  if (!s.ok()) return Fail(s.message());
  return Run(args);
}
