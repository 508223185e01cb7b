// The calibration cache of `loom build --int8 --calib-cache FILE`: the
// activation ranges of one calibration run, so that rebuilding the same model
// with the same method skips calibration. A text file to read and diff:
//
//   loom calibration cache 1
//   model 9f86d081884c7d65            the caller's hash of the model file
//   method percentile 99.99           the caller's name of the method
//   "conv1 output" -1.25 6.5          one line per tensor: name, lo, hi
//
// Tensor names are double-quoted with C escapes (\" \\ \n \r \t, and \xHH for
// other control bytes), so any ONNX name survives, including spaces, quotes
// and UTF-8 (written as is). Floats are written in the shortest form that
// reads back to the same float (std::to_chars), independent of the locale.
// Tensors are listed in name order; blank lines and lines starting with '#'
// are ignored when reading.
#pragma once

#include <map>
#include <string>

#include "builder/quantize/calibration.h"
#include "common/status.h"

namespace loom {
namespace quantize {

struct CalibrationCache {
  std::string model_hash;                         // one line, no control characters
  std::string method;                             // one line, no control characters
  std::map<std::string, ActivationRange> ranges;  // by tensor name
};

// Writes `cache` to `path` atomically (a temporary file renamed over it).
// InvalidArgument for a hash or method that does not fit on one line, or a
// range that is not finite or does not contain 0 (it could not be read back).
Status WriteCalibrationCache(const std::string& path, const CalibrationCache& cache);

// Reads a file written by WriteCalibrationCache. NotFound when `path` does not
// exist (nothing cached yet); InvalidArgument naming the file and line for a
// malformed file.
Status ReadCalibrationCache(const std::string& path, CalibrationCache* out);

// Ok if `cache`, read from `path`, was made for `model_hash` with `method`;
// otherwise InvalidArgument telling the user to delete it or pass another
// --calib-cache.
Status CheckCacheMatches(const std::string& path, const CalibrationCache& cache, const std::string& model_hash,
                         const std::string& method);

}  // namespace quantize
}  // namespace loom
