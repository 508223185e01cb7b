#include "kernels/fpga/device/xrt_device.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <thread>
#include <utility>
#include <vector>

#include "experimental/xrt_ip.h"
#include "experimental/xrt_xclbin.h"
#include "kernels/fpga/device/accel_driver.h"
#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"

namespace loom {
namespace fpga {
namespace {

namespace c = contract;

const char kName[] = "fpga-xrt";
constexpr uint32_t kRegisterBytes = c::kRegDmaWriteBytes + 8;
// xrt::bo buffers start on a page: larger alignments are padded.
constexpr size_t kBoAlignment = 4096;

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llX", static_cast<unsigned long long>(value));
  return text;
}

// "fpga-xrt: <what>: <the exception's text>".
Status Failed(const std::string& what, const std::exception& e) {
  std::string reason = e.what();
  if (reason.find("XILINX_XRT") != std::string::npos) reason += " (is XRT installed and set up on this board?)";
  return Status::DeviceError(std::string(kName) + ": " + what + ": " + reason);
}

Status FailedUnknown(const std::string& what) {
  return Status::DeviceError(std::string(kName) + ": " + what + ": unknown exception");
}

// Runs `body`, turning whatever it throws into a DeviceError about `what`.
template <typename Body>
Status Guard(const std::string& what, Body&& body) {
  try {
    body();
    return Status::Ok();
  } catch (const std::exception& e) {
    return Failed(what, e);
  } catch (...) {
    return FailedUnknown(what);
  }
}

class XrtAccelDevice : public AccelDevice {
 public:
  explicit XrtAccelDevice(const XrtDeviceOptions& options) : options_(options) {}
  ~XrtAccelDevice() override;

  Status Open();

  const std::string& name() const override { return name_; }
  const c::AccelConfig& config() const override { return *config_; }

  Status Allocate(size_t bytes, size_t alignment, DeviceBuffer* out) override;
  void Free(const DeviceBuffer& buffer) override;
  Status Flush(const DeviceBuffer& buffer, size_t offset, size_t bytes) override;
  Status Invalidate(const DeviceBuffer& buffer, size_t offset, size_t bytes) override;

  Status WriteRegister(uint32_t offset, uint32_t value) override;
  Status ReadRegister(uint32_t offset, uint32_t* value) override;
  Status WaitDone(uint32_t timeout_ms) override;

 private:
  struct Buffer {
    xrt::bo bo;
    size_t pad = 0;  // bytes before the aligned start
  };

  Status Sync(const DeviceBuffer& buffer, size_t offset, size_t bytes, xclBOSyncDirection direction, const char* what);
  Status CheckRegister(uint32_t offset) const;
  Status WaitPolling(uint32_t timeout_ms);
  Status WaitInterrupt(uint32_t timeout_ms);
  std::string DeviceText() const { return "device " + std::to_string(options_.device_index); }

  const XrtDeviceOptions options_;
  const std::string name_ = kName;
  const c::AccelConfig* config_ = nullptr;
  xrt::device device_;
  xrt::uuid uuid_;
  xrt::ip ip_;
  std::string ip_name_;
  int memory_group_ = 0;
  bool has_interrupt_ = false;
#ifdef LOOM_XRT_IP_INTERRUPT
  xrt::ip::interrupt interrupt_{nullptr};
#endif
  std::map<uint64_t, Buffer> buffers_;  // by DeviceBuffer::handle
  uint64_t next_handle_ = 1;
};

XrtAccelDevice::~XrtAccelDevice() {
  // Release in dependency order; XRT's destructors are not to throw, but
  // nothing may escape a destructor here either.
  try {
#ifdef LOOM_XRT_IP_INTERRUPT
    interrupt_ = xrt::ip::interrupt{nullptr};
#endif
    buffers_.clear();
    ip_ = xrt::ip();
    device_ = xrt::device();
  } catch (...) {
  }
}

Status XrtAccelDevice::Open() {
  const std::string& path = options_.xclbin;
  if (path.empty()) {
    return Status::InvalidArgument(name_ + ": no xclbin given (the loom_accel.xclbin of hw/board/kv260/build.sh)");
  }
  // A missing file is named as such, before XRT's own message about it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    return Status::DeviceError(name_ + ": cannot read xclbin " + path + ": " + std::strerror(error));
  }
  ::close(fd);

  RETURN_IF_ERROR(Guard("cannot open " + DeviceText(), [&] { device_ = xrt::device(options_.device_index); }));
  xrt::xclbin xclbin;
  RETURN_IF_ERROR(Guard("cannot read xclbin " + path, [&] { xclbin = xrt::xclbin(path); }));

