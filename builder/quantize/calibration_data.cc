#include "builder/quantize/calibration_data.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

namespace loom {
namespace quantize {
namespace {

namespace fs = std::filesystem;

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

std::string Join(const std::string& dir, const std::string& name) { return (fs::path(dir) / name).string(); }

// "a, b, c" with at most `max` names, then ", ...".
std::string NameList(const std::vector<std::string>& names, size_t max = 5) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < max; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > max) s += ", ...";
  return s;
}

// The shape a file of input `shape` must have: "Nx3x224x224".
std::string FileShapeFor(const Shape& shape) {
  std::string s = "N";
  for (size_t i = 1; i < shape.size(); ++i) s += "x" + std::to_string(shape[i]);
  return s;
}

// The entries of one folder, each list sorted by name (byte order). Names
// starting with '.' are left out.
struct FolderListing {
  std::vector<std::string> npy_files;
  std::vector<std::string> folders;
  std::vector<std::string> other_files;
};

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Status ListFolder(const std::string& dir, FolderListing* out) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code type_ec;
    if (it->is_directory(type_ec)) {
      out->folders.push_back(name);
    } else if (it->is_regular_file(type_ec) && EndsWith(name, ".npy")) {
      out->npy_files.push_back(name);
    } else {
      out->other_files.push_back(name);
    }
  }
  if (ec) return Status::IoError("cannot list calibration folder " + Quoted(dir) + ": " + ec.message());
  std::sort(out->npy_files.begin(), out->npy_files.end());
  std::sort(out->folders.begin(), out->folders.end());
  std::sort(out->other_files.begin(), out->other_files.end());
  return Status::Ok();
}

Status CheckInputs(const std::vector<CalibrationInput>& inputs) {
  if (inputs.empty()) return Status::InvalidArgument("calibration needs at least one model input, got none");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const CalibrationInput& in = inputs[i];
    if (in.name.empty()) return Status::InvalidArgument("calibration input " + std::to_string(i) + " has no name");
    for (size_t j = 0; j < i; ++j) {
      if (inputs[j].name == in.name)
        return Status::InvalidArgument("calibration input " + Quoted(in.name) + " is listed twice");
    }
    if (in.dtype != DType::kFloat32) {
      return Status::Unsupported("input " + Quoted(in.name) + " is " + DTypeName(in.dtype) +
                                 ": only float32 inputs can be calibrated from .npy files");
    }
    const bool is_static = std::all_of(in.shape.begin(), in.shape.end(), [](int64_t d) { return d > 0; });
    if (in.shape.empty() || !is_static || NumElements(in.shape) < 0) {
      return Status::InvalidArgument("calibration input " + Quoted(in.name) + " has shape " + ShapeToString(in.shape) +
                                     ", expected a static shape with a batch dimension");
    }
    if (in.shape[0] != inputs[0].shape[0]) {
      return Status::InvalidArgument(
          "calibration inputs have different batch sizes: " + std::to_string(inputs[0].shape[0]) + " for " +
          Quoted(inputs[0].name) + ", " + std::to_string(in.shape[0]) + " for " + Quoted(in.name));
    }
  }
  return Status::Ok();
}

// Checks that `t`, read from `path`, holds samples of `input`.
Status CheckSampleFile(const std::string& path, const CalibrationInput& input, const HostTensor& t) {
  if (t.dtype != input.dtype) {
    return Status::InvalidArgument(Quoted(path) + ": dtype " + DTypeName(t.dtype) + ", expected " +
                                   DTypeName(input.dtype) + " for input " + Quoted(input.name) +
                                   " (numpy: array.astype(numpy." + DTypeName(input.dtype) + "))");
  }
  const bool same_sample_dims =
      t.shape.size() == input.shape.size() &&
      std::equal(t.shape.begin() + (t.shape.empty() ? 0 : 1), t.shape.end(), input.shape.begin() + 1);
  if (!same_sample_dims) {
    const bool lacks_batch_dim =
        t.shape.size() + 1 == input.shape.size() && std::equal(t.shape.begin(), t.shape.end(), input.shape.begin() + 1);
    return Status::InvalidArgument(Quoted(path) + ": shape " + ShapeToString(t.shape) + ", expected " +
                                   FileShapeFor(input.shape) + " for input " + Quoted(input.name) +
                                   " (N samples stacked along the batch dimension)" +
                                   (lacks_batch_dim ? "; a single sample needs a leading dimension of 1 "
                                                      "(numpy: array[None])"
                                                    : ""));
  }
  if (t.shape[0] < 1)
    return Status::InvalidArgument(Quoted(path) + ": holds no samples (shape " + ShapeToString(t.shape) + ")");
  return Status::Ok();
}

