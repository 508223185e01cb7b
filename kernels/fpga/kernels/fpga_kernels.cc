#include "kernels/fpga/kernels/fpga_kernels.h"

#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/kernel.h"
#include "kernels/common/registry.h"
#include "kernels/fpga/kernels/accel_layer.h"
#include "kernels/fpga/kernels/launch_attrs.h"
#include "kernels/fpga/lowering/dma_bounds.h"
#include "kernels/fpga/runtime/fpga_runtime.h"

namespace loom {
namespace fpga {
namespace {

// CheckDmaBounds' message with what the launch's base slots hold.
std::string StreamOutOfBounds(const Status& bounds) {
  return "the launch's command stream: " + bounds.message() +
         " (slot 0 is the context's arena, slot 1 the constant image; 2 and 3 are unused)";
}

// An arena range the launch needs cache maintenance for.
struct Range {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

Status ReadRanges(const KernelSetup& setup, const char* attr, std::vector<Range>* out) {
  const std::vector<int64_t> v = setup.attrs.GetInts(attr);
  if (v.size() % 2 != 0) return setup.Invalid(std::string(attr) + " has an odd number of values");
  for (size_t i = 0; i < v.size(); i += 2) {
    if (v[i] < 0 || v[i + 1] < 0) return setup.Invalid(std::string(attr) + " has a negative offset or size");
    out->push_back({static_cast<uint64_t>(v[i]), static_cast<uint64_t>(v[i + 1])});
  }
  return Status::Ok();
}

class FpgaKernel final : public Kernel {
 public:
  ~FpgaKernel() override {
    if (runtime_ != nullptr && buffer_.bytes != 0) runtime_->FreeBuffer(buffer_);
  }

  Status Prepare(const KernelSetup& setup) override {
    const auto* config = dynamic_cast<const FpgaDeviceConfig*>(&setup.device());
    if (config == nullptr) return setup.Unsupported("device '" + setup.device().name() + "' is not a Loom accelerator");
    if (setup.runtime == nullptr) return PrepareForBuild(setup, *config);
    runtime_ = dynamic_cast<FpgaRuntime*>(setup.runtime);
    if (runtime_ == nullptr) return setup.Unsupported("the attached device is not a Loom accelerator runtime");
    config_ = &config->accel();
    clock_mhz_ = config->clock_mhz();
    const int64_t nodes = setup.attrs.GetInt(kLaunchNodesAttr, -1);
    if (nodes == 0) return Status::Ok();  // joined an earlier node's launch
    if (nodes < 0) return setup.Invalid("no accelerator launch (the node was not lowered)");
    launch_nodes_ = static_cast<int>(nodes);
    if (setup.attrs.GetInt(kLaunchInputsAttr, 0) != kLaunchInputs || setup.inputs.size() < kLaunchInputs)
      return setup.Invalid("loom.launch_inputs must be " + std::to_string(kLaunchInputs));
    const TensorInfo& commands = setup.inputs[setup.inputs.size() - 2];
    const TensorInfo& image = setup.inputs[setup.inputs.size() - 1];
    if (commands.const_data == nullptr || image.const_data == nullptr || commands.dtype != DType::kUInt8 ||
        image.dtype != DType::kUInt8)
      return setup.Invalid("the launch's command stream and constant image must be uint8 constants");
    const size_t command_bytes = commands.num_bytes();
    if (command_bytes == 0 || command_bytes % sizeof(contract::Command) != 0)
      return setup.Invalid("the command stream has " + std::to_string(command_bytes) + " bytes, not a multiple of " +
                           std::to_string(sizeof(contract::Command)));
    count_ = static_cast<uint32_t>(command_bytes / sizeof(contract::Command));
    commands_ = static_cast<const contract::Command*>(commands.const_data);
    // The accelerator has no memory protection: every DMA must stay inside
    // its slot's buffer. The constant image is known now; the arena comes
    // with each context, so Run compares its size with what slot 0 needs.
    image_bytes_ = image.num_bytes();
    const Status bounds = lowering::CheckDmaBounds(*config_, commands_, count_, Slots(lowering::kSlotSizeUnknown));
    if (!bounds.ok()) return setup.Invalid(StreamOutOfBounds(bounds));
    arena_bytes_needed_ = lowering::DmaBytesNeeded(*config_, commands_, count_)[kArenaSlot];
    RETURN_IF_ERROR(ReadRanges(setup, kFlushAttr, &flush_));
    RETURN_IF_ERROR(ReadRanges(setup, kInvalidateAttr, &invalidate_));
    macs_ = static_cast<uint64_t>(setup.attrs.GetInt(kMacsAttr, 0));
    array_macs_ = static_cast<uint64_t>(setup.attrs.GetInt(kArrayMacsAttr, 0));
    return Upload(command_bytes, image.const_data, image_bytes_);
  }

