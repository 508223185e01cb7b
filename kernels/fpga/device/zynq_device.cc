// 64-bit file offsets on 32-bit targets too: /dev/mem offsets are physical
// addresses. Must come before any system header.
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64
#endif

#include "kernels/fpga/device/zynq_device.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <limits>
#include <thread>

#include "kernels/fpga/device/accel_driver.h"
#include "kernels/fpga/device/first_fit_allocator.h"

namespace loom {
namespace fpga {
namespace {

namespace c = contract;

const char kName[] = "fpga-zynq";
// The register map ends with the high word of DMA_WRITE_BYTES.
constexpr size_t kRegisterBytes = c::kRegDmaWriteBytes + 8;
// u-dma-buf's sync_direction values (the kernel's enum dma_data_direction).
constexpr uint64_t kDmaToDevice = 1;
constexpr uint64_t kDmaFromDevice = 2;

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llX", static_cast<unsigned long long>(value));
  return text;
}

// "fpga-zynq: <path>: <errno text><hint>".
Status SystemError(const std::string& path, int error, const std::string& hint = "") {
  return Status::DeviceError(std::string(kName) + ": " + path + ": " + std::strerror(error) + hint);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd& operator=(Fd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

// Opens `path`; on failure the message ends with hint(errno).
template <typename Hint>
Status OpenFile(const std::string& path, int flags, Fd* out, Hint hint) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int error = errno;
    return SystemError(path, error, hint(error));
  }
  *out = Fd(fd);
  return Status::Ok();
}

Status OpenFile(const std::string& path, int flags, Fd* out) {
  return OpenFile(path, flags, out, [](int) { return std::string(); });
}

// A number in a sysfs attribute: decimal or 0x-prefixed hex, as the drivers
// print them ("65536\n", "0x00010000\n", "0x000000003f000000\n").
Status ReadSysfsNumber(const std::string& path, uint64_t* value) {
  Fd fd;
  RETURN_IF_ERROR(OpenFile(path, O_RDONLY, &fd));
  char text[64] = {};
  ssize_t got;
  do {
    got = ::pread(fd.get(), text, sizeof text - 1, 0);
  } while (got < 0 && errno == EINTR);
  if (got < 0) return SystemError(path, errno);
  text[got] = '\0';
  char* end = nullptr;
  errno = 0;
  const unsigned long long parsed = std::strtoull(text, &end, 0);
  if (end == text || errno != 0 || (*end != '\0' && *end != '\n' && *end != ' ')) {
    std::string shown(text);
    while (!shown.empty() && shown.back() == '\n') shown.pop_back();
    return Status::DeviceError(std::string(kName) + ": " + path + ": '" + shown + "' is not a number");
  }
  *value = parsed;
  return Status::Ok();
}

// A mapping that is unmapped when it goes.
class Mapping {
 public:
  Mapping() = default;
  Mapping(Mapping&& other) noexcept : base_(other.base_), bytes_(other.bytes_) { other.base_ = nullptr; }
  Mapping& operator=(Mapping&& other) noexcept {
    std::swap(base_, other.base_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (base_ != nullptr) ::munmap(base_, bytes_);
  }

  // `bytes` of `fd` (opened from `path`) at `offset`, shared, read-write.
  // A regular file (the tests' stand-in for a device node) must be long
  // enough, so a short one is an error here instead of a SIGBUS later.
  Status Map(const Fd& fd, const std::string& path, uint64_t offset, size_t bytes) {
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) return SystemError(path, errno);
    if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) < offset + bytes) {
      return Status::DeviceError(std::string(kName) + ": " + path + ": " + std::to_string(st.st_size) +
                                 " bytes, shorter than the " + std::to_string(bytes) + " bytes to map at " +
                                 Hex(offset));
    }
    if (offset > static_cast<uint64_t>(std::numeric_limits<off_t>::max())) {
      return Status::InvalidArgument(std::string(kName) + ": offset " + Hex(offset) + " of " + path +
                                     " does not fit this system's off_t");
    }
    void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), static_cast<off_t>(offset));
    if (base == MAP_FAILED) {
      const int error = errno;
      return SystemError(path, error, " (mmap of " + std::to_string(bytes) + " bytes at " + Hex(offset) + ")");
    }
    base_ = base;
    bytes_ = bytes;
    return Status::Ok();
  }

  uint8_t* data() const { return static_cast<uint8_t*>(base_); }
  size_t bytes() const { return bytes_; }

 private:
  void* base_ = nullptr;
  size_t bytes_ = 0;
};