// Fails on the first NaN or Inf among `count` float32 samples of
// `sample_elements` each; `first_in_file` and `first_overall` number the first.
Status CheckFinite(const float* data, int64_t count, int64_t sample_elements, const std::string& path,
                   const std::string& input, int64_t first_in_file, int64_t first_overall) {
  const int64_t n = count * sample_elements;
  for (int64_t i = 0; i < n; ++i) {
    const float x = data[i];
    if (std::isfinite(x)) continue;
    const int64_t sample = i / sample_elements;
    const char* what = std::isnan(x) ? "NaN" : (x > 0 ? "+Inf" : "-Inf");
    return Status::InvalidArgument(Quoted(path) + ": sample " + std::to_string(first_in_file + sample) +
                                   " of the file (calibration sample " + std::to_string(first_overall + sample) +
                                   ", input " + Quoted(input) + ") holds " + what + " at element " +
                                   std::to_string(i % sample_elements));
  }
  return Status::Ok();
}

// "; it holds other files: a.npz, b.txt" when `listing` has any.
std::string OtherFilesHint(const FolderListing& listing) {
  return listing.other_files.empty() ? "" : "; it holds other files: " + NameList(listing.other_files);
}

// Picks the folder of .npy files of every input (see the header for the
// layout rules); adds notes for entries of `dir` that are ignored.
Status ResolveFolders(const std::string& dir, const std::vector<CalibrationInput>& inputs,
                      std::vector<std::string>* folders, std::vector<std::string>* notes) {
  FolderListing top;
  RETURN_IF_ERROR(ListFolder(dir, &top));
  std::vector<std::string> names;
  for (const CalibrationInput& in : inputs) names.push_back(in.name);
  if (inputs.size() == 1 && std::count(top.folders.begin(), top.folders.end(), names[0]) == 0) {
    if (top.npy_files.empty()) {
      return Status::InvalidArgument(
          "calibration folder " + Quoted(dir) + " holds no .npy files (expected files of " +
          FileShapeFor(inputs[0].shape) + " " + DTypeName(inputs[0].dtype) + " samples of input " + Quoted(names[0]) +
          OtherFilesHint(top) +
          (top.folders.empty() ? std::string(")")
                               : "; its sub-folders " + NameList(top.folders) + " are not named after the input)"));
    }
    folders->push_back(dir);
    return Status::Ok();
  }
  if (inputs.size() == 1 && !top.npy_files.empty()) {
    folders->push_back(dir);  // .npy files beside a folder named after the input: refused by the caller
    return Status::Ok();
  }
  for (const CalibrationInput& in : inputs) {
    std::error_code ec;
    const std::string folder = Join(dir, in.name);
    if (!fs::is_directory(folder, ec)) {
      return Status::InvalidArgument("calibration folder " + Quoted(dir) + " has no sub-folder " + Quoted(in.name) +
                                     " (a model with several inputs reads DIR/<input name>/*.npy for each of "
                                     "its inputs: " +
                                     NameList(names, names.size()) + ")");
    }
    folders->push_back(folder);
  }
  std::vector<std::string> ignored;
  for (const auto* list : {&top.npy_files, &top.folders, &top.other_files}) {
    for (const std::string& entry : *list) {
      if (std::find(names.begin(), names.end(), entry) == names.end()) ignored.push_back(entry);
    }
  }
  if (!ignored.empty()) {
    notes->push_back("calibration: ignored " + std::to_string(ignored.size()) + " entries of " + Quoted(dir) +
                     " not named after an input: " + NameList(ignored));
  }
  return Status::Ok();
}

}  // namespace

