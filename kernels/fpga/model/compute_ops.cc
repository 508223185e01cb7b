// The compute unit: CONV on the systolic array, and the vector path's ADD and
// MAXPOOL, input and weight buffers -> accumulators.
#include <algorithm>
#include <limits>
#include <sstream>

#include "kernels/common/requantize.h"
#include "kernels/fpga/model/datapath.h"

namespace loom {
namespace fpga {
namespace {

using contract::ErrorCode;

// An input byte as the array sees it: int8, or uint8 as a 9-bit signed operand.
int32_t Activation(uint8_t byte, bool is_unsigned) { return is_unsigned ? byte : static_cast<int8_t>(byte); }

// The sliding window CONV and MAXPOOL walk over an input tile (hw/README.md,
// CONV address generation): output pixel (oy, ox), tap (ky, kx) and channel
// block cb read input row
//   inp_base + ((oy·stride_y + ky·dilation_y)·in_w + ox·stride_x + kx·dilation_x)·in_cb + cb.
struct Window {
  uint32_t inp_base, in_w, in_cb, kh, kw, stride_y, stride_x, dilation_y, dilation_x, oh, ow;

  template <typename Op>
  static Window Of(const Op& op) {
    return {op.inp_base, op.in_w,       op.in_cb,      op.kh, op.kw, op.stride_y,
            op.stride_x, op.dilation_y, op.dilation_x, op.oh, op.ow};
  }

  uint64_t InputRow(uint32_t oy, uint32_t ox, uint32_t ky, uint32_t kx, uint32_t cb) const {
    const uint64_t y = uint64_t{oy} * stride_y + uint64_t{ky} * dilation_y;
    const uint64_t x = uint64_t{ox} * stride_x + uint64_t{kx} * dilation_x;
    return inp_base + (y * in_w + x) * in_cb + cb;
  }

