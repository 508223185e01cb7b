// ZynqDevice without a board: ordinary files in a temporary directory stand
// in for the UIO node (the register window), /dev/mem, the u-dma-buf buffer
// and their sysfs attributes, so the real mmap, register, allocation and
// cache-sync code runs; what the files hold afterwards shows what a board
// would have seen. Nothing raises ap_done here, so WaitDone times out. Every
// missing file is one DeviceError naming the path and the system's reason.
#include "kernels/fpga/device/zynq_device.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "kernels/fpga/device/accel_driver.h"

namespace loom {
namespace fpga {
namespace {

namespace c = contract;

const c::AccelConfig& Pynq() { return *c::FindConfig("pynq_z2"); }

constexpr uint64_t kPhysAddr = 0x3F000000;
constexpr size_t kBufferBytes = size_t{1} << 20;
constexpr size_t kWindowBytes = size_t{64} << 10;

bool Contains(const Status& s, const std::string& text) { return s.message().find(text) != std::string::npos; }

// A fake board: dev/uio0, dev/mem, dev/udmabuf0 and sys/class/... below a
// temporary directory.
class FakeBoard {
 public:
  FakeBoard() {
    char pattern[] = "/tmp/loom_zynq_XXXXXX";
    const char* dir = ::mkdtemp(pattern);
    EXPECT_NE(dir, nullptr);
    root_ = dir;
    MakeDirs("dev");
    MakeDirs("sys/class/uio/uio0/maps/map0");
    MakeDirs("sys/class/u-dma-buf/udmabuf0");
    WriteText("sys/class/uio/uio0/maps/map0/size", "0x00010000\n");
    WriteRegisterFile("dev/uio0", 0, kWindowBytes);
    WriteRegisterFile("dev/mem", 0x10000, 0x10000 + kWindowBytes);
    // The buffer starts as garbage, so zeroing shows.
    WriteText("dev/udmabuf0", std::string(kBufferBytes, '\xAA'));
    WriteText(Udmabuf("phys_addr"), "0x000000003f000000\n");
    WriteText(Udmabuf("size"), std::to_string(kBufferBytes) + "\n");
    for (const char* file : {"sync_offset", "sync_size", "sync_direction", "sync_for_device", "sync_for_cpu"}) {
      WriteText(Udmabuf(file), "");
    }
  }
  ~FakeBoard() { std::system(("rm -rf '" + root_ + "'").c_str()); }

  std::string Path(const std::string& relative) const { return root_ + "/" + relative; }
  static std::string Udmabuf(const std::string& file) { return "sys/class/u-dma-buf/udmabuf0/" + file; }

  ZynqDeviceOptions UioOptions() const {
    ZynqDeviceOptions options;
    options.uio = Path("dev/uio0");
    options.udmabuf = Path("dev/udmabuf0");
    options.sysfs = Path("sys/class");
    return options;
  }
  ZynqDeviceOptions MemOptions() const {
    ZynqDeviceOptions options;
    options.physical_base = 0x10000;
    options.mem = Path("dev/mem");
    options.udmabuf = Path("dev/udmabuf0");
    options.sysfs = Path("sys/class");
    return options;
  }

