// Pad: modes constant, reflect, edge and wrap. Pads come from the `paddings`
// (opset 1) or `pads` (opset 2-10) attribute, or from the `pads` input (opset
// >= 11, optionally restricted to `axes` from opset 18); negative pads crop.
//
// Every output dim gets an index map, output index -> source index (or -1 for
// the constant value), so one row loop serves all modes: rows whose leading
// indices map to -1 are filled, the last dim is gathered through its map, or,
// in constant mode, copied as one contiguous run between two fills. With a
// runtime `pads` input the maps are rebuilt in scratch memory at each run.
#include <cstring>

#include "kernels/cpu/tensor/tensor_util.h"

namespace loom {
namespace tensor {
namespace {

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// Source index of output index o on a dim of size n padded by `begin` in
// front; -1 means the constant value.
inline int64_t MapIndex(PadMode mode, int64_t o, int64_t begin, int64_t n) {
  int64_t i = o - begin;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return i < 0 ? 0 : n - 1;
    case PadMode::kWrap:
      return ((i % n) + n) % n;
    case PadMode::kReflect: {
      if (n == 1) return 0;
      const int64_t period = 2 * (n - 1);
      i = ((i % period) + period) % period;
      return i < n ? i : period - i;
    }
  }
  return -1;
}

class PadKernel final : public Kernel {
 public:
  Status Prepare(const KernelSetup& s) override {
    RETURN_IF_ERROR(ReadNode(s));
    const TensorInfo& x = s.inputs[0];
    in_shape_ = x.shape;
    in_strides_ = StridesOf(x.shape);
    elem_size_ = DTypeSize(x.dtype);
    const int rank = x.rank();
    map_start_.assign(static_cast<size_t>(rank) + 1, 0);
    if (pads_known_) {
      Shape out;
      RETURN_IF_ERROR(OutputShape(s, &out));
      RETURN_IF_ERROR(CheckOutput(s, 0, x.dtype, out));
    } else if (s.outputs[0].dtype != x.dtype || s.outputs[0].rank() != rank) {
      return s.Invalid("output 0 is " + std::string(DTypeName(s.outputs[0].dtype)) + " " +
                       ShapeToString(s.outputs[0].shape) + ", expected " + DTypeName(x.dtype) + " of rank " +
                       std::to_string(rank));
    }
    out_shape_ = s.outputs[0].shape;
    for (int d = 0; d < rank; ++d) map_start_[d + 1] = map_start_[d] + out_shape_[static_cast<size_t>(d)];
    if (mode_ != PadMode::kConstant && NumElements(out_shape_) > 0) {
      for (int d = 0; d < rank; ++d)
        if (in_shape_[static_cast<size_t>(d)] == 0)
          return s.Invalid("cannot pad empty axis " + std::to_string(d) + " in a non-constant mode");
    }
    if (pads_known_) {
      maps_.resize(static_cast<size_t>(map_start_.back()));
      FillMaps(pads_.data(), maps_.data());
    }
    return Status::Ok();
  }

  Status InferOutputShapes(const KernelSetup& s, std::vector<Shape>* shapes) const override {
    PadKernel k;
    RETURN_IF_ERROR(k.ReadNode(s));
    if (!k.pads_known_) return s.Unsupported("Pad with a non-constant 'pads' input");
    Shape out;
    RETURN_IF_ERROR(k.OutputShape(s, &out));
    *shapes = {out};
    return Status::Ok();
  }

  size_t ScratchBytes(int) const override {
    return pads_known_ ? 0 : static_cast<size_t>(map_start_.back() + 2 * kMaxRank) * sizeof(int64_t);
  }

  Status Run(const KernelArgs& args) const override {
    uint8_t value[8];
    std::memcpy(value, value_, sizeof(value));
    if (value_input_ && args.inputs[2]) std::memcpy(value, args.inputs[2], elem_size_);
    if (in_shape_.empty()) {
      CopyBytes(args.pool, args.outputs[0], args.inputs[0], elem_size_);
      return Status::Ok();
    }
    const int64_t* maps = maps_.data();
    if (!pads_known_) {
      const int rank = static_cast<int>(in_shape_.size());
      int64_t* pads = static_cast<int64_t*>(args.scratch);
      int64_t* scratch_maps = pads + 2 * kMaxRank;
      for (int i = 0; i < 2 * rank; ++i) pads[i] = 0;
      const int64_t n = static_cast<int64_t>(pad_axes_.size());
      for (int64_t i = 0; i < n; ++i) {
        pads[pad_axes_[static_cast<size_t>(i)]] = LoadIndex(args.inputs[1], pads_dtype_, i);
        pads[pad_axes_[static_cast<size_t>(i)] + rank] = LoadIndex(args.inputs[1], pads_dtype_, i + n);
      }
      for (int d = 0; d < rank; ++d) {
        const int64_t limit = int64_t{1} << 48;
        if (pads[d] > limit || pads[d] < -limit || pads[d + rank] > limit || pads[d + rank] < -limit)
          return Status::InvalidArgument("runtime 'pads' value out of range on axis " + std::to_string(d));
        const int64_t dim = in_shape_[static_cast<size_t>(d)] + pads[d] + pads[d + rank];
        if (dim != out_shape_[static_cast<size_t>(d)])
          return Status::InvalidArgument("runtime 'pads' give axis " + std::to_string(d) + " size " +
                                         std::to_string(dim) + ", the plan expects " +
                                         std::to_string(out_shape_[static_cast<size_t>(d)]));
      }
      FillMaps(pads, scratch_maps);
      maps = scratch_maps;
    }
    RunRows(args, maps, value);
    return Status::Ok();
  }