  // The window reads channel blocks [cb_first, cb_first + cb_count). The tile
  // width is in the command, so a window wider than it is a BAD_FIELD; the
  // tile height is not, so reading below the tile is only caught when it runs
  // past the buffer (SRAM_RANGE). Row indices grow with every coordinate, so
  // the last pixel's last tap is the highest row read.
  Fault Check(uint32_t cb_first, uint32_t cb_count, uint32_t inp_rows) const {
    LOOM_RETURN_IF_FAULT(AtLeastOne({{"kh", kh},
                                     {"kw", kw},
                                     {"stride_y", stride_y},
                                     {"stride_x", stride_x},
                                     {"dilation_y", dilation_y},
                                     {"dilation_x", dilation_x},
                                     {"oh", oh},
                                     {"ow", ow}}));
    const uint64_t last_x = uint64_t{ow - 1} * stride_x + uint64_t{kw - 1} * dilation_x;
    if (last_x >= in_w) {
      std::ostringstream m;
      m << "input column " << last_x << " (ox " << ow - 1 << ", kx " << kw - 1 << ") outside the tile width in_w "
        << in_w;
      return Fault::Of(ErrorCode::kBadField, m.str());
    }
    if (uint64_t{cb_first} + cb_count > in_cb) {
      std::ostringstream m;
      m << "channel block " << uint64_t{cb_first} + cb_count - 1 << " outside the tile's in_cb " << in_cb;
      return Fault::Of(ErrorCode::kBadField, m.str());
    }
    return RowsInside("input", InputRow(oh - 1, ow - 1, kh - 1, kw - 1, cb_first + cb_count - 1), 1, "input", inp_rows);
  }
};

}  // namespace

// acc[acc_base + oy·ow + ox][j] (+)= Σ over cb, ky, kx, i of w·x, with w byte j
// of row i of weight tile ((cb − cb_begin)·kh + ky)·kw + kx and x byte i of
// the window's input row.
Fault Datapath::Conv(const contract::Conv& op) {
  const Window window = Window::Of(op);
  LOOM_RETURN_IF_FAULT(AtLeastOne({{"cb_count", op.cb_count}}));
  LOOM_RETURN_IF_FAULT(window.Check(op.cb_begin, op.cb_count, config_.inp_rows));
  const uint64_t taps = uint64_t{op.cb_count} * op.kh * op.kw;
  LOOM_RETURN_IF_FAULT(RowsInside("weight", op.wgt_base, taps * n_, "weight", config_.wgt_rows));
  LOOM_RETURN_IF_FAULT(
      RowsInside("accumulator", op.acc_base, uint64_t{op.oh} * op.ow, "accumulator", config_.acc_rows));

  std::vector<uint32_t> sum(n_);  // one output pixel's N lanes, wrapping like the hardware
  for (uint32_t oy = 0; oy < op.oh; ++oy) {
    for (uint32_t ox = 0; ox < op.ow; ++ox) {
      std::fill(sum.begin(), sum.end(), 0);
      for (uint32_t c = 0; c < op.cb_count; ++c) {
        for (uint32_t ky = 0; ky < op.kh; ++ky) {
          for (uint32_t kx = 0; kx < op.kw; ++kx) {
            const uint8_t* x = InputRow(window.InputRow(oy, ox, ky, kx, op.cb_begin + c));
            const int8_t* tile = WeightRow(op.wgt_base + ((uint64_t{c} * op.kh + ky) * op.kw + kx) * n_);
            for (uint32_t i = 0; i < n_; ++i) {
              const int32_t xi = Activation(x[i], op.act_unsigned != 0);
              const int8_t* w = tile + size_t{i} * n_;
              for (uint32_t j = 0; j < n_; ++j) sum[j] += static_cast<uint32_t>(xi * w[j]);
            }
          }
        }
      }
      int32_t* acc = AccRow(op.acc_base + uint64_t{oy} * op.ow + ox);
      for (uint32_t j = 0; j < n_; ++j) {
        const int32_t s = static_cast<int32_t>(sum[j]);
        acc[j] = op.accumulate ? WrappingAdd(acc[j], s) : s;
      }
    }
  }
  counters_.macs += uint64_t{op.oh} * op.ow * taps * n_ * n_;
  return Fault::Ok();
}

// acc[acc_base + r][j] = ScaleAddInput(a) + ScaleAddInput(b): the part of
// requant::RequantizeAdd before its output stage, which STORE applies.
Fault Datapath::Add(const contract::Add& op) {
  LOOM_RETURN_IF_FAULT(AtLeastOne({{"rows", op.rows}}));
  LOOM_RETURN_IF_FAULT(ShiftInRange("a_shift", op.a_shift));
  LOOM_RETURN_IF_FAULT(ShiftInRange("b_shift", op.b_shift));
  LOOM_RETURN_IF_FAULT(RowsInside("a input", op.a_base, op.rows, "input", config_.inp_rows));
  LOOM_RETURN_IF_FAULT(RowsInside("b input", op.b_base, op.rows, "input", config_.inp_rows));
  LOOM_RETURN_IF_FAULT(RowsInside("accumulator", op.acc_base, op.rows, "accumulator", config_.acc_rows));

  // Multiplier bits are an int32 in two's complement, used as given.
  const requant::Multiplier a_scale{static_cast<int32_t>(op.a_multiplier), op.a_shift};
  const requant::Multiplier b_scale{static_cast<int32_t>(op.b_multiplier), op.b_shift};
  const bool is_unsigned = op.act_unsigned != 0;
  for (uint32_t r = 0; r < op.rows; ++r) {
    const uint8_t* a = InputRow(uint64_t{op.a_base} + r);
    const uint8_t* b = InputRow(uint64_t{op.b_base} + r);
    int32_t* acc = AccRow(uint64_t{op.acc_base} + r);
    for (uint32_t j = 0; j < n_; ++j) {
      acc[j] = WrappingAdd(requant::ScaleAddInput(Activation(a[j], is_unsigned), op.a_zp, a_scale),
                           requant::ScaleAddInput(Activation(b[j], is_unsigned), op.b_zp, b_scale));
    }
  }
  return Fault::Ok();
}

// acc[acc_base + oy·ow + ox][j] = max over ky, kx of x − in_zp, x byte j of the
// window's input row in channel block cb. Padding is whatever LOAD_ACT wrote.
Fault Datapath::Maxpool(const contract::Maxpool& op) {
  const Window window = Window::Of(op);
  LOOM_RETURN_IF_FAULT(window.Check(op.cb, 1, config_.inp_rows));
  LOOM_RETURN_IF_FAULT(
      RowsInside("accumulator", op.acc_base, uint64_t{op.oh} * op.ow, "accumulator", config_.acc_rows));

  std::vector<int32_t> best(n_);
  for (uint32_t oy = 0; oy < op.oh; ++oy) {
    for (uint32_t ox = 0; ox < op.ow; ++ox) {
      std::fill(best.begin(), best.end(), std::numeric_limits<int32_t>::min());
      for (uint32_t ky = 0; ky < op.kh; ++ky) {
        for (uint32_t kx = 0; kx < op.kw; ++kx) {
          const uint8_t* x = InputRow(window.InputRow(oy, ox, ky, kx, op.cb));
          for (uint32_t j = 0; j < n_; ++j) best[j] = std::max(best[j], Activation(x[j], op.act_unsigned != 0));
        }
      }
      int32_t* acc = AccRow(op.acc_base + uint64_t{oy} * op.ow + ox);
      for (uint32_t j = 0; j < n_; ++j) acc[j] = best[j] - op.in_zp;
    }
  }
  return Fault::Ok();
}

}  // namespace fpga
}  // namespace loom
