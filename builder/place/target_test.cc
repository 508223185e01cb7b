#include "builder/place/target.h"

#include <gtest/gtest.h>

#include <cmath>

#include "builder/testing/onnx_models.h"
#include "common/timing_cache.h"
#include "tools/tensor_io/file_util.h"

namespace loom {
namespace place {
namespace {

bool Contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

Status Make(const std::string& name, double clock_mhz, std::unique_ptr<Target>* out) {
  TargetOptions options;
  options.clock_mhz = clock_mhz;
  return MakeTarget(name, options, out);
}

TEST(TargetTest, NamesEveryTarget) {
  EXPECT_EQ(TargetNames(), (std::vector<std::string>{"cpu", "fpga16", "fpga32"}));
  std::unique_ptr<Target> t;
  const Status s = MakeTarget("fpga64", &t);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "unknown target 'fpga64' (targets: cpu, fpga16, fpga32)");
}

TEST(TargetTest, AcceleratorTargetsCarryTheirConfigurationAndClock) {
  struct Case {
    const char* target;
    const char* config;
    double clock_mhz;
  };
  for (const Case& c : {Case{"fpga16", "pynq_z2", 100}, Case{"fpga32", "kv260", 250}}) {
    std::unique_ptr<Target> t;
    ASSERT_TRUE(MakeTarget(c.target, &t).ok()) << c.target;
    EXPECT_EQ(t->name(), c.target);
    ASSERT_TRUE(t->Has(Device::kCpu));
    const DeviceConfig* fpga = t->ConfigFor(Device::kFpga);
    ASSERT_NE(fpga, nullptr);
    EXPECT_EQ(fpga->name(), c.target);  // fpga16 is the 16x16 configuration
    EXPECT_TRUE(Contains(fpga->fingerprint(), c.config)) << fpga->fingerprint();
    EXPECT_EQ(fpga->clock_mhz(), c.clock_mhz);
    ASSERT_TRUE(Make(c.target, 150, &t).ok());
    EXPECT_EQ(t->ConfigFor(Device::kFpga)->clock_mhz(), 150);
    EXPECT_TRUE(Contains(t->cost_model().name(), "at 150 MHz")) << t->cost_model().name();
  }
  std::unique_ptr<Target> cpu;
  ASSERT_TRUE(MakeTarget("cpu", &cpu).ok());
  EXPECT_FALSE(cpu->Has(Device::kFpga));
  EXPECT_EQ(cpu->cost_model().name(), "cpu roofline (2 GMAC/s, 2 GB/s)");
}

TEST(TargetTest, ABadClockIsRefused) {
  std::unique_ptr<Target> t;
  for (double clock : {-5.0, 1000.5, 1e9, std::nan("")}) {
    const Status s = Make("fpga16", clock, &t);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << clock;
    EXPECT_TRUE(Contains(s.message(), "MHz is out of range: expected more than 0 and at most 1000 MHz")) << s.message();
  }
  EXPECT_TRUE(Make("fpga16", 1000, &t).ok());
  const Status s = Make("cpu", 100, &t);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "target 'cpu' has no accelerator, so no clock (100 MHz given)");
}

TEST(TargetTest, TimingCacheProblemsNameTheFile) {
  testing::TempDir dir;
  std::unique_ptr<Target> t;
  TargetOptions options;
  options.timing_cache = dir.File("none.json");
  Status s = MakeTarget("fpga16", options, &t);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_TRUE(Contains(s.message(), "timing cache: cannot open '" + options.timing_cache + "'")) << s.message();

  options.timing_cache = dir.File("bad.json");
  const std::string bad = "{\"format\": \"loom timing cache\", \"version\": 1,,}";
  ASSERT_TRUE(WriteWholeFile(options.timing_cache, bad.data(), bad.size()).ok());
  s = MakeTarget("cpu", options, &t);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s.message(), "timing cache '" + options.timing_cache + "': line 1, column 46")) << s.message();

  TimingCache cache;
  cache.cpu = "Cortex-A9";
  const std::string good = SerializeTimingCache(cache);
  options.timing_cache = dir.File("good.json");
  ASSERT_TRUE(WriteWholeFile(options.timing_cache, good.data(), good.size()).ok());
  ASSERT_TRUE(MakeTarget("fpga16", options, &t).ok());
  EXPECT_TRUE(Contains(t->cost_model().name(), "timing cache '" + options.timing_cache + "' (Cortex-A9, 1 thread"))
      << t->cost_model().name();
}

}  // namespace
}  // namespace place
}  // namespace loom