 private:
  // Reads mode, value and pads (when constant) from attributes or inputs.
  Status ReadNode(const KernelSetup& s) {
    const bool attr_form = s.opset < 11;
    RETURN_IF_ERROR(CheckNode(s, attr_form ? 1 : 2, attr_form ? 1 : 4, 1, 1));
    const TensorInfo& x = s.inputs[0];
    const int64_t rank = x.rank();
    std::string mode;
    RETURN_IF_ERROR(ReadStringAttr(s, "mode", "constant", &mode));
    if (mode == "constant") {
      mode_ = PadMode::kConstant;
    } else if (mode == "reflect") {
      mode_ = PadMode::kReflect;
    } else if (mode == "edge") {
      mode_ = PadMode::kEdge;
    } else if (mode == "wrap") {
      mode_ = PadMode::kWrap;
    } else {
      return s.Invalid("attribute mode='" + mode + "' is not constant, reflect, edge or wrap");
    }
    std::memset(value_, 0, sizeof(value_));
    pad_axes_.clear();
    if (attr_form) {
      float value = 0;
      RETURN_IF_ERROR(ReadFloatAttr(s, "value", 0.f, &value));
      StoreFromDouble(value, x.dtype, value_);
      bool given = false;
      const char* name = s.attrs.Has("pads") ? "pads" : "paddings";
      RETURN_IF_ERROR(ReadIntsAttr(s, name, &pads_, &given));
      if (!given) return s.Invalid("attribute 'pads' is required before opset 11");
      for (int64_t d = 0; d < rank; ++d) pad_axes_.push_back(d);
      pads_known_ = true;
    } else {
      RETURN_IF_ERROR(CheckIndexDType(s, 1, "pads"));
      if (s.inputs[1].rank() != 1)
        return s.Invalid("input 'pads' has shape " + ShapeToString(s.inputs[1].shape) + ", expected 1-D");
      if (s.HasInput(2)) {
        RETURN_IF_ERROR(CheckInputDType(s, 2, x.dtype, "constant_value"));
        RETURN_IF_ERROR(CheckScalarLike(s, 2, "constant_value"));
        if (s.inputs[2].const_data) {
          std::memcpy(value_, s.inputs[2].const_data, DTypeSize(x.dtype));
        } else {
          value_input_ = true;
        }
      }
      if (s.HasInput(3)) {
        if (!s.inputs[3].const_data) return s.Unsupported("a non-constant 'axes' input");
        std::vector<int64_t> axes;
        RETURN_IF_ERROR(ConstInts(s, 3, &axes));
        RETURN_IF_ERROR(NormalizeAxes(s, axes, rank, "'axes'", &pad_axes_));
      } else {
        for (int64_t d = 0; d < rank; ++d) pad_axes_.push_back(d);
      }
      pads_dtype_ = s.inputs[1].dtype;
      pads_known_ = s.inputs[1].const_data != nullptr;
      if (pads_known_) RETURN_IF_ERROR(ConstInts(s, 1, &pads_));
      if (s.inputs[1].num_elements() != 2 * static_cast<int64_t>(pad_axes_.size()))
        return s.Invalid("input 'pads' has " + std::to_string(s.inputs[1].num_elements()) + " values, expected " +
                         std::to_string(2 * pad_axes_.size()));
    }
    if (pads_known_) {
      if (pads_.size() != 2 * pad_axes_.size())
        return s.Invalid("'pads' has " + std::to_string(pads_.size()) + " values, expected " +
                         std::to_string(2 * pad_axes_.size()));
      // Expand to [begin x rank, end x rank] over all dims.
      std::vector<int64_t> full(static_cast<size_t>(2 * rank), 0);
      const size_t n = pad_axes_.size();
      for (size_t i = 0; i < n; ++i) {
        full[static_cast<size_t>(pad_axes_[i])] = pads_[i];
        full[static_cast<size_t>(pad_axes_[i] + rank)] = pads_[i + n];
      }
      pads_ = full;
    }
    return Status::Ok();
  }

