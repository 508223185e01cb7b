#include "builder/quantize/calibration_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "builder/testing/onnx_models.h"

namespace loom {
namespace quantize {
namespace {

using testing::TempDir;

bool Contains(const Status& s, const std::string& what) { return s.message().find(what) != std::string::npos; }

// Element e of calibration sample k holds k * 100 + e, so a batch shows which
// samples it was made of.
void WriteSamples(const std::string& path, int first_sample, int n, const Shape& sample_dims) {
  HostTensor t;
  t.dtype = DType::kFloat32;
  t.shape = {n};
  t.shape.insert(t.shape.end(), sample_dims.begin(), sample_dims.end());
  const int64_t per_sample = NumElements(sample_dims);
  t.data.resize(t.num_elements() * sizeof(float));
  for (int k = 0; k < n; ++k) {
    for (int64_t e = 0; e < per_sample; ++e) t.as<float>()[k * per_sample + e] = (first_sample + k) * 100.f + e;
  }
  ASSERT_TRUE(WriteNpy(path, t).ok()) << path;
}

// The sample number of every sample of a batch, checking its elements.
std::vector<int> SamplesOf(const HostTensor& t) {
  const int64_t per_sample = NumElements(Shape(t.shape.begin() + 1, t.shape.end()));
  std::vector<int> samples;
  for (int64_t k = 0; k < t.shape[0]; ++k) {
    const float first = t.as<float>()[k * per_sample];
    samples.push_back(static_cast<int>(first / 100.f));
    for (int64_t e = 0; e < per_sample; ++e) EXPECT_EQ(t.as<float>()[k * per_sample + e], first + e);
  }
  return samples;
}

CalibrationInput Input(const std::string& name, const Shape& shape) { return {name, DType::kFloat32, shape}; }

Status Open(const std::string& dir, const std::vector<CalibrationInput>& inputs) {
  CalibrationData data;
  return CalibrationData::Open(dir, inputs, &data);
}

TEST(CalibrationDataTest, SingleInputRegroupsSamplesAcrossFiles) {
  TempDir dir;
  WriteSamples(dir.File("a.npy"), 0, 3, {2, 3});
  WriteSamples(dir.File("b.npy"), 3, 5, {2, 3});
  WriteSamples(dir.File("c.npy"), 8, 2, {2, 3});
  testing::WriteBytes(dir.File("README.txt"), "samples");
  testing::WriteBytes(dir.File(".hidden.npy"), "not read");

  CalibrationData data;
  const Status s = CalibrationData::Open(dir.path(), {Input("x", {4, 2, 3})}, &data);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(data.num_samples(), 10);
  EXPECT_EQ(data.batch_size(), 4);
  EXPECT_EQ(data.num_batches(), 2);
  ASSERT_EQ(data.notes().size(), 2u);
  EXPECT_NE(data.notes()[0].find("ignored 1 files"), std::string::npos) << data.notes()[0];
  EXPECT_NE(data.notes()[0].find("README.txt"), std::string::npos) << data.notes()[0];
  EXPECT_NE(data.notes()[1].find("dropped the last 2 of 10 samples"), std::string::npos) << data.notes()[1];

  std::vector<HostTensor> batch;
  // Out of order on purpose: the cache must follow.
  ASSERT_TRUE(data.ReadBatch(1, &batch).ok());
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].name, "x");
  EXPECT_EQ(batch[0].dtype, DType::kFloat32);
  EXPECT_EQ(batch[0].shape, (Shape{4, 2, 3}));
  EXPECT_EQ(SamplesOf(batch[0]), (std::vector<int>{4, 5, 6, 7}));
  ASSERT_TRUE(data.ReadBatch(0, &batch).ok());
  EXPECT_EQ(SamplesOf(batch[0]), (std::vector<int>{0, 1, 2, 3}));  // spans a.npy and b.npy

  Status out_of_range = data.ReadBatch(2, &batch);
  EXPECT_EQ(out_of_range.code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(Contains(out_of_range, "batch 2 requested, the set has 2 batches")) << out_of_range.message();
}

TEST(CalibrationDataTest, SingleInputMayUseSubFolderNamedAfterIt) {
  TempDir dir;
  std::filesystem::create_directories(dir.File("input.1"));
  WriteSamples(dir.File("input.1/s.npy"), 0, 2, {3});
  testing::WriteBytes(dir.File("about.txt"), "x");
  CalibrationData data;
  Status s = CalibrationData::Open(dir.path(), {Input("input.1", {2, 3})}, &data);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(data.num_batches(), 1);
  ASSERT_EQ(data.notes().size(), 1u);
  EXPECT_NE(data.notes()[0].find("ignored 1 entries of '" + dir.path() + "' not named after an input: about.txt"),
            std::string::npos)
      << data.notes()[0];
  std::vector<HostTensor> batch;
  ASSERT_TRUE(data.ReadBatch(0, &batch).ok());
  EXPECT_EQ(SamplesOf(batch[0]), (std::vector<int>{0, 1}));

  // .npy files beside that folder make the layout ambiguous.
  WriteSamples(dir.File("t.npy"), 0, 2, {3});
  s = Open(dir.path(), {Input("input.1", {2, 3})});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "holds sub-folders (input.1) beside its .npy files")) << s.message();
}