// A sysfs attribute kept open for writing: each write replaces the value.
struct SysfsFile {
  std::string path;
  Fd fd;

  Status Open(const std::string& dir, const char* name) {
    path = dir + "/" + name;
    return OpenFile(path, O_WRONLY, &fd);
  }
  Status Write(uint64_t value) const {
    const std::string text = std::to_string(value) + "\n";
    ssize_t put;
    do {
      put = ::pwrite(fd.get(), text.data(), text.size(), 0);
    } while (put < 0 && errno == EINTR);
    if (put < 0) return SystemError(path, errno);
    if (static_cast<size_t>(put) != text.size()) {
      return Status::DeviceError(std::string(kName) + ": " + path + ": short write");
    }
    return Status::Ok();
  }
};

class ZynqAccelDevice : public AccelDevice {
 public:
  explicit ZynqAccelDevice(const ZynqDeviceOptions& options) : options_(options) {}

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
  Status MapRegisters();
  Status MapBuffer();
  Status CheckRegister(uint32_t offset) const;
  volatile uint32_t* Register(uint32_t offset) const {
    return reinterpret_cast<volatile uint32_t*>(registers_.data() + offset);
  }
  Status CheckBuffer(const DeviceBuffer& buffer, size_t offset, size_t bytes, const char* what) const;
  Status Sync(size_t offset, size_t bytes, uint64_t direction, const SysfsFile& trigger);
  Status WaitInterrupt(uint32_t timeout_ms);
  Status Timeout(uint32_t timeout_ms) const {
    return Status::DeviceError(name_ + ": no ap_done within " + std::to_string(timeout_ms) + " ms");
  }

  const ZynqDeviceOptions options_;
  const std::string name_ = kName;
  const c::AccelConfig* config_ = nullptr;

  std::string register_path_;  // the UIO node or /dev/mem
  Fd register_fd_;
  Mapping registers_;

  std::string buffer_path_;
  Fd buffer_fd_;
  Mapping buffer_;
  uint64_t physical_address_ = 0;
  SysfsFile sync_offset_, sync_size_, sync_direction_, sync_for_device_, sync_for_cpu_;
  std::unique_ptr<FirstFitAllocator> allocator_;  // over the buffer, once it is mapped
};

Status ZynqAccelDevice::Open() {
  RETURN_IF_ERROR(MapRegisters());
  RETURN_IF_ERROR(MapBuffer());
  allocator_ = std::make_unique<FirstFitAllocator>(physical_address_, buffer_.bytes());
  if (options_.uio_interrupt) {
    const uint32_t unmask = 1;  // the interrupt may be masked by an earlier user
    if (::write(register_fd_.get(), &unmask, sizeof unmask) != static_cast<ssize_t>(sizeof unmask)) {
      return SystemError(register_path_, errno, " (enabling the interrupt)");
    }
  }
  const Status identified = Identify(*this, &config_);
  if (!identified.ok()) {
    std::string known;
    for (const c::AccelConfig& config : c::kConfigs) {
      known += std::string(known.empty() ? "" : ", ") + config.name + " " + Hex(config.config_id);
    }
    return Status(identified.code(), identified.message() + " (registers at " + register_path_ +
                                         "; is the Loom bitstream loaded? this Loom knows " + known + ")");
  }
  return Status::Ok();
}

