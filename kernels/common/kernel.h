// The kernel contract, shared by the engine (which runs plans) and the builder
// (which asks kernels whether they support a node, and runs them to fold
// constants). A kernel instance belongs to one node.
//
//   Prepare  validates everything about the node once, when a plan is loaded
//            or while the builder places the node: dtypes, static shapes,
//            attributes, constant inputs. It returns Status::Unsupported for an
//            op variant Loom lacks (the message names the attribute, mode or
//            dtype) and InvalidArgument for a node that breaks the ONNX spec.
//            It precomputes whatever Run needs and stores it in the kernel.
//   Run      executes with data pointers only. It does not allocate and runs
//            "blindly" on what Prepare validated; it may only fail on
//            data-dependent problems (an index out of range, a runtime shape
//            input that contradicts the plan's static shapes) and then returns
//            Status::OutOfRange / InvalidArgument naming the problem.
//
// Shapes are static: every input and output shape is known at Prepare. Run is
// const and may be called concurrently from several ExecutionContexts.
//
// Derived constants: what Prepare computes from constant inputs (packed or
// Winograd-transformed weights) can be computed once by the builder instead
// and stored in the plan. After a Prepare with pack_constants, the builder
// asks DerivedConstants() for the kernel's bytes, each under a key that names
// everything the bytes depend on besides the constants themselves (kernel,
// algorithm, instruction-set path and its blocking, shapes, a layout
// version). The engine offers them back in KernelSetup::derived; Prepare uses
// an offered constant in place, without copying, when its key is the one it
// would compute itself and the size matches, and otherwise computes its own
// as before (a plan built on another CPU still runs, only loads slower).
// A kernel that took a derived constant in place of a constant input (the
// raw weights it would otherwise transform) says so in ReadsConstantInput:
// the engine then neither checks nor pages in those bytes at load.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/attributes.h"
#include "common/device_run_stats.h"
#include "common/dtype.h"
#include "common/layout.h"
#include "common/quant_params.h"
#include "common/status.h"
#include "kernels/common/device_context.h"
#include "kernels/common/parallel.h"

namespace loom {

// A tensor as Prepare sees it.
struct TensorInfo {
  bool present = false;              // false for an omitted optional input
  DType dtype = DType::kUndefined;
  Shape shape;
  Layout layout = Layout::kRowMajor;  // how the data is arranged (shape stays in ONNX order)
  QuantParams quant;
  // Non-null when the value is constant (an initializer or a folded result):
  // row-major data of NumElements(shape) * DTypeSize(dtype) bytes, valid for
  // the kernel's lifetime. Kernels may read it in Prepare (e.g. Reshape's
  // target shape, Slice's starts) and may keep pointers into it.
  const void* const_data = nullptr;

  int64_t num_elements() const { return NumElements(shape); }
  size_t num_bytes() const { return static_cast<size_t>(NumElements(shape)) * DTypeSize(dtype); }
  int rank() const { return static_cast<int>(shape.size()); }
};

// Bytes a kernel derives from its node's constant inputs (see the top of the
// file), valid while the kernel lives (builder) or while the plan is mapped
// (engine); 64-byte aligned.
struct DerivedConstant {
  std::string key;
  const void* data = nullptr;
  size_t bytes = 0;
  // Engine only: set when FindDerived handed the constant to the kernel.
  mutable bool taken = false;
};

// A node as its kernel sees it. It carries no node name: kernels return bare
// messages ("weight has 3 dims, expected 4") and whoever calls them adds the
// node's label ("conv1 (Conv): ...", common/node_label.h).
struct KernelSetup {
  std::string op;         // ONNX op type, e.g. "Conv"
  std::string domain;     // "" for the default ONNX domain
  int opset = 17;         // opset version of the node's domain in its model
  Attributes attrs;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;  // dtype and shape are always set
  // The configuration of the device the node is placed on: the build
  // target's while building, the loaded device's (or the CPU's) in the
  // engine. Null means the CPU; read it through device().
  const DeviceConfig* device_config = nullptr;

  const DeviceConfig& device() const { return device_config ? *device_config : CpuDeviceConfig(); }
  // The attached device when the engine loads a plan (null while building,
  // and for CPU nodes): a device kernel may allocate device memory and
  // upload its constants in Prepare. Outlives the kernel.
  DeviceRuntime* runtime = nullptr;
  // False when the caller only asks whether the kernel takes the node (the
  // builder's placement and kernel choice) and will never call Run: a kernel
  // may then skip packing or transforming its constant inputs, but must
  // accept or refuse the node exactly as it would otherwise.
  bool pack_constants = true;
  // Derived constants the plan stores for this node (engine only): Prepare
  // may use one in place instead of computing it (FindDerived).
  std::vector<DerivedConstant> derived;

