#include "kernels/cpu/testing/kernel_tester.h"

#include <cmath>
#include <limits>
#include <memory>

#include "kernels/common/registry.h"
#include "kernels/common/thread_pool.h"

namespace loom {
namespace testing {

TestTensor TestTensor::Bools(Shape shape, const std::vector<uint8_t>& values, bool constant) {
  TestTensor t = Of<uint8_t>(std::move(shape), values, constant);
  t.dtype = DType::kBool;
  return t;
}

TestTensor TestTensor::Empty(DType dtype, Shape shape) {
  TestTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  const int64_t n = NumElements(t.shape);
  t.bytes.assign(static_cast<size_t>(n < 0 ? 0 : n) * DTypeSize(dtype), 0);
  return t;
}

TestTensor TestTensor::Absent() {
  TestTensor t;
  t.present = false;
  return t;
}

TensorInfo TestTensor::Info() const {
  TensorInfo info;
  info.present = present;
  info.dtype = dtype;
  info.shape = shape;
  info.quant = quant;
  info.layout = layout;
  if (present && constant) info.const_data = bytes.data();
  return info;
}

TestTensor TestTensor::WithQuant(std::vector<float> scale, std::vector<int64_t> zero_point, int axis) const {
  TestTensor t = *this;
  t.quant.scale = std::move(scale);
  t.quant.zero_point = std::move(zero_point);
  t.quant.axis = axis;
  return t;
}

namespace {

KernelSetup MakeSetup(const std::string& op, const Attributes& attrs, const std::vector<TestTensor>& inputs,
                      const RunOptions& options) {
  KernelSetup setup;
  setup.op = op;
  setup.domain = options.domain;
  setup.opset = options.opset;
  setup.attrs = attrs;
  for (const TestTensor& t : inputs) setup.inputs.push_back(t.Info());
  setup.derived = options.derived;
  return setup;
}

Status CreateKernel(const std::string& op, const RunOptions& options, const KernelSetup& setup,
                    std::unique_ptr<Kernel>* out) {
  const KernelRegistry& registry = KernelRegistry::Global();
  std::vector<const KernelDef*> defs;
  if (!options.kernel_id.empty()) {
    const KernelDef* def = registry.FindById(options.kernel_id);
    if (!def) return Status::NotFound("no kernel with id " + options.kernel_id);
    defs.push_back(def);
  } else {
    defs = registry.FindByOp(op, options.domain);
    if (defs.empty()) return Status::Unsupported("unsupported op " + op);
  }
  Status last;
  for (const KernelDef* def : defs) {
    std::unique_ptr<Kernel> kernel = def->create();
    last = kernel->Prepare(setup);
    if (last.ok()) {
      *out = std::move(kernel);
      return Status::Ok();
    }
  }
  return last;
}

}  // namespace

KernelSetup MakeKernelSetup(const std::string& op, const Attributes& attrs, const std::vector<TestTensor>& inputs,
                            const std::vector<TestTensor>& outputs, const RunOptions& options) {
  KernelSetup setup = MakeSetup(op, attrs, inputs, options);
  for (const TestTensor& t : outputs) {
    TensorInfo info;
    info.present = true;
    info.dtype = t.dtype;
    info.shape = t.shape;
    info.quant = t.quant;
    info.layout = t.layout;
    setup.outputs.push_back(info);
  }
  return setup;
}

Status RunKernel(const std::string& op, const Attributes& attrs, const std::vector<TestTensor>& inputs,
                 std::vector<TestTensor>* outputs, const RunOptions& options) {
  const KernelSetup setup = MakeKernelSetup(op, attrs, inputs, *outputs, options);
  for (TestTensor& t : *outputs) {
    const int64_t n = NumElements(t.shape);
    // Another layout's size is the caller's (Empty(...) then resized).
    const size_t bytes =
        t.layout == Layout::kRowMajor ? static_cast<size_t>(n < 0 ? 0 : n) * DTypeSize(t.dtype) : t.bytes.size();
    t.bytes.assign(bytes, 0xCD);  // poison
  }
  std::unique_ptr<Kernel> kernel;
  RETURN_IF_ERROR(CreateKernel(op, options, setup, &kernel));

  std::vector<const void*> in_ptrs;
  for (const TestTensor& t : inputs) in_ptrs.push_back(t.present ? t.bytes.data() : nullptr);
  std::vector<void*> out_ptrs;
  for (TestTensor& t : *outputs) out_ptrs.push_back(t.bytes.data());

  StaticThreadPool pool(options.threads);
  const size_t scratch_bytes = kernel->ScratchBytes(options.threads);
  std::vector<uint8_t> scratch_storage(scratch_bytes + 64);
  void* scratch = scratch_storage.data();
  size_t space = scratch_storage.size();
  std::align(64, scratch_bytes, scratch, space);

  KernelArgs args;
  args.inputs = in_ptrs.data();
  args.outputs = out_ptrs.data();
  args.num_inputs = in_ptrs.size();
  args.num_outputs = out_ptrs.size();
  args.scratch = scratch_bytes ? scratch : nullptr;
  args.pool = options.threads > 1 ? &pool : nullptr;
  return kernel->Run(args);
}

Status InferShapes(const std::string& op, const Attributes& attrs, const std::vector<TestTensor>& inputs,
                   const std::vector<DType>& output_dtypes, std::vector<Shape>* shapes,
                   const RunOptions& options) {
  KernelSetup setup = MakeSetup(op, attrs, inputs, options);
  for (DType d : output_dtypes) {
    TensorInfo info;
    info.present = true;
    info.dtype = d;
    setup.outputs.push_back(info);
  }
  std::vector<const KernelDef*> defs = KernelRegistry::Global().FindByOp(op, options.domain);
  if (defs.empty()) return Status::Unsupported("unsupported op " + op);
  // The first candidate that infers them, as the builder asks.
  Status first;
  for (const KernelDef* def : defs) {
    Status s = def->create()->InferOutputShapes(setup, shapes);
    if (s.ok()) return s;
    if (first.ok()) first = s;
  }
  return first;
}

double MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(static_cast<double>(a[i]) - b[i]);
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    if (d > m) m = d;
  }
  return m;
}

}  // namespace testing
}  // namespace loom