  void WriteText(const std::string& relative, const std::string& text) const {
    std::ofstream(Path(relative), std::ios::binary | std::ios::trunc) << text;
  }
  std::string ReadText(const std::string& relative) const {
    std::ifstream in(Path(relative), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  // The number a sysfs attribute file was last written with.
  uint64_t ReadNumber(const std::string& relative) const {
    return std::strtoull(ReadText(relative).c_str(), nullptr, 0);
  }
  uint32_t ReadWord(const std::string& relative, size_t offset) const {
    const std::string bytes = ReadText(relative);
    uint32_t value = 0;
    std::memcpy(&value, bytes.data() + offset, 4);
    return value;
  }
  void WriteWord(const std::string& relative, size_t offset, uint32_t value) const {
    std::fstream file(Path(relative), std::ios::binary | std::ios::in | std::ios::out);
    file.seekp(static_cast<std::streamoff>(offset));
    file.write(reinterpret_cast<const char*>(&value), 4);
  }

 private:
  void MakeDirs(const std::string& relative) const {
    std::string path = root_;
    size_t at = 0;
    while (at != std::string::npos) {
      const size_t next = relative.find('/', at);
      path = root_ + "/" + relative.substr(0, next);
      ::mkdir(path.c_str(), 0755);
      at = next == std::string::npos ? next : next + 1;
    }
  }
  // A register window at `begin` of a file of `bytes`: idle, identifying as pynq_z2.
  void WriteRegisterFile(const std::string& relative, size_t begin, size_t bytes) const {
    std::string file(bytes, '\0');
    auto put = [&](uint32_t offset, uint32_t value) { std::memcpy(&file[begin + offset], &value, 4); };
    put(c::kRegCtrl, kApIdle);
    put(c::kRegConfigId, Pynq().config_id);
    put(c::kRegVersion, c::kVersion);
    WriteText(relative, file);
  }

  std::string root_;
};

std::unique_ptr<AccelDevice> OpenOrDie(const ZynqDeviceOptions& options) {
  std::unique_ptr<AccelDevice> device;
  const Status s = ZynqDevice::Open(options, &device);
  EXPECT_TRUE(s.ok()) << s.message();
  return device;
}

TEST(ZynqDeviceTest, OpensThroughUioAndIdentifies) {
  FakeBoard board;
  auto device = OpenOrDie(board.UioOptions());
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(device->name(), "fpga-zynq");
  EXPECT_EQ(&device->config(), &Pynq());
}

TEST(ZynqDeviceTest, RegistersAreTheWindowsWords) {
  FakeBoard board;
  auto device = OpenOrDie(board.UioOptions());
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(device->WriteRegister(c::kRegCmdAddr, 0x3F001000).ok());
  ASSERT_TRUE(device->WriteRegister(c::kRegCmdAddr + 4, 0).ok());
  EXPECT_EQ(board.ReadWord("dev/uio0", c::kRegCmdAddr), 0x3F001000u);  // MAP_SHARED: the file is the window
  board.WriteWord("dev/uio0", c::kRegError, 7);
  uint32_t value = 0;
  ASSERT_TRUE(device->ReadRegister(c::kRegError, &value).ok());
  EXPECT_EQ(value, 7u);
  EXPECT_EQ(device->ReadRegister(2, &value).code(), StatusCode::kInvalidArgument);
  const Status s = device->WriteRegister(0x1000, 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "fpga-zynq: no register at offset 4096");
}

TEST(ZynqDeviceTest, OpensThroughDevMemAtTheBase) {
  FakeBoard board;
  auto device = OpenOrDie(board.MemOptions());
  ASSERT_NE(device, nullptr);
  ASSERT_TRUE(device->WriteRegister(c::kRegBase1, 0x3F000040).ok());
  EXPECT_EQ(board.ReadWord("dev/mem", 0x10000 + c::kRegBase1), 0x3F000040u);
}

TEST(ZynqDeviceTest, AllocationsAreZeroedAlignedAndReused) {
  FakeBoard board;
  auto device = OpenOrDie(board.UioOptions());
  ASSERT_NE(device, nullptr);
  DeviceBuffer a, b, c;
  ASSERT_TRUE(device->Allocate(100, 64, &a).ok());
  EXPECT_EQ(a.device_address, kPhysAddr);
  EXPECT_EQ(a.bytes, 100u);
  EXPECT_TRUE(std::all_of(a.host, a.host + a.bytes, [](uint8_t x) { return x == 0; }));
  // The zeros were flushed to the device.
  EXPECT_EQ(board.ReadNumber(FakeBoard::Udmabuf("sync_offset")), 0u);
  EXPECT_EQ(board.ReadNumber(FakeBoard::Udmabuf("sync_size")), 100u);
  EXPECT_EQ(board.ReadNumber(FakeBoard::Udmabuf("sync_direction")), 1u);  // DMA_TO_DEVICE
  EXPECT_EQ(board.ReadNumber(FakeBoard::Udmabuf("sync_for_device")), 1u);

  ASSERT_TRUE(device->Allocate(4096, 4096, &b).ok());
  EXPECT_EQ(b.device_address, kPhysAddr + 4096);
  EXPECT_EQ(b.host, a.host + 4096);
  b.host[5] = 0x42;  // the CPU's writes land in the buffer (the file here)
  EXPECT_EQ(board.ReadText("dev/udmabuf0")[4096 + 5], 0x42);
  EXPECT_EQ(board.ReadText("dev/udmabuf0")[4096 + 4096], '\xAA');  // past b: untouched

  // Full: the error names the size and the buffer.
  Status s = device->Allocate(kBufferBytes, 64, &c);
  EXPECT_EQ(s.code(), StatusCode::kDeviceError);
  EXPECT_TRUE(Contains(
      s, "fpga-zynq: cannot allocate 1048576 bytes of device memory (" + board.Path("dev/udmabuf0") + ": 1 MiB in all"))
      << s.message();
  EXPECT_EQ(device->Allocate(0, 64, &c).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(device->Allocate(64, 48, &c).code(), StatusCode::kInvalidArgument);

  // Freed blocks coalesce: the whole buffer is one allocation again.
  device->Free(a);
  device->Free(b);
  ASSERT_TRUE(device->Allocate(kBufferBytes, 64, &c).ok());
  EXPECT_EQ(c.device_address, kPhysAddr);
  EXPECT_EQ(c.host[4096 + 5], 0);  // zeroed again
  device->Free(c);
}

TEST(ZynqDeviceTest, FlushAndInvalidateSyncTheRange) {
  FakeBoard board;
  auto device = OpenOrDie(board.UioOptions());
  ASSERT_NE(device, nullptr);
  DeviceBuffer a, b;
  ASSERT_TRUE(device->Allocate(256, 256, &a).ok());
  ASSERT_TRUE(device->Allocate(1000, 64, &b).ok());
  ASSERT_EQ(b.device_address, kPhysAddr + 256);
  for (const char* file : {"sync_offset", "sync_size", "sync_direction", "sync_for_device", "sync_for_cpu"}) {
    board.WriteText(FakeBoard::Udmabuf(file), "");
  }

  ASSERT_TRUE(device->Flush(b, 100, 200).ok());
  EXPECT_EQ(board.ReadNumber(FakeBoard::Udmabuf("sync_offset")), 256u + 100);
  EXPECT_EQ(board.ReadNumber(FakeBoard::Udmabuf("sync_size")), 200u);
  EXPECT_EQ(board.ReadNumber(FakeBoard::Udmabuf("sync_direction")), 1u);  // DMA_TO_DEVICE
  EXPECT_EQ(board.ReadText(FakeBoard::Udmabuf("sync_for_device")), "1\n");
  EXPECT_EQ(board.ReadText(FakeBoard::Udmabuf("sync_for_cpu")), "");

  ASSERT_TRUE(device->Invalidate(b, 0, 1000).ok());
  EXPECT_EQ(board.ReadNumber(FakeBoard::Udmabuf("sync_offset")), 256u);
  EXPECT_EQ(board.ReadNumber(FakeBoard::Udmabuf("sync_size")), 1000u);
  EXPECT_EQ(board.ReadNumber(FakeBoard::Udmabuf("sync_direction")), 2u);  // DMA_FROM_DEVICE
  EXPECT_EQ(board.ReadText(FakeBoard::Udmabuf("sync_for_cpu")), "1\n");

  const Status s = device->Flush(b, 900, 200);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "fpga-zynq: flush of [900, +200) outside a buffer of 1000 bytes");
  EXPECT_EQ(device->Invalidate(a, 0, 257).code(), StatusCode::kInvalidArgument);
}

TEST(ZynqDeviceTest, WaitDonePollsCtrlAndTimesOut) {
  FakeBoard board;
  auto device = OpenOrDie(board.UioOptions());
  ASSERT_NE(device, nullptr);
  const auto start = std::chrono::steady_clock::now();
  const Status s = device->WaitDone(50);
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  EXPECT_EQ(s.code(), StatusCode::kDeviceError);
  EXPECT_EQ(s.message(), "fpga-zynq: no ap_done within 50 ms");
  EXPECT_GE(elapsed.count(), 50);
  EXPECT_LT(elapsed.count(), 1000);

  // ap_done in CTRL ends the wait.
  board.WriteWord("dev/uio0", c::kRegCtrl, kApDone | kApIdle);
  EXPECT_TRUE(device->WaitDone(50).ok());
}

TEST(ZynqDeviceTest, LaunchWritesTheArgumentsAndStarts) {
  FakeBoard board;
  auto device = OpenOrDie(board.UioOptions());
  ASSERT_NE(device, nullptr);
  LaunchArgs args;
  args.cmd_addr = 0x3F000100;
  args.base = {0, 0x3F001000, 0x3F002000, 0x13F003000};
  args.count = 9;
  args.timeout_ms = 20;
  LaunchResult result;
  const Status s = Launch(*device, args, &result);
  EXPECT_EQ(s.message(), "fpga-zynq: no ap_done within 20 ms");
  EXPECT_EQ(board.ReadWord("dev/uio0", c::kRegCmdAddr), 0x3F000100u);
  EXPECT_EQ(board.ReadWord("dev/uio0", c::kRegBase2), 0x3F002000u);
  EXPECT_EQ(board.ReadWord("dev/uio0", c::kRegBase3), 0x3F003000u);
  EXPECT_EQ(board.ReadWord("dev/uio0", c::kRegBase3 + 4), 1u);
  EXPECT_EQ(board.ReadWord("dev/uio0", c::kRegCmdCount), 9u);
  EXPECT_EQ(board.ReadWord("dev/uio0", c::kRegIer), kDoneBit);
  EXPECT_EQ(board.ReadWord("dev/uio0", c::kRegCtrl), kApStart);
}

TEST(ZynqDeviceTest, AnotherBitstreamIsRefused) {
  FakeBoard board;
  board.WriteWord("dev/uio0", c::kRegConfigId, 0x12345678);
  std::unique_ptr<AccelDevice> device;
  const Status s = ZynqDevice::Open(board.UioOptions(), &device);
  EXPECT_EQ(s.code(), StatusCode::kDeviceError);
  EXPECT_TRUE(Contains(s, "fpga-zynq: CONFIG_ID 0x12345678 is no known accelerator configuration")) << s.message();
  EXPECT_TRUE(Contains(s, "pynq_z2 0xE3B8988")) << s.message();
  EXPECT_EQ(device, nullptr);
}

// Each file the backend needs, removed in turn: one DeviceError naming it.
TEST(ZynqDeviceTest, EachMissingFileIsNamed) {
  const std::string needed[] = {
      "dev/uio0",
      "sys/class/uio/uio0/maps/map0/size",
      "dev/udmabuf0",
      FakeBoard::Udmabuf("size"),
      FakeBoard::Udmabuf("sync_offset"),
      FakeBoard::Udmabuf("sync_size"),
      FakeBoard::Udmabuf("sync_direction"),
      FakeBoard::Udmabuf("sync_for_device"),
      FakeBoard::Udmabuf("sync_for_cpu"),
  };
  for (const std::string& file : needed) {
    SCOPED_TRACE(file);
    FakeBoard board;
    ASSERT_EQ(std::remove(board.Path(file).c_str()), 0);
    std::unique_ptr<AccelDevice> device;
    const Status s = ZynqDevice::Open(board.UioOptions(), &device);
    EXPECT_EQ(s.code(), StatusCode::kDeviceError);
    EXPECT_EQ(s.message().rfind("fpga-zynq: " + board.Path(file) + ": No such file or directory", 0), 0u)
        << s.message();
  }
  // No u-dma-buf class directory at all: both places the driver may use are named.
  FakeBoard board;
  ASSERT_EQ(std::system(("rm -rf '" + board.Path("sys/class/u-dma-buf") + "'").c_str()), 0);
  std::unique_ptr<AccelDevice> device;
  const Status s = ZynqDevice::Open(board.UioOptions(), &device);
  EXPECT_TRUE(Contains(s, "fpga-zynq: " + board.Path("sys/class/u-dma-buf/udmabuf0/phys_addr") +
                              ": No such file or directory (nor " + board.Path("sys/class/udmabuf/udmabuf0/phys_addr")))
      << s.message();
}

TEST(ZynqDeviceTest, OlderUdmabufClassDirectoryIsFound) {
  FakeBoard board;
  ASSERT_EQ(
      std::system(("mv '" + board.Path("sys/class/u-dma-buf") + "' '" + board.Path("sys/class/udmabuf") + "'").c_str()),
      0);
  auto device = OpenOrDie(board.UioOptions());
  ASSERT_NE(device, nullptr);
  DeviceBuffer a;
  ASSERT_TRUE(device->Allocate(64, 64, &a).ok());
  EXPECT_EQ(board.ReadText("sys/class/udmabuf/udmabuf0/sync_for_device"), "1\n");
}

TEST(ZynqDeviceTest, BadSysfsValuesAndShortFiles) {
  {
    FakeBoard board;
    board.WriteText(FakeBoard::Udmabuf("phys_addr"), "garbage\n");
    std::unique_ptr<AccelDevice> device;
    const Status s = ZynqDevice::Open(board.UioOptions(), &device);
    EXPECT_EQ(s.message(), "fpga-zynq: " + board.Path(FakeBoard::Udmabuf("phys_addr")) + ": 'garbage' is not a number");
  }
  {
    FakeBoard board;
    board.WriteText("sys/class/uio/uio0/maps/map0/size", "0x10\n");
    std::unique_ptr<AccelDevice> device;
    const Status s = ZynqDevice::Open(board.UioOptions(), &device);
    EXPECT_TRUE(Contains(s, "the UIO map is 16 bytes, the accelerator's registers need 152")) << s.message();
  }
  {
    FakeBoard board;  // a register "window" shorter than its map: an error, not a SIGBUS
    board.WriteText("dev/uio0", std::string(256, '\0'));
    std::unique_ptr<AccelDevice> device;
    const Status s = ZynqDevice::Open(board.UioOptions(), &device);
    EXPECT_TRUE(Contains(s, "fpga-zynq: " + board.Path("dev/uio0") + ": 256 bytes, shorter than the 65536 bytes"))
        << s.message();
  }
}

TEST(ZynqDeviceTest, RegisterOptionsAreChecked) {
  FakeBoard board;
  std::unique_ptr<AccelDevice> device;
  ZynqDeviceOptions options = board.MemOptions();
  options.physical_base = 0x43C00004;
  Status s = ZynqDevice::Open(options, &device);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "fpga-zynq: register base 0x43C00004 is not aligned to")) << s.message();

