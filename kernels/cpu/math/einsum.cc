// Einsum, the general strided form: every equation with letters, one
// ellipsis per term (broadcast across inputs), repeated letters within a term
// (diagonals) and the implicit output (ellipsis dims, then the letters used
// once, in ASCII order).
//
// Prepare assigns each label a size and, per input, an element stride (the
// sum of the strides of the dims carrying it; 0 where absent or broadcast).
// Run walks the output elements and, for each, the summed labels with an
// odometer whose innermost label is a plain strided loop. This is O(product
// of all label sizes), like a naive matmul: correct for every equation, and
// fast enough for the small contractions models use Einsum for.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/math/math_util.h"

namespace loom {
namespace math {
namespace {

constexpr int kLetters = 52;                     // A-Z then a-z (ASCII order)
constexpr int kMaxLabels = kLetters + kMaxRank;  // letters plus ellipsis dims
constexpr int kMaxInputs = 8;
constexpr int kEllipsis = -1;  // marker in a parsed term

int LetterLabel(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -2;
}

// Parses one term ("ij", "...k", "") into labels, kEllipsis for "...".
bool ParseTerm(const std::string& s, std::vector<int>* labels) {
  labels->clear();
  bool seen_ellipsis = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      if (seen_ellipsis || s.compare(i, 3, "...") != 0) return false;
      seen_ellipsis = true;
      labels->push_back(kEllipsis);
      i += 2;
      continue;
    }
    const int l = LetterLabel(s[i]);
    if (l < 0) return false;
    labels->push_back(l);
  }
  return true;
}

struct Plan {
  int num_inputs = 0;
  int num_out = 0;  // output labels, in output order
  int num_sum = 0;  // summed labels
  int64_t out_dims[kMaxLabels] = {};
  int64_t sum_dims[kMaxLabels] = {};
  int64_t out_strides[kMaxInputs][kMaxLabels] = {};  // input element strides per output label
  int64_t sum_strides[kMaxInputs][kMaxLabels] = {};  // input element strides per summed label
  int64_t out_size = 0;
};

using EinsumLoop = void (*)(const Plan& p, const void* const* inputs, void* y, int64_t begin, int64_t end);

template <typename T>
void EinsumLoopImpl(const Plan& p, const void* const* inputs, void* yv, int64_t begin, int64_t end) {
  const T* x[kMaxInputs];
  for (int i = 0; i < p.num_inputs; ++i) x[i] = static_cast<const T*>(inputs[i]);
  T* y = static_cast<T*>(yv);
  const int n = p.num_inputs;
  const int inner = p.num_sum - 1;  // the innermost summed label, -1 if none
  const int64_t inner_dim = inner >= 0 ? p.sum_dims[inner] : 1;
  for (int64_t o = begin; o < end; ++o) {
    int64_t base[kMaxInputs] = {};
    int64_t rest = o;
    for (int k = p.num_out - 1; k >= 0; --k) {
      const int64_t c = rest % p.out_dims[k];
      rest /= p.out_dims[k];
      for (int i = 0; i < n; ++i) base[i] += c * p.out_strides[i][k];
    }
    T acc = T(0);
    bool empty = inner_dim == 0;
    for (int s = 0; s < inner; ++s) empty = empty || p.sum_dims[s] == 0;
    int64_t idx[kMaxLabels] = {};
    while (!empty) {
      if (inner < 0) {
        T prod = T(1);
        for (int i = 0; i < n; ++i) prod = WrapMul(prod, x[i][base[i]]);
        acc = WrapAdd(acc, prod);
        break;
      }
      if (n == 2) {
        const T* a = x[0] + base[0];
        const T* b = x[1] + base[1];
        const int64_t sa = p.sum_strides[0][inner], sb = p.sum_strides[1][inner];
        for (int64_t j = 0; j < inner_dim; ++j) acc = WrapAdd(acc, WrapMul(a[j * sa], b[j * sb]));
      } else {
        for (int64_t j = 0; j < inner_dim; ++j) {
          T prod = T(1);
          for (int i = 0; i < n; ++i) prod = WrapMul(prod, x[i][base[i] + j * p.sum_strides[i][inner]]);
          acc = WrapAdd(acc, prod);
        }
      }
      int s = inner - 1;  // odometer over the other summed labels
      for (; s >= 0; --s) {
        ++idx[s];
        for (int i = 0; i < n; ++i) base[i] += p.sum_strides[i][s];
        if (idx[s] < p.sum_dims[s]) break;
        for (int i = 0; i < n; ++i) base[i] -= p.sum_dims[s] * p.sum_strides[i][s];
        idx[s] = 0;
      }
      if (s < 0) break;
    }
    y[o] = acc;
  }
}

class EinsumKernel : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    const size_t n = setup.inputs.size();
    if (n < 1) return setup.Invalid("needs at least one input");
    RETURN_IF_ERROR(CheckNode(setup, n, n, 1, 1));
    if (n > static_cast<size_t>(kMaxInputs)) {
      return setup.Unsupported("more than " + std::to_string(kMaxInputs) + " inputs");
    }
    const Attribute* eq_attr = setup.attrs.Find("equation");
    if (!eq_attr || eq_attr->kind != Attribute::Kind::kString)
      return setup.Invalid("missing string attribute equation");
    const DType dtype = setup.inputs[0].dtype;
    for (size_t i = 1; i < n; ++i) {
      if (setup.inputs[i].dtype != dtype) {
        return setup.Invalid("input " + std::to_string(i) + " has dtype " + DTypeName(setup.inputs[i].dtype) +
                             ", expected " + DTypeName(dtype));
      }
    }
    loop_ = nullptr;
    VisitType<kNumericTypes>(dtype, [&](auto tag) { loop_ = &EinsumLoopImpl<decltype(tag)>; });
    if (!loop_) return UnsupportedDType(setup, "inputs", dtype);
    Shape out_shape;
    RETURN_IF_ERROR(BuildPlan(setup, eq_attr->s, &out_shape));
    return CheckOutput(setup, 0, dtype, out_shape);
  }

  Status Run(const KernelArgs& args) const override {
    const int64_t work = std::max<int64_t>(1, sum_size_);
    ParallelFor(args.pool, plan_.out_size, std::max<int64_t>(1, kElementwiseGrain / work),
                [&](int64_t begin, int64_t end, int) { loop_(plan_, args.inputs, args.outputs[0], begin, end); });
    return Status::Ok();
  }

  Status InferOutputShapes(const KernelSetup& setup, std::vector<Shape>* shapes) const override {
    const Attribute* eq_attr = setup.attrs.Find("equation");
    if (!eq_attr || eq_attr->kind != Attribute::Kind::kString)
      return setup.Invalid("missing string attribute equation");
    EinsumKernel probe;
    Shape out;
    RETURN_IF_ERROR(probe.BuildPlan(setup, eq_attr->s, &out));
    shapes->assign(1, out);
    return Status::Ok();
  }

 private:
  Status BuildPlan(const KernelSetup& setup, const std::string& equation, Shape* out_shape);

  EinsumLoop loop_ = nullptr;
  Plan plan_;
  int64_t sum_size_ = 1;
};

