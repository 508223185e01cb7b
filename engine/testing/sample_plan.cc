#include "engine/testing/sample_plan.h"

namespace loom {
namespace testing {
namespace {

float SampleConstant(int i) { return 0.25f * static_cast<float>(i) - 3.f; }

}  // namespace

PlanWriter SamplePlanWriter() {
  PlanWriter w;
  const Shape shape = {kSampleRows, kSampleCols};
  std::vector<float> c(kSampleSize);
  for (int i = 0; i < kSampleSize; ++i) c[i] = SampleConstant(i);
  const int x = w.Activation("x", DType::kFloat32, shape);
  const int ct = w.Constant<float>("c", shape, c);
  const int s = w.Activation("s", DType::kFloat32, shape);
  const int r = w.Activation("r", DType::kFloat32, shape);
  const int y = w.Activation("y", DType::kFloat32, shape);
  w.Input(x);
  w.AddNode("add", "Add", "test.Add", {x, ct}, {s});
  w.AddNode("relu", "Relu", "test.Relu", {s}, {r}).fused = {"Identity"};
  PlanNode& scale = w.AddNode("scale", "Scale", "test.Scale", {r}, {y});
  Attribute alpha;
  alpha.name = "alpha";
  alpha.kind = Attribute::Kind::kFloat;
  alpha.f = 2.f;
  scale.attributes.push_back(alpha);
  w.Output(r);
  w.Output(y);
  return w;
}

std::vector<float> SampleExpectedR(const std::vector<float>& x) {
  std::vector<float> r(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const float v = x[i] + SampleConstant(static_cast<int>(i));
    r[i] = v > 0.f ? v : 0.f;
  }
  return r;
}

std::vector<float> SampleExpectedY(const std::vector<float>& x) {
  std::vector<float> y = SampleExpectedR(x);
  for (float& v : y) v *= 2.f;
  return y;
}

}  // namespace testing
}  // namespace loom