Status ZynqAccelDevice::MapRegisters() {
  const long page = ::sysconf(_SC_PAGESIZE);
  if (!options_.uio.empty()) {
    register_path_ = options_.uio;
    const std::string size_path = options_.sysfs + "/uio/" + BaseName(options_.uio) + "/maps/map0/size";
    uint64_t size = 0;
    RETURN_IF_ERROR(OpenFile(options_.uio, O_RDWR | O_SYNC, &register_fd_));
    RETURN_IF_ERROR(ReadSysfsNumber(size_path, &size));
    if (size < kRegisterBytes) {
      return Status::DeviceError(name_ + ": " + size_path + ": the UIO map is " + std::to_string(size) +
                                 " bytes, the accelerator's registers need " + std::to_string(kRegisterBytes) +
                                 " (is " + options_.uio + " the accelerator's node?)");
    }
    // UIO selects map N by the mmap offset N pages: map 0 is at offset 0.
    return registers_.Map(register_fd_, register_path_, 0, static_cast<size_t>(size));
  }

  register_path_ = options_.mem;
  if (options_.physical_base % static_cast<uint64_t>(page) != 0) {
    return Status::InvalidArgument(name_ + ": register base " + Hex(options_.physical_base) + " is not aligned to " +
                                   std::to_string(page) + " bytes (the page size)");
  }
  if (options_.register_window < kRegisterBytes || options_.register_window % static_cast<size_t>(page) != 0) {
    return Status::InvalidArgument(name_ + ": register window of " + std::to_string(options_.register_window) +
                                   " bytes: need a multiple of the page size of at least " +
                                   std::to_string(kRegisterBytes));
  }
  RETURN_IF_ERROR(OpenFile(options_.mem, O_RDWR | O_SYNC, &register_fd_, [](int error) {
    return std::string(error == EACCES || error == EPERM ? " (/dev/mem needs root; or give the UIO node: --fpga-uio)"
                                                         : "");
  }));
  return registers_.Map(register_fd_, register_path_, options_.physical_base, options_.register_window);
}

Status ZynqAccelDevice::MapBuffer() {
  buffer_path_ = options_.udmabuf;
  RETURN_IF_ERROR(OpenFile(options_.udmabuf, O_RDWR, &buffer_fd_, [](int error) {
    return std::string(error == ENOENT ? " (load the u-dma-buf module with a buffer: kernels/fpga/device/README.md)"
                                       : "");
  }));
  // u-dma-buf's class directory; udmabuf/ is the driver's name before v2.
  const std::string name = BaseName(options_.udmabuf);
  const std::string dirs[] = {options_.sysfs + "/u-dma-buf/" + name, options_.sysfs + "/udmabuf/" + name};
  std::string dir;
  for (const std::string& candidate : dirs) {
    if (::access((candidate + "/phys_addr").c_str(), F_OK) == 0) {
      dir = candidate;
      break;
    }
  }
  if (dir.empty()) {
    return SystemError(dirs[0] + "/phys_addr", ENOENT,
                       " (nor " + dirs[1] + "/phys_addr: is " + options_.udmabuf + " a u-dma-buf buffer?)");
  }
  uint64_t size = 0;
  RETURN_IF_ERROR(ReadSysfsNumber(dir + "/phys_addr", &physical_address_));
  RETURN_IF_ERROR(ReadSysfsNumber(dir + "/size", &size));
  if (size == 0 || static_cast<uint64_t>(static_cast<size_t>(size)) != size) {
    return Status::DeviceError(name_ + ": " + dir + "/size: a buffer of " + std::to_string(size) + " bytes");
  }
  RETURN_IF_ERROR(sync_offset_.Open(dir, "sync_offset"));
  RETURN_IF_ERROR(sync_size_.Open(dir, "sync_size"));
  RETURN_IF_ERROR(sync_direction_.Open(dir, "sync_direction"));
  RETURN_IF_ERROR(sync_for_device_.Open(dir, "sync_for_device"));
  RETURN_IF_ERROR(sync_for_cpu_.Open(dir, "sync_for_cpu"));
  return buffer_.Map(buffer_fd_, buffer_path_, 0, static_cast<size_t>(size));
}