  // Errors with a bare message, e.g. "weight has 3 dims, expected 4" (an
  // Unsupported one reads "unsupported <what>"). Kernels never name their
  // node: whoever calls the kernel adds the node's label (common/node_label.h).
  Status Error(StatusCode code, const std::string& what) const;
  Status Invalid(const std::string& what) const { return Error(StatusCode::kInvalidArgument, what); }
  Status Unsupported(const std::string& what) const { return Error(StatusCode::kUnsupported, what); }

  bool HasInput(size_t i) const { return i < inputs.size() && inputs[i].present; }
  // The offered derived constant with this key and size, or null. A kernel
  // asks only for what it will use: the engine counts a constant it handed
  // out as read (and checks its bytes).
  const void* FindDerived(const std::string& key, size_t bytes) const {
    for (const DerivedConstant& d : derived)
      if (d.key == key && d.bytes == bytes) {
        d.taken = true;
        return d.data;
      }
    return nullptr;
  }
};

// Run-time arguments: data pointers in the node's input/output order
// (nullptr for omitted optional inputs), per-context scratch and the pool.
struct KernelArgs {
  const void* const* inputs = nullptr;
  void* const* outputs = nullptr;
  size_t num_inputs = 0;
  size_t num_outputs = 0;
  void* scratch = nullptr;  // ScratchBytes() bytes, 64-byte aligned, not zeroed
  ThreadPool* pool = nullptr;  // null means run serially
  DeviceRuntime* device = nullptr;  // the node's device at run time; null for CPU nodes
  // The context's activation arena: a device kernel finds where the device
  // sees an arena pointer p at arena->device_address + (p - arena->host).
  const MemoryBlock* arena = nullptr;
  // Non-null when the context profiles: a device kernel that launches the
  // device fills it with the launch's counters.
  DeviceRunStats* stats = nullptr;

  template <typename T> const T* in(size_t i) const { return static_cast<const T*>(inputs[i]); }
  template <typename T> T* out(size_t i) const { return static_cast<T*>(outputs[i]); }
};

// Other ways a kernel can run its node, for the builder to time (builder/
// exec/choose_tactics.h): the values of one int attribute of the node, each
// a tactic that computes the same result up to float rounding
// (loom.winograd: 0 direct, 2 or 4 the Winograd tile). values[0] is the one
// the kernel takes without the attribute. Empty: nothing to choose.
struct KernelTactics {
  std::string attribute;
  std::vector<int64_t> values;
  // Nodes whose tactics time alike share a key (the same shapes, whatever
  // their epilogues), so the builder times one of them; empty: the node's
  // kernel, attributes and tensor types.
  std::string timing_key;
};

class Kernel {
 public:
  virtual ~Kernel() = default;

  virtual Status Prepare(const KernelSetup& setup) = 0;

  // Scratch memory Run needs, per ExecutionContext, when run with up to
  // `num_threads` threads. Called after a successful Prepare.
  virtual size_t ScratchBytes(int num_threads) const {
    (void)num_threads;
    return 0;
  }

  virtual Status Run(const KernelArgs& args) const = 0;

  // Optional: the constants this kernel derived in its last Prepare (with
  // pack_constants), for the builder to store in the plan. Pointers stay
  // valid while the kernel lives.
  virtual std::vector<DerivedConstant> DerivedConstants() const { return {}; }

  // Optional: whether the kernel, as prepared, reads the data of constant
  // input `i` (in Prepare or in Run). False only for an input a derived
  // constant replaced in the last Prepare: neither Prepare nor Run touched
  // or will touch its bytes. Called after a successful Prepare.
  virtual bool ReadsConstantInput(size_t i) const {
    (void)i;
    return true;
  }

  // Optional: the node's tactics, as prepared without their attribute
  // (KernelTactics). Called after a successful Prepare.
  virtual KernelTactics Tactics() const { return {}; }

  // Optional: output shapes for a node whose shapes ONNX inference could not
  // settle (data-dependent ops such as Range, NonZero or Reshape), computed
  // from the input shapes and constant inputs of `setup` (setup.outputs holds
  // only dtypes). Used by the builder only. Return Unsupported when the shapes
  // depend on non-constant data.
  virtual Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const {
    (void)shapes;
    return setup.Unsupported("output shape depends on data that is not constant");
  }
};

}  // namespace loom
