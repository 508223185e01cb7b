// A small plan over the test kernels (testing/test_kernels.h), shared by the
// engine tests:
//
//   x [2,16] (input) ─ Add(c) ─► s ─ Relu ─► r (output) ─ Scale(alpha=2) ─► y (output)
//
// c is a constant with c[i] = 0.25 * i - 3; so r = max(x + c, 0), y = 2 * r.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/testing/plan_writer.h"

namespace loom {
namespace testing {

constexpr int kSampleRows = 2;
constexpr int kSampleCols = 16;
constexpr int kSampleSize = kSampleRows * kSampleCols;

// The writer, ready for Finish() (tests may modify it first).
PlanWriter SamplePlanWriter();
inline std::vector<uint8_t> SamplePlan() { return SamplePlanWriter().Finish(); }

// The expected outputs for input x.
std::vector<float> SampleExpectedR(const std::vector<float>& x);
std::vector<float> SampleExpectedY(const std::vector<float>& x);

}  // namespace testing
}  // namespace loom
