#include "kernels/cpu/int8/fully_connected.h"

#include <algorithm>

namespace loom {
namespace int8 {
namespace {

size_t AlignUp(size_t v) { return (v + 63) / 64 * 64; }

constexpr int64_t kBBlockBytes = 256 * 1024;  // packed weights a task keeps in L2
constexpr int64_t kABlockBytes = 64 * 1024;   // packed rows of one task
constexpr int64_t kMaxBlockRows = 64;

// n items in blocks of at most `fit` units of `unit`, spread evenly.
int64_t EvenBlock(int64_t n, int64_t unit, int64_t fit) {
  const int64_t units = (n + unit - 1) / unit;
  fit = std::max<int64_t>(1, fit);
  const int64_t blocks = std::max<int64_t>(1, (units + fit - 1) / fit);
  return std::max<int64_t>(1, (units + blocks - 1) / blocks) * unit;
}

}  // namespace

void FullyConnectedS8::Prepare(const int8_t* b, bool transposed, int64_t m, int64_t k, int64_t n,
                               const std::vector<requant::OutputStage>& stages) {
  m_ = m;
  k_ = k;
  n_ = n;
  steps_.Build(stages);
  packed_b_.PackB(b, transposed ? k : n, transposed, k, n);
  const int64_t a_panel = APanelSize(k) * static_cast<int64_t>(sizeof(int16_t));
  const int64_t b_panel = BPanelSize(k) * static_cast<int64_t>(sizeof(int16_t));
  block_rows_ =
      EvenBlock(m, kGemmS8Mr, std::min(kMaxBlockRows / kGemmS8Mr, kABlockBytes / std::max<int64_t>(1, a_panel)));
  block_cols_ = EvenBlock(n, kGemmS8Nr, kBBlockBytes / std::max<int64_t>(1, b_panel));
  block_bytes_ = AlignUp(static_cast<size_t>(block_rows_ / kGemmS8Mr * a_panel));
}

size_t FullyConnectedS8::ScratchBytes(int num_threads) const {
  return static_cast<size_t>(std::max(1, num_threads)) * block_bytes_;
}

void FullyConnectedS8::Run(const int8_t* a, const int32_t* bias, int8_t* y, void* scratch, ThreadPool* pool) const {
  if (m_ <= 0 || n_ <= 0) return;
  const int64_t row_blocks = (m_ + block_rows_ - 1) / block_rows_;
  int64_t block_cols = block_cols_;
  // Narrower column blocks when there are fewer tasks than threads.
  const int threads = pool ? pool->NumThreads() : 1;
  const int64_t col_panels = NumBPanels(n_);
  if (threads > 1 && row_blocks * ((n_ + block_cols - 1) / block_cols) < 2 * threads) {
    const int64_t want = std::min<int64_t>(col_panels, (2 * threads + row_blocks - 1) / row_blocks);
    block_cols = std::min(block_cols, (col_panels + want - 1) / want * kGemmS8Nr);
  }
  const int64_t col_blocks = (n_ + block_cols - 1) / block_cols;
  const int64_t kp = KPairs(k_);
  ParallelFor(pool, col_blocks * row_blocks, 1, [&](int64_t begin, int64_t end, int thread) {
    int16_t* packed_a =
        reinterpret_cast<int16_t*>(static_cast<char*>(scratch) + static_cast<size_t>(thread) * block_bytes_);
    int64_t packed_rows = -1;  // the row block packed_a holds
    for (int64_t task = begin; task < end; ++task) {
      const int64_t rb = task % row_blocks, cb = task / row_blocks;
      const int64_t i0 = rb * block_rows_, rows = std::min(block_rows_, m_ - i0);
      const int64_t j0 = cb * block_cols, cols = std::min(block_cols, n_ - j0);
      if (packed_rows != rb) {
        PackA(a + i0 * k_, k_, rows, k_, packed_a);
        packed_rows = rb;
      }
      GemmS8Block blk;
      blk.a = packed_a;
      blk.b = packed_b_.BPanels(j0);
      blk.rows = rows;
      blk.cols = cols;
      blk.kp = kp;
      blk.y = y + i0 * n_ + j0;
      blk.ldy = n_;
      blk.bias = bias + j0;
      blk.steps = &steps_;
      blk.channel0 = j0;
      blk.per_row = false;
      GemmS8(blk);
    }
  });
}

}  // namespace int8
}  // namespace loom