// ---------------------------------------------------------------- memory

Status ZynqAccelDevice::Allocate(size_t bytes, size_t alignment, DeviceBuffer* out) {
  if (bytes == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0) {
    return Status::InvalidArgument(name_ + ": allocation of " + std::to_string(bytes) + " bytes aligned to " +
                                   std::to_string(alignment) + " (need bytes > 0 and a power-of-two alignment)");
  }
  uint64_t offset = 0;
  if (allocator_->Allocate(bytes, alignment, &offset)) {
    const DeviceBuffer buffer{buffer_.data() + offset, physical_address_ + offset, bytes, offset};
    std::memset(buffer.host, 0, bytes);
    const Status flushed = Flush(buffer, 0, bytes);  // the accelerator sees the zeros too
    if (!flushed.ok()) {
      Free(buffer);
      return flushed;
    }
    *out = buffer;
    return Status::Ok();
  }
  return Status::DeviceError(name_ + ": cannot allocate " + std::to_string(bytes) + " bytes of device memory (" +
                             buffer_path_ + ": " + std::to_string(buffer_.bytes() >> 20) +
                             " MiB in all; load u-dma-buf with a larger buffer)");
}

void ZynqAccelDevice::Free(const DeviceBuffer& buffer) { allocator_->Free(buffer.handle, buffer.bytes); }

Status ZynqAccelDevice::CheckBuffer(const DeviceBuffer& buffer, size_t offset, size_t bytes, const char* what) const {
  if (buffer.handle + buffer.bytes > buffer_.bytes() || offset > buffer.bytes || bytes > buffer.bytes - offset) {
    return Status::InvalidArgument(name_ + ": " + what + " of [" + std::to_string(offset) + ", +" +
                                   std::to_string(bytes) + ") outside a buffer of " + std::to_string(buffer.bytes) +
                                   " bytes");
  }
  return Status::Ok();
}

// The driver's manual cache control: the range and the direction, then the
// owner. sync_for_device with DMA_TO_DEVICE writes the CPU's dirty lines back;
// sync_for_cpu with DMA_FROM_DEVICE invalidates the range.
Status ZynqAccelDevice::Sync(size_t offset, size_t bytes, uint64_t direction, const SysfsFile& trigger) {
  RETURN_IF_ERROR(sync_offset_.Write(offset));
  RETURN_IF_ERROR(sync_size_.Write(bytes));
  RETURN_IF_ERROR(sync_direction_.Write(direction));
  return trigger.Write(1);
}

Status ZynqAccelDevice::Flush(const DeviceBuffer& buffer, size_t offset, size_t bytes) {
  RETURN_IF_ERROR(CheckBuffer(buffer, offset, bytes, "flush"));
  if (bytes == 0) return Status::Ok();
  return Sync(buffer.handle + offset, bytes, kDmaToDevice, sync_for_device_);
}

Status ZynqAccelDevice::Invalidate(const DeviceBuffer& buffer, size_t offset, size_t bytes) {
  RETURN_IF_ERROR(CheckBuffer(buffer, offset, bytes, "invalidate"));
  if (bytes == 0) return Status::Ok();
  return Sync(buffer.handle + offset, bytes, kDmaFromDevice, sync_for_cpu_);
}

// ---------------------------------------------------------------- registers

Status ZynqAccelDevice::CheckRegister(uint32_t offset) const {
  if (offset % 4 != 0 || offset >= kRegisterBytes || offset + 4 > registers_.bytes()) {
    return Status::InvalidArgument(name_ + ": no register at offset " + std::to_string(offset));
  }
  return Status::Ok();
}