  Status Run(const KernelArgs& args) const override {
    if (launch_nodes_ == 0) return Status::Ok();
    const MemoryBlock* arena = args.arena;
    if (arena == nullptr || arena->space != MemorySpace::kDeviceVisible)
      return Status::InvalidArgument(runtime_->name() + ": the context's arena is not device-visible memory");
    if (arena->bytes < arena_bytes_needed_) {  // CheckDmaBounds names the command that leaves it
      const Status bounds = lowering::CheckDmaBounds(*config_, commands_, count_, Slots(arena->bytes));
      if (!bounds.ok()) return Status::InvalidArgument(StreamOutOfBounds(bounds));
    }
    for (const Range& r : flush_) RETURN_IF_ERROR(CheckRange(*arena, r, "flush"));
    for (const Range& r : invalidate_) RETURN_IF_ERROR(CheckRange(*arena, r, "invalidate"));
    // A run of this launch that timed out earlier may still be writing the
    // arena: it must end before the new inputs are flushed, or it would
    // overwrite them (a launch may reuse its input's memory for later values).
    RETURN_IF_ERROR(runtime_->WaitIdle());
    for (const Range& r : flush_) RETURN_IF_ERROR(runtime_->FlushBlock(*arena, r.offset, r.bytes));
    LaunchArgs launch;
    launch.cmd_addr = buffer_.device_address;
    launch.base[kArenaSlot] = arena->device_address;
    launch.base[kConstantSlot] = buffer_.device_address + image_offset_;
    launch.count = count_;
    launch.commands = commands_;
    launch.timeout_ms = runtime_->launch_timeout_ms();
    LaunchResult result;
    const Status s = runtime_->Launch(launch, &result);
    if (args.stats != nullptr) Report(result, args.stats);
    RETURN_IF_ERROR(s);
    for (const Range& r : invalidate_) RETURN_IF_ERROR(runtime_->InvalidateBlock(*arena, r.offset, r.bytes));
    return Status::Ok();
  }

 private:
  // While building: whether the accelerator takes the node at all.
  static Status PrepareForBuild(const KernelSetup& setup, const FpgaDeviceConfig& config) {
    KernelSetup layer_setup = setup;
    const int64_t extra = setup.attrs.GetInt(kLaunchInputsAttr, 0);
    if (extra < 0 || static_cast<size_t>(extra) > setup.inputs.size())
      return setup.Invalid("loom.launch_inputs is " + std::to_string(extra));
    layer_setup.inputs.resize(setup.inputs.size() - static_cast<size_t>(extra));
    AccelLayer layer;
    return AccelLayerFromSetup(layer_setup, config.accel(), &layer);
  }

  // The launch's slot sizes with an arena of arena_bytes.
  std::array<uint64_t, contract::kBaseSlots> Slots(uint64_t arena_bytes) const {
    std::array<uint64_t, contract::kBaseSlots> slots{};  // slots 2 and 3: no buffer
    slots[kArenaSlot] = arena_bytes;
    slots[kConstantSlot] = image_bytes_;
    return slots;
  }

  // Commands first (32-byte aligned, as CMD_ADDR wants), then the image at a
  // 64-byte boundary; flushed once, the device only reads them.
  Status Upload(size_t command_bytes, const void* image, size_t image_bytes) {
    image_offset_ = (command_bytes + 63) / 64 * 64;
    const size_t total = image_offset_ + image_bytes;
    Status s = runtime_->AllocateBuffer(total, 64, &buffer_);
    if (!s.ok()) {
      buffer_ = DeviceBuffer();
      return s.WithContext("the launch's command stream and constants (" + std::to_string(total) + " bytes)");
    }
    std::memcpy(buffer_.host, commands_, command_bytes);
    if (image_bytes != 0) std::memcpy(buffer_.host + image_offset_, image, image_bytes);
    return runtime_->Flush(buffer_, 0, total);
  }

  Status CheckRange(const MemoryBlock& arena, const Range& r, const char* what) const {
    if (r.offset <= arena.bytes && r.bytes <= arena.bytes - r.offset) return Status::Ok();
    return Status::OutOfRange(std::string(what) + " range [" + std::to_string(r.offset) + ", +" +
                              std::to_string(r.bytes) + ") lies outside the arena of " + std::to_string(arena.bytes) +
                              " bytes");
  }

  void Report(const LaunchResult& result, DeviceRunStats* stats) const {
    stats->launched = true;
    stats->nodes = launch_nodes_;
    stats->cycles = result.counters.cycles;
    stats->busy[0] = result.counters.load_busy;
    stats->busy[1] = result.counters.compute_busy;
    stats->busy[2] = result.counters.store_busy;
    stats->dma_read_bytes = result.counters.dma_read_bytes;
    stats->dma_write_bytes = result.counters.dma_write_bytes;
    stats->macs = macs_;
    stats->array_macs = array_macs_;
    stats->array_n = config_->n;
    stats->clock_mhz = clock_mhz_;
  }

  FpgaRuntime* runtime_ = nullptr;
  const contract::AccelConfig* config_ = nullptr;
  double clock_mhz_ = 0;
  int launch_nodes_ = 0;
  DeviceBuffer buffer_;
  size_t image_offset_ = 0;
  size_t image_bytes_ = 0;
  uint64_t arena_bytes_needed_ = 0;  // one past the last arena byte the stream accesses
  uint32_t count_ = 0;
  const contract::Command* commands_ = nullptr;  // the plan's copy, for error messages
  std::vector<Range> flush_, invalidate_;
  uint64_t macs_ = 0, array_macs_ = 0;
};

std::unique_ptr<Kernel> MakeFpgaKernel() { return std::make_unique<FpgaKernel>(); }

}  // namespace

void RegisterFpgaKernels(KernelRegistry* registry) {
  for (const char* op : {"Conv", "Gemm", "MatMul", "Add", "MaxPool"}) {
    KernelDef def;
    def.id = std::string("fpga.") + op;
    def.op = op;
    def.device = Device::kFpga;
    def.create = MakeFpgaKernel;
    // Row-major while the builder places nodes; padded NHWC once lowered.
    def.layouts = LayoutBit(Layout::kRowMajor) | LayoutBit(Layout::kNhwcPadded);
    registry->Add(def);
  }
}

const KernelRegistry& FpgaKernelRegistry() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry(KernelRegistry::Global());
    RegisterFpgaKernels(r);
    return r;
  }();
  return *registry;
}

}  // namespace fpga
}  // namespace loom