TEST(CalibrationDataTest, SeveralInputsReadTheirFoldersInStep) {
  TempDir dir;
  std::filesystem::create_directories(dir.File("image"));
  std::filesystem::create_directories(dir.File("mask"));
  std::filesystem::create_directories(dir.File("labels"));
  WriteSamples(dir.File("image/0.npy"), 0, 3, {2, 2});
  WriteSamples(dir.File("image/1.npy"), 3, 3, {2, 2});
  WriteSamples(dir.File("mask/0.npy"), 0, 1, {5});
  WriteSamples(dir.File("mask/1.npy"), 1, 4, {5});
  WriteSamples(dir.File("mask/2.npy"), 5, 1, {5});

  CalibrationData data;
  const Status s = CalibrationData::Open(dir.path(), {Input("image", {2, 2, 2}), Input("mask", {2, 5})}, &data);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(data.num_samples(), 6);
  EXPECT_EQ(data.num_batches(), 3);
  ASSERT_EQ(data.notes().size(), 1u);
  EXPECT_NE(data.notes()[0].find("labels"), std::string::npos) << data.notes()[0];
  std::vector<HostTensor> batch;
  for (int b = 0; b < 3; ++b) {
    ASSERT_TRUE(data.ReadBatch(b, &batch).ok());
    ASSERT_EQ(batch.size(), 2u);
    EXPECT_EQ(batch[0].name, "image");
    EXPECT_EQ(batch[1].name, "mask");
    EXPECT_EQ(batch[1].shape, (Shape{2, 5}));
    const std::vector<int> expected = {2 * b, 2 * b + 1};
    EXPECT_EQ(SamplesOf(batch[0]), expected);
    EXPECT_EQ(SamplesOf(batch[1]), expected);
  }
}

TEST(CalibrationDataTest, RefusesBadFolders) {
  TempDir dir;
  Status s = Open(dir.File("nope"), {Input("x", {1, 3})});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "calibration folder '" + dir.File("nope") + "' does not exist")) << s.message();

  testing::WriteBytes(dir.File("file"), "x");
  s = Open(dir.File("file"), {Input("x", {1, 3})});
  EXPECT_TRUE(Contains(s, "'" + dir.File("file") + "' is not a directory")) << s.message();

  std::filesystem::create_directories(dir.File("empty/other"));
  testing::WriteBytes(dir.File("empty/samples.npz"), "x");
  s = Open(dir.File("empty"), {Input("x", {1, 3, 4})});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "calibration folder '" + dir.File("empty") +
                              "' holds no .npy files (expected files of Nx3x4 float32 samples of input 'x'; it "
                              "holds other files: samples.npz"))
      << s.message();
  EXPECT_TRUE(Contains(s, "its sub-folders other are not named after the input")) << s.message();

  WriteSamples(dir.File("empty/s.npy"), 0, 2, {3, 4});
  s = Open(dir.File("empty"), {Input("x", {1, 3, 4})});
  EXPECT_TRUE(Contains(s, "holds sub-folders (other) beside its .npy files")) << s.message();
}

TEST(CalibrationDataTest, SeveralInputsNeedEveryFolderAndEqualCounts) {
  TempDir dir;
  std::filesystem::create_directories(dir.File("a"));
  WriteSamples(dir.File("a/s.npy"), 0, 4, {3});
  Status s = Open(dir.path(), {Input("a", {2, 3}), Input("b", {2, 3})});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s,
                       "has no sub-folder 'b' (a model with several inputs reads DIR/<input name>/*.npy for "
                       "each of its inputs: a, b)"))
      << s.message();

  std::filesystem::create_directories(dir.File("b"));
  s = Open(dir.path(), {Input("a", {2, 3}), Input("b", {2, 3})});
  EXPECT_TRUE(Contains(s, "calibration folder '" + dir.File("b") + "' (input 'b') holds no .npy files")) << s.message();

  WriteSamples(dir.File("b/s.npy"), 0, 3, {3});
  s = Open(dir.path(), {Input("a", {2, 3}), Input("b", {2, 3})});
  EXPECT_TRUE(Contains(s, "calibration inputs hold different numbers of samples: 4 in '" + dir.File("a") +
                              "' (input 'a'), 3 in '" + dir.File("b") + "' (input 'b')"))
      << s.message();

  s = Open(dir.path(), {Input("a", {2, 3}), Input("b", {1, 3})});
  EXPECT_TRUE(Contains(s, "different batch sizes")) << s.message();
}