  // The compute unit of the kernel and the bank of its memory port.
  std::vector<std::string> kernels;
  std::string cu;
  int group = -1;
  RETURN_IF_ERROR(Guard("cannot read the kernels of " + path, [&] {
    for (const auto& kernel : xclbin.get_kernels()) kernels.push_back(kernel.get_name());
    const xrt::xclbin::kernel kernel = xclbin.get_kernel(XrtDevice::kKernelName);
    if (!kernel) return;
    const auto cus = kernel.get_cus();
    if (!cus.empty()) cu = cus.front().get_name();
    const auto args = kernel.get_args();
    if (!args.empty()) {
      const auto mems = args.front().get_mems();
      if (!mems.empty()) group = mems.front().get_index();
    }
  }));
  if (std::find(kernels.begin(), kernels.end(), XrtDevice::kKernelName) == kernels.end()) {
    std::string names;
    for (const std::string& kernel : kernels) names += (names.empty() ? "" : ", ") + kernel;
    return Status::DeviceError(name_ + ": " + path + " has no kernel " + XrtDevice::kKernelName + " (it has " +
                               (names.empty() ? std::string("none") : names) +
                               "): not a Loom bitstream (hw/board/kv260/build.sh)");
  }
  if (cu.empty()) {
    return Status::DeviceError(name_ + ": " + path + ": kernel " + XrtDevice::kKernelName + " has no compute unit");
  }
  memory_group_ = options_.memory_group >= 0 ? options_.memory_group : std::max(group, 0);

  RETURN_IF_ERROR(Guard("cannot load " + path + " on " + DeviceText(), [&] { uuid_ = device_.load_xclbin(xclbin); }));
  ip_name_ = cu;
  RETURN_IF_ERROR(
      Guard("cannot open the compute unit " + cu + " of " + path, [&] { ip_ = xrt::ip(device_, uuid_, cu); }));

#ifdef LOOM_XRT_IP_INTERRUPT
  if (options_.interrupt) {
    // Not every platform routes the kernel's interrupt: then poll.
    try {
      interrupt_ = ip_.create_interrupt_notify();
      has_interrupt_ = true;
    } catch (...) {
      has_interrupt_ = false;
    }
  }
#endif