  options = board.MemOptions();
  options.uio = board.Path("dev/uio0");
  s = ZynqDevice::Open(options, &device);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "not both")) << s.message();

  options = ZynqDeviceOptions{};
  s = ZynqDevice::Open(options, &device);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "not neither")) << s.message();

  options = board.MemOptions();
  options.uio_interrupt = true;
  EXPECT_EQ(ZynqDevice::Open(options, &device).code(), StatusCode::kInvalidArgument);

  options = board.MemOptions();
  options.mem = board.Path("dev/nomem");
  s = ZynqDevice::Open(options, &device);
  EXPECT_EQ(s.message(), "fpga-zynq: " + board.Path("dev/nomem") + ": No such file or directory");
  EXPECT_EQ(device, nullptr);
}

TEST(ZynqDeviceTest, DevMemWithoutPermission) {
  if (::geteuid() == 0) GTEST_SKIP() << "root opens any file";
  FakeBoard board;
  ASSERT_EQ(::chmod(board.Path("dev/mem").c_str(), 0), 0);
  std::unique_ptr<AccelDevice> device;
  const Status s = ZynqDevice::Open(board.MemOptions(), &device);
  EXPECT_EQ(s.message(), "fpga-zynq: " + board.Path("dev/mem") +
                             ": Permission denied (/dev/mem needs root; or give the UIO node: --fpga-uio)");
}

}  // namespace
}  // namespace fpga
}  // namespace loom