Status ZynqAccelDevice::WriteRegister(uint32_t offset, uint32_t value) {
  RETURN_IF_ERROR(CheckRegister(offset));
  *Register(offset) = value;
  return Status::Ok();
}

Status ZynqAccelDevice::ReadRegister(uint32_t offset, uint32_t* value) {
  RETURN_IF_ERROR(CheckRegister(offset));
  *value = *Register(offset);
  return Status::Ok();
}

// ap_done is clear-on-read and nothing between ap_start and here reads CTRL
// (accel_driver.h's Launch reads it only before the start), so a set bit is
// this run's.
Status ZynqAccelDevice::WaitDone(uint32_t timeout_ms) {
  if (options_.uio_interrupt) return WaitInterrupt(timeout_ms);
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  std::chrono::microseconds pause(10);
  for (;;) {
    if ((*Register(c::kRegCtrl) & kApDone) != 0) return Status::Ok();
    const Clock::time_point now = Clock::now();
    if (timeout_ms != 0 && now >= deadline) return Timeout(timeout_ms);
    auto sleep = pause;
    if (timeout_ms != 0) sleep = std::min(sleep, std::chrono::duration_cast<std::chrono::microseconds>(deadline - now));
    std::this_thread::sleep_for(sleep);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

// The UIO way (uio_pdrv_genirq): read() blocks until the interrupt, which
// the kernel then masks; acknowledging ISR lowers the accelerator's line and
// writing 1 unmasks it again. A wake-up without ap_done (a stale interrupt of
// an abandoned run) is acknowledged and waited past.
Status ZynqAccelDevice::WaitInterrupt(uint32_t timeout_ms) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  const int fd = register_fd_.get();
  for (;;) {
    int wait_ms = -1;
    if (timeout_ms != 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      wait_ms = static_cast<int>(std::max<int64_t>(0, left));
    }
    pollfd event{fd, POLLIN, 0};
    const int ready = ::poll(&event, 1, wait_ms);
    if (ready < 0 && errno != EINTR) return SystemError(register_path_, errno, " (waiting for the interrupt)");
    if (ready > 0) {
      uint32_t count = 0;
      if (::read(fd, &count, sizeof count) != static_cast<ssize_t>(sizeof count)) {
        return SystemError(register_path_, errno, " (reading the interrupt count)");
      }
      const uint32_t ctrl = *Register(c::kRegCtrl);
      if ((*Register(c::kRegIsr) & kDoneBit) != 0) *Register(c::kRegIsr) = kDoneBit;  // toggle-on-write
      const uint32_t unmask = 1;
      if (::write(fd, &unmask, sizeof unmask) != static_cast<ssize_t>(sizeof unmask)) {
        return SystemError(register_path_, errno, " (re-enabling the interrupt)");
      }
      if ((ctrl & kApDone) != 0) return Status::Ok();
    }
    if (timeout_ms != 0 && Clock::now() >= deadline) {
      if ((*Register(c::kRegCtrl) & kApDone) != 0) return Status::Ok();  // done, interrupt lost
      return Timeout(timeout_ms);
    }
  }
}

}  // namespace

Status ZynqDevice::Open(const ZynqDeviceOptions& options, std::unique_ptr<AccelDevice>* out) {
  if (options.uio.empty() == (options.physical_base == 0)) {
    return Status::InvalidArgument(std::string(kName) +
                                   ": give the registers either as a UIO node (--fpga-uio /dev/uio0) or as a "
                                   "physical base address for /dev/mem (--fpga-base 0x43C00000), not " +
                                   (options.uio.empty() ? "neither" : "both"));
  }
  if (options.uio_interrupt && options.uio.empty()) {
    return Status::InvalidArgument(std::string(kName) + ": the interrupt needs a UIO node (--fpga-uio)");
  }
  auto device = std::make_unique<ZynqAccelDevice>(options);
  RETURN_IF_ERROR(device->Open());
  *out = std::move(device);
  return Status::Ok();
}

}  // namespace fpga
}  // namespace loom
