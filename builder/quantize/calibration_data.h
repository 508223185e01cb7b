// The calibration set of `loom build --int8 --calib DIR`: .npy files of
// samples stacked along the batch dimension, regrouped into batches of the
// plan's batch size.
//
// Layout of DIR:
//   one input       DIR/*.npy, or DIR/<input name>/*.npy when DIR holds no
//                   .npy file but a sub-folder named after the input
//   several inputs  DIR/<input name>/*.npy for every input
// A file of shape [n, d1, ..., dk] holds n >= 1 samples of an input of shape
// [batch, d1, ..., dk], with the input's dtype. Files are taken in byte order
// of their names (as `LC_ALL=C ls` lists them) and their samples are
// concatenated; sample k of every input together form calibration sample k,
// so with several inputs every folder holds the same number of samples in the
// same order (the files may split them differently). Samples that do not fill
// a last whole batch are dropped, with a note.
//
// What is ignored and what is refused: names starting with '.' are ignored;
// files not ending in ".npy" are ignored with a note (README, labels.txt); a
// sub-folder in a folder whose .npy files are read is refused as ambiguous
// (were its files meant to be read too?); with several inputs, entries of DIR
// not named after an input are ignored with a note.
//
// Open reads every file once to check it (header, size) and keeps none of the
// data. ReadBatch streams: it keeps at most one file per input in memory, so
// reading the batches in order reads every file once more.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/dtype.h"
#include "common/status.h"
#include "tools/tensor_io/host_tensor.h"

namespace loom {
namespace quantize {

// One input of the plan to calibrate. Only float32 inputs are supported.
struct CalibrationInput {
  std::string name;
  DType dtype = DType::kFloat32;
  Shape shape;  // static; shape[0] is the plan's batch size
};

class CalibrationData {
 public:
  // Scans `dir` for the samples of `inputs` and checks every file: dtype
  // equal to the input's, rank and dims after the batch dim equal to the
  // input's, at least one sample; with several inputs, equal sample counts.
  // Fails with InvalidArgument naming the folder or file and the expected vs
  // actual value, or Unsupported for a non-float32 input; *out is then left
  // as it was.
  static Status Open(const std::string& dir, const std::vector<CalibrationInput>& inputs, CalibrationData* out);

  int64_t num_samples() const { return num_samples_; }
  int64_t batch_size() const { return batch_size_; }
  // num_samples / batch_size: a trailing partial batch is dropped.
  int64_t num_batches() const { return batch_size_ > 0 ? num_samples_ / batch_size_ : 0; }

  // Reads batch b (0-based, samples [b * batch, (b + 1) * batch)) of every
  // input into (*out)[i], a tensor with the input's name, dtype and shape.
  // A batch may span files. NaN or Inf in a sample fails with InvalidArgument
  // naming the file and the sample; a file changed since Open fails likewise.
  Status ReadBatch(int64_t b, std::vector<HostTensor>* out);

  // What Open decided that the user may want to know (dropped samples,
  // ignored files); the caller logs them.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  struct SampleFile {
    std::string path;
    int64_t first_sample = 0;  // index of its first sample in the whole set
    int64_t num_samples = 0;
  };
  struct InputSamples {
    CalibrationInput input;
    std::string folder;
    std::vector<SampleFile> files;
    int64_t sample_elements = 0;  // elements of one sample
    int cached_file = -1;         // index into files of `cached`, or -1
    HostTensor cached;
  };

  // Copies samples [first, first + count) of `in` into dst.
  Status CopySamples(InputSamples* in, int64_t first, int64_t count, uint8_t* dst);

  std::vector<InputSamples> inputs_;
  int64_t num_samples_ = 0;
  int64_t batch_size_ = 0;
  std::vector<std::string> notes_;
};

}  // namespace quantize
}  // namespace loom