TEST(CalibrationDataTest, RefusesFilesOfTheWrongDtypeOrShape) {
  TempDir dir;
  HostTensor f64;
  f64.dtype = DType::kFloat64;
  f64.shape = {2, 3};
  f64.data.resize(6 * sizeof(double));
  ASSERT_TRUE(WriteNpy(dir.File("a.npy"), f64).ok());
  Status s = Open(dir.path(), {Input("x", {1, 3})});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "a.npy': dtype float64, expected float32 for input 'x'")) << s.message();

  WriteSamples(dir.File("a.npy"), 0, 2, {4});
  s = Open(dir.path(), {Input("x", {1, 3})});
  EXPECT_TRUE(Contains(s,
                       "a.npy': shape 2x4, expected Nx3 for input 'x' (N samples stacked along the batch "
                       "dimension)"))
      << s.message();

  // One sample saved without its batch dimension gets a hint.
  WriteSamples(dir.File("a.npy"), 0, 3, {4});
  s = Open(dir.path(), {Input("x", {1, 3, 4})});
  EXPECT_TRUE(Contains(s, "shape 3x4, expected Nx3x4")) << s.message();
  EXPECT_TRUE(Contains(s, "a single sample needs a leading dimension of 1")) << s.message();

  WriteSamples(dir.File("a.npy"), 0, 0, {3});
  s = Open(dir.path(), {Input("x", {1, 3})});
  EXPECT_TRUE(Contains(s, "a.npy': holds no samples (shape 0x3)")) << s.message();

  testing::WriteBytes(dir.File("a.npy"), "garbage");
  s = Open(dir.path(), {Input("x", {1, 3})});
  EXPECT_TRUE(Contains(s, "a.npy': not a .npy file")) << s.message();
}

TEST(CalibrationDataTest, NeedsOneWholeBatch) {
  TempDir dir;
  WriteSamples(dir.File("a.npy"), 0, 2, {3});
  WriteSamples(dir.File("b.npy"), 2, 1, {3});
  const Status s = Open(dir.path(), {Input("x", {4, 3})});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "calibration folder '" + dir.path() +
                              "' holds 3 samples, fewer than one batch of 4 "
                              "(the plan's batch size)"))
      << s.message();
}

TEST(CalibrationDataTest, RefusesInputsItCannotCalibrate) {
  TempDir dir;
  WriteSamples(dir.File("a.npy"), 0, 2, {3});
  Status s = Open(dir.path(), {{"ids", DType::kInt64, {1, 3}}});
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_TRUE(Contains(s, "input 'ids' is int64: only float32 inputs can be calibrated")) << s.message();
  s = Open(dir.path(), {Input("x", {1, -1})});
  EXPECT_TRUE(Contains(s, "input 'x' has shape 1x-1, expected a static shape with a batch dimension")) << s.message();
  s = Open(dir.path(), {});
  EXPECT_TRUE(Contains(s, "at least one model input")) << s.message();
}

TEST(CalibrationDataTest, ReadBatchRefusesNanAndInf) {
  TempDir dir;
  WriteSamples(dir.File("a.npy"), 0, 3, {4});
  HostTensor t;
  ASSERT_TRUE(ReadNpy(dir.File("a.npy"), &t).ok());
  t.as<float>()[1 * 4 + 2] = std::numeric_limits<float>::quiet_NaN();  // sample 1, element 2
  ASSERT_TRUE(WriteNpy(dir.File("b.npy"), t).ok());
  t.as<float>()[1 * 4 + 2] = 0.f;
  t.as<float>()[2 * 4 + 3] = -std::numeric_limits<float>::infinity();  // sample 2, element 3
  ASSERT_TRUE(WriteNpy(dir.File("c.npy"), t).ok());

  CalibrationData data;
  ASSERT_TRUE(CalibrationData::Open(dir.path(), {Input("x", {3, 4})}, &data).ok());
  ASSERT_EQ(data.num_batches(), 3);
  std::vector<HostTensor> batch;
  EXPECT_TRUE(data.ReadBatch(0, &batch).ok());
  Status s = data.ReadBatch(1, &batch);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "b.npy': sample 1 of the file (calibration sample 4, input 'x') holds NaN at element 2"))
      << s.message();
  s = data.ReadBatch(2, &batch);
  EXPECT_TRUE(Contains(s, "c.npy': sample 2 of the file (calibration sample 8, input 'x') holds -Inf at element 3"))
      << s.message();
}

TEST(CalibrationDataTest, ReadBatchNoticesFilesChangedSinceOpen) {
  TempDir dir;
  WriteSamples(dir.File("a.npy"), 0, 2, {3});
  WriteSamples(dir.File("b.npy"), 2, 2, {3});
  CalibrationData data;
  ASSERT_TRUE(CalibrationData::Open(dir.path(), {Input("x", {2, 3})}, &data).ok());
  WriteSamples(dir.File("b.npy"), 2, 1, {3});
  std::vector<HostTensor> batch;
  EXPECT_TRUE(data.ReadBatch(0, &batch).ok());
  const Status s = data.ReadBatch(1, &batch);
  EXPECT_TRUE(Contains(s, "b.npy' changed since the calibration folder was opened (it held 2 samples, now 1)"))
      << s.message();
}

}  // namespace
}  // namespace quantize
}  // namespace loom