Status EinsumKernel::BuildPlan(const KernelSetup& setup, const std::string& equation, Shape* out_shape) {
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq.push_back(c);
  }
  auto bad = [&](const std::string& why) { return setup.Invalid("equation '" + equation + "': " + why); };
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const size_t n = setup.inputs.size();
  if (terms.size() != n) {
    return bad(std::to_string(terms.size()) + " terms for " + std::to_string(n) + " inputs");
  }

  // Expand every term to one label per input dim; ellipsis dims get labels
  // kLetters + j, right-aligned across inputs (numpy broadcasting).
  std::vector<std::vector<int>> parsed(n);
  int ellipsis_rank = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!ParseTerm(terms[i], &parsed[i])) return bad("malformed term '" + terms[i] + "'");
    const int rank = setup.inputs[i].rank();
    const bool has_ellipsis = std::count(parsed[i].begin(), parsed[i].end(), kEllipsis) > 0;
    const int letters = static_cast<int>(parsed[i].size()) - (has_ellipsis ? 1 : 0);
    if (has_ellipsis ? rank < letters : rank != letters) {
      return bad("term '" + terms[i] + "' does not match input " + std::to_string(i) + " of rank " +
                 std::to_string(rank));
    }
    if (has_ellipsis) ellipsis_rank = std::max(ellipsis_rank, rank - letters);
  }
  int64_t size[kMaxLabels];
  int count[kMaxLabels] = {};
  std::fill(size, size + kMaxLabels, -1);
  std::vector<std::vector<int>> dim_labels(n);
  for (size_t i = 0; i < n; ++i) {
    const Shape& shape = setup.inputs[i].shape;
    const int rank = static_cast<int>(shape.size());
    const int letters =
        static_cast<int>(parsed[i].size()) - (std::count(parsed[i].begin(), parsed[i].end(), kEllipsis) > 0 ? 1 : 0);
    for (int l : parsed[i]) {
      if (l != kEllipsis) {
        dim_labels[i].push_back(l);
        ++count[l];
        continue;
      }
      const int e = rank - letters;
      for (int j = 0; j < e; ++j) dim_labels[i].push_back(kLetters + ellipsis_rank - e + j);
    }
    for (int d = 0; d < rank; ++d) {
      const int l = dim_labels[i][d];
      const int64_t dim = shape[d];
      if (size[l] < 0 || size[l] == dim) {
        size[l] = dim;
      } else if (l >= kLetters && (size[l] == 1 || dim == 1)) {
        size[l] = std::max(size[l], dim);
      } else {
        return bad("label size " + std::to_string(dim) + " in input " + std::to_string(i) + " conflicts with " +
                   std::to_string(size[l]));
      }
    }
  }

  // Output labels.
  std::vector<int> out_labels;
  if (arrow != std::string::npos) {
    std::vector<int> parsed_out;
    if (!ParseTerm(eq.substr(arrow + 2), &parsed_out)) return bad("malformed output term");
    for (int l : parsed_out) {
      if (l == kEllipsis) {
        for (int j = 0; j < ellipsis_rank; ++j) out_labels.push_back(kLetters + j);
        continue;
      }
      if (count[l] == 0) return bad("output label does not appear in an input");
      if (std::count(out_labels.begin(), out_labels.end(), l) > 0) return bad("output label repeated");
      out_labels.push_back(l);
    }
  } else {
    for (int j = 0; j < ellipsis_rank; ++j) out_labels.push_back(kLetters + j);
    for (int l = 0; l < kLetters; ++l) {
      if (count[l] == 1) out_labels.push_back(l);
    }
  }
  std::vector<int> sum_labels;
  for (int l = 0; l < kMaxLabels; ++l) {
    if (size[l] >= 0 && std::find(out_labels.begin(), out_labels.end(), l) == out_labels.end()) {
      sum_labels.push_back(l);
    }
  }

  plan_ = Plan();
  plan_.num_inputs = static_cast<int>(n);
  plan_.num_out = static_cast<int>(out_labels.size());
  plan_.num_sum = static_cast<int>(sum_labels.size());
  out_shape->clear();
  plan_.out_size = 1;
  for (int k = 0; k < plan_.num_out; ++k) {
    const int64_t dim = size[out_labels[k]] < 0 ? 1 : size[out_labels[k]];
    out_shape->push_back(dim);
    plan_.out_dims[k] = dim;
    plan_.out_size *= dim;
  }
  sum_size_ = 1;
  for (int s = 0; s < plan_.num_sum; ++s) {
    plan_.sum_dims[s] = size[sum_labels[s]];
    sum_size_ *= plan_.sum_dims[s];
  }
  for (size_t i = 0; i < n; ++i) {
    const Shape& shape = setup.inputs[i].shape;
    int64_t stride = 1;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      const int l = dim_labels[i][d];
      const int64_t s = (shape[d] == 1 && size[l] != 1) ? 0 : stride;  // broadcast ellipsis dim
      stride *= shape[d];
      const auto out_it = std::find(out_labels.begin(), out_labels.end(), l);
      if (out_it != out_labels.end()) {
        plan_.out_strides[i][out_it - out_labels.begin()] += s;
      } else {
        plan_.sum_strides[i][std::find(sum_labels.begin(), sum_labels.end(), l) - sum_labels.begin()] += s;
      }
    }
  }
  return Status::Ok();
}

}  // namespace

std::unique_ptr<Kernel> NewEinsumKernel() { return std::make_unique<EinsumKernel>(); }

}  // namespace math
}  // namespace loom