  const Status identified = Identify(*this, &config_);
  if (!identified.ok()) {
    std::string known;
    for (const c::AccelConfig& config : c::kConfigs) {
      known += std::string(known.empty() ? "" : ", ") + config.name + " " + Hex(config.config_id);
    }
    return Status(identified.code(),
                  identified.message() + " (" + path + " on " + DeviceText() + "; this Loom knows " + known + ")");
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- memory

Status XrtAccelDevice::Allocate(size_t bytes, size_t alignment, DeviceBuffer* out) {
  if (bytes == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return Status::InvalidArgument(name_ + ": allocation of " + std::to_string(bytes) + " bytes aligned to " +
                                   std::to_string(alignment) + " (need bytes > 0 and a power-of-two alignment)");
  }
  const size_t padded = bytes + (alignment > kBoAlignment ? alignment : 0);
  Buffer buffer;
  uint8_t* host = nullptr;
  uint64_t address = 0;
  const Status made = Guard(
      "cannot allocate " + std::to_string(bytes) + " bytes of device memory in bank " + std::to_string(memory_group_),
      [&] {
        buffer.bo = xrt::bo(device_, padded, xrt::bo::flags::normal, static_cast<xrt::memory_group>(memory_group_));
        host = buffer.bo.map<uint8_t*>();
        address = buffer.bo.address();
      });
  RETURN_IF_ERROR(made);
  const uint64_t aligned = (address + alignment - 1) / alignment * alignment;
  buffer.pad = static_cast<size_t>(aligned - address);
  if (buffer.pad + bytes > padded) {
    return Status::DeviceError(name_ + ": buffer at " + Hex(address) + " cannot be aligned to " +
                               std::to_string(alignment) + " bytes");
  }
  std::memset(host + buffer.pad, 0, bytes);
  const uint64_t handle = next_handle_++;
  *out = DeviceBuffer{host + buffer.pad, aligned, bytes, handle};
  buffers_.emplace(handle, std::move(buffer));
  const Status flushed = Flush(*out, 0, bytes);  // the accelerator sees the zeros too
  if (!flushed.ok()) {
    Free(*out);
    *out = DeviceBuffer{};
    return flushed;
  }
  return Status::Ok();
}

void XrtAccelDevice::Free(const DeviceBuffer& buffer) {
  try {
    buffers_.erase(buffer.handle);
  } catch (...) {
  }
}

Status XrtAccelDevice::Sync(const DeviceBuffer& buffer, size_t offset, size_t bytes, xclBOSyncDirection direction,
                            const char* what) {
  auto it = buffers_.find(buffer.handle);
  if (it == buffers_.end() || offset > buffer.bytes || bytes > buffer.bytes - offset) {
    return Status::InvalidArgument(name_ + ": " + what + " of [" + std::to_string(offset) + ", +" +
                                   std::to_string(bytes) + ") outside a buffer of " + std::to_string(buffer.bytes) +
                                   " bytes" + (it == buffers_.end() ? " (not allocated here)" : ""));
  }
  if (bytes == 0) return Status::Ok();
  Buffer& entry = it->second;
  return Guard(std::string(what) + " of " + std::to_string(bytes) + " bytes at " + Hex(buffer.device_address + offset),
               [&] { entry.bo.sync(direction, bytes, entry.pad + offset); });
}

Status XrtAccelDevice::Flush(const DeviceBuffer& buffer, size_t offset, size_t bytes) {
  return Sync(buffer, offset, bytes, XCL_BO_SYNC_BO_TO_DEVICE, "flush");
}

Status XrtAccelDevice::Invalidate(const DeviceBuffer& buffer, size_t offset, size_t bytes) {
  return Sync(buffer, offset, bytes, XCL_BO_SYNC_BO_FROM_DEVICE, "invalidate");
}

// ---------------------------------------------------------------- registers

Status XrtAccelDevice::CheckRegister(uint32_t offset) const {
  if (offset % 4 != 0 || offset >= kRegisterBytes) {
    return Status::InvalidArgument(name_ + ": no register at offset " + std::to_string(offset));
  }
  return Status::Ok();
}

Status XrtAccelDevice::WriteRegister(uint32_t offset, uint32_t value) {
  RETURN_IF_ERROR(CheckRegister(offset));
  return Guard("cannot write register " + Hex(offset) + " of " + ip_name_, [&] { ip_.write_register(offset, value); });
}

Status XrtAccelDevice::ReadRegister(uint32_t offset, uint32_t* value) {
  RETURN_IF_ERROR(CheckRegister(offset));
  return Guard("cannot read register " + Hex(offset) + " of " + ip_name_, [&] { *value = ip_.read_register(offset); });
}

Status XrtAccelDevice::WaitDone(uint32_t timeout_ms) {
  return has_interrupt_ ? WaitInterrupt(timeout_ms) : WaitPolling(timeout_ms);
}

// ap_done is clear-on-read and nothing between ap_start and here reads CTRL
// (accel_driver.h's Launch reads it only before the start), so a set bit is
// this run's.
Status XrtAccelDevice::WaitPolling(uint32_t timeout_ms) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  std::chrono::microseconds pause(10);
  for (;;) {
    uint32_t ctrl = 0;
    RETURN_IF_ERROR(ReadRegister(c::kRegCtrl, &ctrl));
    if ((ctrl & kApDone) != 0) return Status::Ok();
    const Clock::time_point now = Clock::now();
    if (timeout_ms != 0 && now >= deadline) {
      return Status::DeviceError(name_ + ": no ap_done within " + std::to_string(timeout_ms) + " ms");
    }
    auto sleep = pause;
    if (timeout_ms != 0) sleep = std::min(sleep, std::chrono::duration_cast<std::chrono::microseconds>(deadline - now));
    std::this_thread::sleep_for(sleep);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

// The interrupt is level: after a wake-up XRT leaves it masked, ISR is
// acknowledged here (lowering the line) and then it is unmasked. A wake-up
// without ap_done (the stale interrupt of an abandoned run) is acknowledged
// and waited past. Launch then finds ISR clear and leaves it.
Status XrtAccelDevice::WaitInterrupt(uint32_t timeout_ms) {
#ifdef LOOM_XRT_IP_INTERRUPT
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    // Waits of at most a second, so timeout 0 (for ever) needs no second API.
    std::chrono::milliseconds wait(1000);
    if (timeout_ms != 0) {
      wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
      wait = std::max(wait, std::chrono::milliseconds(0));
    }
    bool woken = false;
    RETURN_IF_ERROR(Guard("waiting for the interrupt of " + ip_name_,
                          [&] { woken = interrupt_.wait(wait) == std::cv_status::no_timeout; }));
    if (woken) {
      uint32_t ctrl = 0, isr = 0;
      RETURN_IF_ERROR(ReadRegister(c::kRegCtrl, &ctrl));
      RETURN_IF_ERROR(ReadRegister(c::kRegIsr, &isr));
      if ((isr & kDoneBit) != 0) RETURN_IF_ERROR(WriteRegister(c::kRegIsr, kDoneBit));  // toggle-on-write
      RETURN_IF_ERROR(Guard("re-enabling the interrupt of " + ip_name_, [&] { interrupt_.enable(); }));
      if ((ctrl & kApDone) != 0) return Status::Ok();
    }
    if (timeout_ms != 0 && Clock::now() >= deadline) {
      uint32_t ctrl = 0;
      RETURN_IF_ERROR(ReadRegister(c::kRegCtrl, &ctrl));
      if ((ctrl & kApDone) != 0) return Status::Ok();  // done, interrupt lost
      return Status::DeviceError(name_ + ": no ap_done within " + std::to_string(timeout_ms) + " ms");
    }
  }
#else
  return WaitPolling(timeout_ms);
#endif
}

}  // namespace

Status XrtDevice::Open(const XrtDeviceOptions& options, std::unique_ptr<AccelDevice>* out) {
  try {
    auto device = std::make_unique<XrtAccelDevice>(options);
    RETURN_IF_ERROR(device->Open());
    *out = std::move(device);
    return Status::Ok();
  } catch (const std::exception& e) {
    return Failed("cannot open device " + std::to_string(options.device_index), e);
  } catch (...) {
    return FailedUnknown("cannot open device " + std::to_string(options.device_index));
  }
}

}  // namespace fpga
}  // namespace loom