  Status OutputShape(const KernelSetup& s, Shape* out) const {
    const Shape& in = s.inputs[0].shape;
    const size_t rank = in.size();
    out->resize(rank);
    for (size_t d = 0; d < rank; ++d) {
      const int64_t begin = pads_[d];
      const int64_t end = pads_[d + rank];
      const int64_t limit = int64_t{1} << 48;
      if (begin > limit || end > limit || begin < -limit || end < -limit)
        return s.Invalid("pads " + IntsToString(pads_) + " are out of range");
      (*out)[d] = in[d] + begin + end;
      if ((*out)[d] < 0)
        return s.Invalid("pads " + IntsToString(pads_) + " crop axis " + std::to_string(d) + " of size " +
                         std::to_string(in[d]) + " below zero");
    }
    return Status::Ok();
  }

  void FillMaps(const int64_t* pads, int64_t* maps) const {
    for (size_t d = 0; d < in_shape_.size(); ++d) {
      int64_t* m = maps + map_start_[d];
      for (int64_t o = 0; o < out_shape_[d]; ++o) m[o] = MapIndex(mode_, o, pads[d], in_shape_[d]);
    }
  }

  void RunRows(const KernelArgs& args, const int64_t* maps, const uint8_t* value) const {
    const int last = static_cast<int>(in_shape_.size()) - 1;
    const int64_t row_len = out_shape_[static_cast<size_t>(last)];
    const int64_t rows = NumElements(out_shape_) / (row_len ? row_len : 1);
    if (row_len == 0 || rows == 0) return;
    const int64_t* last_map = maps + map_start_[static_cast<size_t>(last)];
    // The run [a, b) of the last dim that maps contiguously to the source.
    int64_t a = 0;
    while (a < row_len && last_map[a] < 0) ++a;
    int64_t b = a;
    while (b < row_len && last_map[b] == last_map[a] + (b - a)) ++b;
    const bool contiguous = mode_ == PadMode::kConstant;
    const char* src = static_cast<const char*>(args.inputs[0]);
    char* dst = static_cast<char*>(args.outputs[0]);
    const size_t es = elem_size_;
    ParallelFor(args.pool, rows, row_len >= 4096 ? 1 : 4096 / row_len, [&](int64_t begin, int64_t end, int) {
      DispatchBySize(es, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T fill;
        std::memcpy(&fill, value, sizeof(T));
        for (int64_t row = begin; row < end; ++row) {
          T* out = reinterpret_cast<T*>(dst) + row * row_len;
          int64_t rem = row;
          int64_t src_off = 0;
          bool padded = false;
          for (int d = last - 1; d >= 0; --d) {
            const int64_t i = rem % out_shape_[static_cast<size_t>(d)];
            rem /= out_shape_[static_cast<size_t>(d)];
            const int64_t m = maps[map_start_[static_cast<size_t>(d)] + i];
            if (m < 0) padded = true;
            src_off += m * in_strides_[static_cast<size_t>(d)];
          }
          if (padded) {
            for (int64_t j = 0; j < row_len; ++j) out[j] = fill;
            continue;
          }
          const T* in = reinterpret_cast<const T*>(src) + src_off;
          if (contiguous) {
            for (int64_t j = 0; j < a; ++j) out[j] = fill;
            if (b > a) std::memcpy(out + a, in + last_map[a], static_cast<size_t>(b - a) * sizeof(T));
            for (int64_t j = b; j < row_len; ++j) out[j] = fill;
          } else {
            for (int64_t j = 0; j < row_len; ++j) out[j] = in[last_map[j]];
          }
        }
      });
    });
  }

  PadMode mode_ = PadMode::kConstant;
  uint8_t value_[8] = {};
  bool value_input_ = false;
  bool pads_known_ = false;
  std::vector<int64_t> pads_;      // [begin x rank, end x rank] when known
  std::vector<int64_t> pad_axes_;  // axes the pads input covers
  DType pads_dtype_ = DType::kInt64;
  Shape in_shape_, in_strides_, out_shape_;
  std::vector<int64_t> map_start_;  // offset of each dim's map
  std::vector<int64_t> maps_;
  size_t elem_size_ = 0;
};

}  // namespace

std::unique_ptr<Kernel> MakePadKernel() { return std::make_unique<PadKernel>(); }

}  // namespace tensor
}  // namespace loom
