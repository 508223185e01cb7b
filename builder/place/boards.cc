#include "builder/place/boards.h"

namespace loom {
namespace place {

const std::vector<BoardSpec>& Boards() {
  // target, board, accelerator configuration,
  // {CPU, fp32 GMAC/s, int8 GMAC/s, GB/s}, launch us, cache call us, cache GB/s
  static const std::vector<BoardSpec> boards = {
      // PYNQ-Z2 (XC7Z020): two Cortex-A9 at 650 MHz with 512 KB of L2 and 16-bit
      // DDR3-1050 (2.1 GB/s peak). The A9 has NEON, but Loom's armhf build does not
      // use it: Debian's armhf baseline is ARMv7 with VFPv3-D16, and GCC never
      // vectorizes float to NEON without -ffast-math (NEON flushes denormals). So
      // the kernels run scalar:
      //   fp32  VFP multiply-accumulates issue at most one per cycle; with the
      //         loads and the accumulator latency of a register-tiled GEMM about
      //         0.4 per cycle: 0.25 GMAC/s.
      //   int8  the int8 GEMM's int16 pairs (kernels/cpu/int8/gemm_s8.h) on the
      //         integer pipeline, one MLA per cycle with the loads beside it,
      //         about 0.55 per cycle: 0.35 GMAC/s.
      //   memory  one core copies about 0.5 GB/s (reads plus writes: 1 GB/s of
      //         traffic), half the DDR's practical rate; a tensor that fits the
      //         L2 goes faster, so small layers are priced pessimistically.
      // A launch (zynq backend, UIO): about 25 AXI-Lite accesses through GP0 (the
      // run registers, ISR, ERROR and the counters; a read is a round trip to the
      // 100 MHz fabric, 0.5-1 us) ~15 us, plus the interrupt waking the thread
      // blocked in read() on /dev/uioN ~25 us: 40 us.
      // Cache maintenance (u-dma-buf): four sysfs writes per sync (offset, size,
      // direction, sync_for_device/for_cpu; the files stay open) ~15 us, then the
      // range cleaned or invalidated line by line in L1 (32-byte lines) and in the
      // PL310 L2 by physical address, about 1 GB/s.
      {"fpga16", "PYNQ-Z2", "pynq_z2", {"Cortex-A9", 0.25, 0.35, 1.0}, 40, 15, 1.0},
      // KV260 (ZU5EV): four Cortex-A53 at 1.33 GHz with 1 MB of L2 and 64-bit
      // DDR4-2400 (19.2 GB/s peak). AArch64 has NEON as baseline and GCC
      // vectorizes both float and integer loops with it; the A53's NEON datapath
      // is 64 bits wide:
      //   fp32  a 4-lane FMLA every two cycles: 2 MAC/cycle, 2.7 GMAC/s peak; the
      //         portable register-tiled GEMM reaches about 40 %: 1.0 GMAC/s.
      //   int8  SMLAL on int16 pairs, 4 MAC/cycle, 5.3 GMAC/s peak; about 40 %
      //         with the packing and the requantization: 2.0 GMAC/s.
      //   memory  one core copies about 1.5 GB/s: 3 GB/s of traffic.
      // A launch (xrt backend, xrt::ip): the same ~25 register accesses through
      // the mapped AXI-Lite window (~0.3 us each) ~8 us, plus the zocl interrupt
      // wait ~17 us: 25 us.
      // Cache maintenance (xrt::bo::sync): one ioctl ~5 us, then DC CVAC/IVAC by
      // 64-byte line, about 4 GB/s.
      {"fpga32", "KV260", "kv260", {"Cortex-A53", 1.0, 2.0, 3.0}, 25, 5, 4.0},
  };
  return boards;
}

const BoardSpec* FindBoard(const std::string& target) {
  for (const BoardSpec& b : Boards())
    if (b.target == target) return &b;
  return nullptr;
}

}  // namespace place
}  // namespace loom