Status CalibrationData::Open(const std::string& dir, const std::vector<CalibrationInput>& inputs,
                             CalibrationData* out) {
  RETURN_IF_ERROR(CheckInputs(inputs));
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (!fs::exists(st)) return Status::InvalidArgument("calibration folder " + Quoted(dir) + " does not exist");
  if (!fs::is_directory(st))
    return Status::InvalidArgument("calibration folder " + Quoted(dir) + " is not a directory");

  CalibrationData data;
  std::vector<std::string> folders;
  RETURN_IF_ERROR(ResolveFolders(dir, inputs, &folders, &data.notes_));

  for (size_t i = 0; i < inputs.size(); ++i) {
    InputSamples in;
    in.input = inputs[i];
    in.folder = folders[i];
    in.sample_elements = NumElements(Shape(inputs[i].shape.begin() + 1, inputs[i].shape.end()));
    FolderListing listing;
    RETURN_IF_ERROR(ListFolder(in.folder, &listing));
    const std::string what = "calibration folder " + Quoted(in.folder) + " (input " + Quoted(in.input.name) + ")";
    if (!listing.folders.empty()) {
      return Status::InvalidArgument(what + " holds sub-folders (" + NameList(listing.folders) +
                                     ") beside its .npy files: move them out, only the .npy files directly in it "
                                     "are read");
    }
    if (listing.npy_files.empty()) {
      return Status::InvalidArgument(what + " holds no .npy files (expected files of " + FileShapeFor(in.input.shape) +
                                     " " + DTypeName(in.input.dtype) + " samples" + OtherFilesHint(listing) + ")");
    }
    if (!listing.other_files.empty()) {
      data.notes_.push_back("calibration: ignored " + std::to_string(listing.other_files.size()) + " files in " +
                            Quoted(in.folder) + " that are not .npy: " + NameList(listing.other_files));
    }
    int64_t samples = 0;
    for (const std::string& name : listing.npy_files) {
      SampleFile file;
      file.path = Join(in.folder, name);
      HostTensor t;
      RETURN_IF_ERROR(ReadNpy(file.path, &t));
      RETURN_IF_ERROR(CheckSampleFile(file.path, in.input, t));
      file.first_sample = samples;
      file.num_samples = t.shape[0];
      samples += file.num_samples;
      in.files.push_back(std::move(file));
    }
    data.inputs_.push_back(std::move(in));
  }

  const InputSamples& first = data.inputs_[0];
  const int64_t num_samples = first.files.back().first_sample + first.files.back().num_samples;
  for (const InputSamples& in : data.inputs_) {
    const int64_t n = in.files.back().first_sample + in.files.back().num_samples;
    if (n != num_samples) {
      return Status::InvalidArgument(
          "calibration inputs hold different numbers of samples: " + std::to_string(num_samples) + " in " +
          Quoted(first.folder) + " (input " + Quoted(first.input.name) + "), " + std::to_string(n) + " in " +
          Quoted(in.folder) + " (input " + Quoted(in.input.name) + "); sample k of every input belongs together");
    }
  }
  const int64_t batch = inputs[0].shape[0];
  if (num_samples < batch) {
    return Status::InvalidArgument("calibration folder " + Quoted(dir) + " holds " + std::to_string(num_samples) +
                                   " samples, fewer than one batch of " + std::to_string(batch) +
                                   " (the plan's batch size)");
  }
  data.num_samples_ = num_samples;
  data.batch_size_ = batch;
  if (num_samples % batch != 0) {
    data.notes_.push_back("calibration: dropped the last " + std::to_string(num_samples % batch) + " of " +
                          std::to_string(num_samples) + " samples, which do not fill a batch of " +
                          std::to_string(batch) + " (" + std::to_string(data.num_batches()) + " batches used)");
  }
  *out = std::move(data);
  return Status::Ok();
}

Status CalibrationData::ReadBatch(int64_t b, std::vector<HostTensor>* out) {
  if (b < 0 || b >= num_batches()) {
    return Status::OutOfRange("calibration batch " + std::to_string(b) + " requested, the set has " +
                              std::to_string(num_batches()) + " batches");
  }
  out->resize(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i) {
    InputSamples& in = inputs_[i];
    HostTensor& t = (*out)[i];
    t.name = in.input.name;
    t.dtype = in.input.dtype;
    t.shape = in.input.shape;
    t.data.resize(static_cast<size_t>(batch_size_ * in.sample_elements) * DTypeSize(t.dtype));
    RETURN_IF_ERROR(CopySamples(&in, b * batch_size_, batch_size_, t.data.data()));
  }
  return Status::Ok();
}

Status CalibrationData::CopySamples(InputSamples* in, int64_t first, int64_t count, uint8_t* dst) {
  const size_t sample_bytes = static_cast<size_t>(in->sample_elements) * DTypeSize(in->input.dtype);
  const int64_t end = first + count;
  for (int64_t s = first; s < end;) {
    // The file holding sample s: the last one starting at or before it.
    const auto it = std::upper_bound(in->files.begin(), in->files.end(), s,
                                     [](int64_t v, const SampleFile& f) { return v < f.first_sample; });
    const int f = static_cast<int>(it - in->files.begin()) - 1;
    const SampleFile& file = in->files[f];
    if (in->cached_file != f) {
      in->cached_file = -1;
      in->cached = HostTensor();  // free the previous file before reading the next
      RETURN_IF_ERROR(ReadNpy(file.path, &in->cached));
      const Status s = CheckSampleFile(file.path, in->input, in->cached);
      if (!s.ok() || in->cached.shape[0] != file.num_samples) {
        return Status::InvalidArgument(Quoted(file.path) + " changed since the calibration folder was opened" +
                                       (s.ok() ? " (it held " + std::to_string(file.num_samples) + " samples, now " +
                                                     std::to_string(in->cached.shape[0]) + ")"
                                               : ": " + s.message()));
      }
      in->cached_file = f;
    }
    const int64_t local = s - file.first_sample;
    const int64_t n = std::min(end - s, file.num_samples - local);
    const uint8_t* src = in->cached.data.data() + static_cast<size_t>(local) * sample_bytes;
    if (in->input.dtype == DType::kFloat32) {
      RETURN_IF_ERROR(CheckFinite(reinterpret_cast<const float*>(src), n, in->sample_elements, file.path,
                                  in->input.name, local, s));
    }
    std::memcpy(dst, src, static_cast<size_t>(n) * sample_bytes);
    dst += static_cast<size_t>(n) * sample_bytes;
    s += n;
  }
  return Status::Ok();
}

}  // namespace quantize
}  // namespace loom
