#include "builder/testing/nchwc_reference_kernels.h"

#include <string>
#include <vector>

#include "kernels/cpu/nn/activation_epilogue.h"

namespace loom {
namespace testing {
namespace {

constexpr int64_t kB = 8;

// To/FromNchwc: [N, C, H, W] <-> [N, C/8, H, W, 8].
class ReorderReference : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    to_ = setup.op == "ToNchwc";
    const Shape& s = to_ ? setup.inputs[0].shape : setup.outputs[0].shape;
    if (s.size() != 4 || s[1] % kB != 0) return setup.Invalid("expects an NCHW side of rank 4, C % 8 == 0");
    n_ = s[0];
    c_ = s[1];
    hw_ = s[2] * s[3];
    return Status::Ok();
  }
  Status Run(const KernelArgs& args) const override {
    const float* x = args.in<float>(0);
    float* y = args.out<float>(0);
    for (int64_t n = 0; n < n_; ++n)
      for (int64_t c = 0; c < c_; ++c)
        for (int64_t p = 0; p < hw_; ++p) {
          const int64_t nchw = (n * c_ + c) * hw_ + p, blocked = ((n * c_ / kB + c / kB) * hw_ + p) * kB + c % kB;
          y[to_ ? blocked : nchw] = x[to_ ? nchw : blocked];
        }
    return Status::Ok();
  }

 private:
  bool to_ = true;
  int64_t n_ = 0, c_ = 0, hw_ = 0;
};

// ConvNchwc (W [Cout/8, Cin/8, KH, KW, 8, 8]), ConvNchwcStem (X NCHW,
// W [Cout/8, Cin, KH, KW, 8]) and DepthwiseConvNchwc (W [C/8, KH, KW, 8]):
// direct loops, then bias, residual and activation; ConvNchwc's input
// scale (loom.input_scale, input 4 [N, Cin/8, 1, 1, 8]) multiplies X.
class ConvReference : public Kernel {
 public:
  Status Prepare(const KernelSetup& setup) override {
    depthwise_ = setup.op == "DepthwiseConvNchwc";
    stem_ = setup.op == "ConvNchwcStem";
    const Shape& x = setup.inputs[0].shape;
    const Shape& y = setup.outputs[0].shape;
    if (x.size() != (stem_ ? 4u : 5u) || y.size() != 5)
      return setup.Invalid("expects blocked (stem: NCHW) X, blocked Y");
    x_ = {x[0], stem_ ? x[1] : x[1] * kB, x[2], x[3]};
    y_ = {y[1], y[2], y[3]};
    geo_.clear();  // KH, KW, SH, SW, top, left, bottom, right, DH, DW
    for (const char* name : {"kernel_shape", "strides", "pads", "dilations"}) {
      const std::vector<int64_t> v = setup.attrs.GetInts(name);
      if (v.size() != (std::string(name) == "pads" ? 4u : 2u)) return setup.Invalid(std::string("no explicit ") + name);
      geo_.insert(geo_.end(), v.begin(), v.end());
    }
    has_bias_ = setup.HasInput(2);
    has_residual_ = setup.HasInput(3);
    has_scale_ = setup.HasInput(4);
    if (has_scale_ && (stem_ || depthwise_ || setup.attrs.GetInt("loom.input_scale", 0) != 1))
      return setup.Invalid("input 4 is ConvNchwc's loom.input_scale");
    return nn::ParseActivation(setup, &act_);
  }

  Status Run(const KernelArgs& args) const override {
    const float* x = args.in<float>(0);
    const float* wt = args.in<float>(1);
    float* y = args.out<float>(0);
    const int64_t cin = x_[1], h = x_[2], w = x_[3], cob = y_[0], oh_size = y_[1], ow_size = y_[2];
    const int64_t kh = geo_[0], kw = geo_[1];
    for (int64_t n = 0; n < x_[0]; ++n)
      for (int64_t co = 0; co < cob * kB; ++co)
        for (int64_t oh = 0; oh < oh_size; ++oh)
          for (int64_t ow = 0; ow < ow_size; ++ow) {
            double acc = has_bias_ ? args.in<float>(2)[co] : 0.0;
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t ih = oh * geo_[2] - geo_[4] + i * geo_[8], iw = ow * geo_[3] - geo_[5] + j * geo_[9];
                if (ih < 0 || ih >= h || iw < 0 || iw >= w) continue;
                const int64_t c0 = depthwise_ ? co : 0, c1 = depthwise_ ? co + 1 : cin;
                for (int64_t ci = c0; ci < c1; ++ci) {
                  float xv = stem_ ? x[((n * cin + ci) * h + ih) * w + iw]
                                   : x[(((n * cin / kB + ci / kB) * h + ih) * w + iw) * kB + ci % kB];
                  if (has_scale_) xv *= args.in<float>(4)[n * cin + ci];
                  const int64_t wi = depthwise_ ? ((co / kB * kh + i) * kw + j) * kB + co % kB
                                     : stem_    ? ((((co / kB) * cin + ci) * kh + i) * kw + j) * kB + co % kB
                                                : ((((co / kB) * (cin / kB) + ci / kB) * kh + i) * kw + j) * kB * kB +
                                                   (ci % kB) * kB + co % kB;
                  acc += static_cast<double>(xv) * wt[wi];
                }
              }
            const int64_t yi = (((n * cob + co / kB) * oh_size + oh) * ow_size + ow) * kB + co % kB;
            y[yi] = static_cast<float>(acc) + (has_residual_ ? args.in<float>(3)[yi] : 0.f);
          }
    nn::ApplyActivation(act_, y, x_[0] * cob * oh_size * ow_size * kB);
    return Status::Ok();
  }

 private:
  bool depthwise_ = false, stem_ = false, has_bias_ = false, has_residual_ = false, has_scale_ = false;
  std::vector<int64_t> x_, y_, geo_;  // X [N, Cin, H, W], Y [Cout/8, OH, OW]
  nn::Activation act_;
};

}  // namespace

KernelRegistry WithoutNchwcKernels(const KernelRegistry& base) {
  KernelRegistry r;
  for (const KernelDef& d : base.all())
    if (!(d.domain == "loom" && d.op.find("Nchwc") != std::string::npos)) r.Add(d);
  return r;
}

KernelRegistry WithNchwcReferenceKernels(const KernelRegistry& base) {
  KernelRegistry r = WithoutNchwcKernels(base);
  r.AddCpu("ToNchwc", MakeKernel<ReorderReference>, "reference", "loom");
  r.AddCpu("FromNchwc", MakeKernel<ReorderReference>, "reference", "loom");
  r.AddCpu("ConvNchwc", MakeKernel<ConvReference>, "reference", "loom");
  r.AddCpu("ConvNchwcStem", MakeKernel<ConvReference>, "reference", "loom");
  r.AddCpu("DepthwiseConvNchwc", MakeKernel<ConvReference>, "reference", "loom");
  for (const KernelDef& d : base.all())
    if (d.domain == "loom" && (d.op == "MaxPoolNchwc" || d.op == "AveragePoolNchwc")) r.Add(d);
  return r;
}

}  // namespace testing
}  // namespace loom
