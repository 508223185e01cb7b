#include "builder/place/hand_over.h"

#include "kernels/cpu/layout/padded_layout.h"

namespace loom {
namespace place {

HandOver PriceHandOver(const BoardSpec& board, const fpga::contract::AccelConfig& accel, const ir::Value& value,
                       Device from, Device to) {
  HandOver h;
  if (from == to) return h;
  const double element = static_cast<double>(DTypeSize(value.dtype));
  double padded = static_cast<double>(value.num_bytes());
  layout::PaddedShape shape;
  if (value.shape_known && layout::PaddedShapeOf(value.shape, accel.n, &shape).ok()) {
    padded = static_cast<double>(shape.PaddedElements()) * element;
    h.relayout_ms = (static_cast<double>(shape.Elements()) * element + padded) / (board.cpu.gbytes * 1e6);
  }
  h.cache_ms = board.cache_call_us / 1e3 + padded / (board.cache_gbytes * 1e6);
  if (to != Device::kCpu) h.launch_ms = board.launch_us / 1e3;
  return h;
}

}  // namespace place
}  // namespace loom
