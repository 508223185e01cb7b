// Tiling: every chosen grid covers the output exactly and fits the buffers;
// the heuristic's choices on known layers; edge padding per tile; weight
// chunking in its three modes.
#include "kernels/fpga/lowering/tiling.h"

#include <random>

#include <gtest/gtest.h>

namespace loom {
namespace fpga {
namespace lowering {
namespace {

const contract::AccelConfig& Pynq() { return *contract::FindConfig("pynq_z2"); }

Window Square(uint32_t k, uint32_t stride, uint32_t pad, uint32_t dilation = 1) {
  Window w;
  w.kh = w.kw = k;
  w.stride_y = w.stride_x = stride;
  w.dilation_y = w.dilation_x = dilation;
  w.pad_top = w.pad_bottom = w.pad_left = w.pad_right = pad;
  return w;
}

TileGrid Grid(const Window& w, uint32_t h, uint32_t wd, uint32_t blocks) {
  TileGrid grid;
  const Status s = ChooseTileGrid(AxisWindow::Y(w, h), AxisWindow::X(w, wd), TileBudgetOf(Pynq(), blocks), "test", &grid);
  EXPECT_TRUE(s.ok()) << s.message();
  return grid;
}

TEST(TilingTest, SplitEvenly) {
  const std::vector<Span> s = SplitEvenly(10, 3);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].begin, 0u);
  EXPECT_EQ(s[0].size, 4u);
  EXPECT_EQ(s[1].begin, 4u);
  EXPECT_EQ(s[1].size, 3u);
  EXPECT_EQ(s[2].begin, 7u);
  EXPECT_EQ(s[2].size, 3u);
}

// Random windows: the spans partition the output, every input tile fits and
// every tile's LOAD_ACT spans exactly the input the CONV walks.
TEST(TilingTest, GridsCoverTheOutputAndFitTheBuffers) {
  std::mt19937 rng(9);
  auto uniform = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  for (int i = 0; i < 2000; ++i) {
    Window w;
    w.kh = uniform(1, 7);
    w.kw = uniform(1, 7);
    w.stride_y = uniform(1, 4);
    w.stride_x = uniform(1, 4);
    w.dilation_y = uniform(1, 2);
    w.dilation_x = uniform(1, 2);
    w.pad_top = uniform(0, w.ExtentY() - 1);
    w.pad_bottom = uniform(0, w.ExtentY() - 1);
    w.pad_left = uniform(0, w.ExtentX() - 1);
    w.pad_right = uniform(0, w.ExtentX() - 1);
    const uint32_t h = uniform(1, 120), wd = uniform(1, 120), blocks = uniform(1, 12);
    const uint32_t max_pixels = uniform(1, 600), input_rows = uniform(64, 2048);
    const TileBudget budget{blocks, input_rows, 2 * input_rows, max_pixels};
    const AxisWindow ay = AxisWindow::Y(w, h), ax = AxisWindow::X(w, wd);
    if (ay.out == 0 || ax.out == 0) continue;
    TileGrid grid;
    const Status s = ChooseTileGrid(ay, ax, budget, "test", &grid);
    if (!s.ok()) {
      EXPECT_GT(uint64_t{ay.InputSpan(1)} * ax.InputSpan(1) * blocks, input_rows) << s.message();
      continue;
    }
    for (const auto& [spans, axis] : {std::pair{&grid.rows, &ay}, std::pair{&grid.cols, &ax}}) {
      uint32_t next = 0;
      for (const Span& span : *spans) {
        EXPECT_EQ(span.begin, next);
        next += span.size;
        const AxisLoad load = LoadForSpan(*axis, span);
        EXPECT_EQ(load.Span(), axis->InputSpan(span.size));
        EXPECT_GE(load.read, 1u);
        EXPECT_LE(load.first + (load.read - 1) * (axis->subsample ? axis->stride : 1), axis->in - 1);
      }
      EXPECT_EQ(next, axis->out);
    }
    for (const Tile& t : grid.List()) {
      EXPECT_LE(t.rows.size * t.cols.size, max_pixels);
      EXPECT_LE(uint64_t{ay.InputSpan(t.rows.size)} * ax.InputSpan(t.cols.size) * blocks,
                grid.Count() == 1 ? budget.single_tile_rows : input_rows);
    }
  }
}

TEST(TilingTest, EdgeTilesGetTheLayerPaddingInteriorTilesReadTheHalo) {
  const Window w = Square(3, 1, 1);
  const AxisWindow ay = AxisWindow::Y(w, 20);
  const AxisLoad top = LoadForSpan(ay, {0, 5}), middle = LoadForSpan(ay, {5, 5}), bottom = LoadForSpan(ay, {15, 5});
  EXPECT_EQ(top.pad_before, 1u);
  EXPECT_EQ(top.first, 0u);
  EXPECT_EQ(top.read, 6u);
  EXPECT_EQ(middle.pad_before, 0u);
  EXPECT_EQ(middle.first, 4u);  // one halo row above
  EXPECT_EQ(middle.read, 7u);   // and one below
  EXPECT_EQ(middle.pad_after, 0u);
  EXPECT_EQ(bottom.first, 14u);
  EXPECT_EQ(bottom.read, 6u);
  EXPECT_EQ(bottom.pad_after, 1u);
}

TEST(TilingTest, OneTapStridedAxesAreSubsampledByTheLoad) {
  const Window w = Square(1, 2, 0);
  const AxisWindow ax = AxisWindow::X(w, 56);
  EXPECT_TRUE(ax.subsample);
  EXPECT_EQ(ax.out, 28u);
  EXPECT_EQ(ax.InputSpan(28), 28u);  // only the pixels the window touches
  const AxisLoad load = LoadForSpan(ax, {14, 14});
  EXPECT_EQ(load.first, 28u);
  EXPECT_EQ(load.read, 14u);
  const ActivationLayout layout = ActivationLayoutOf(Pynq(), 56, 56, 64);
  const contract::LoadAct op =
      LoadInputTile(AxisWindow::Y(w, 56), ax, {{0, 28}, {14, 14}}, layout, {1, 64}, 0, 0);
  EXPECT_EQ(op.pixel_pitch, 2 * 64u);
  EXPECT_EQ(op.row_pitch, 2 * 56 * 64u);
  EXPECT_EQ(op.dram_offset, 64u + 28 * 64);
}

TEST(TilingTest, HeuristicChoices) {
  // ResNet layer1 3x3 over 56x56x64: two column tiles of 28 beat ten full-width tiles of 6 rows.
  TileGrid g = Grid(Square(3, 1, 1), 56, 56, 4);
  EXPECT_EQ(g.Count(), 8u);
  EXPECT_EQ(g.cols.size(), 2u);
  EXPECT_EQ(g.tile_h, 14u);
  // 1x1 over 56x56x64: no halo; full-width tiles are fewest.
  g = Grid(Square(1, 1, 0), 56, 56, 4);
  EXPECT_EQ(g.cols.size(), 1u);
  EXPECT_EQ(g.Count(), 7u);
  // Everything fits: one tile.
  g = Grid(Square(3, 1, 1), 14, 14, 4);
  EXPECT_EQ(g.Count(), 1u);
  // 7x7x512 3x3 (9·9·32 = 2592 rows) fits the whole input buffer but not half: one tile.
  g = Grid(Square(3, 1, 1), 7, 7, 32);
  EXPECT_EQ(g.Count(), 1u);
  EXPECT_EQ(g.tile_h, 7u);
  // The accumulator half caps the pixels: 40x40 1x1 with one block is 1600 pixels.
  g = Grid(Square(1, 1, 0), 40, 40, 1);
  EXPECT_EQ(g.Count(), 2u);
  EXPECT_EQ(g.cols.size(), 1u);
}

TEST(TilingTest, WeightPlans) {
  WeightPlan plan;
  // 64 -> 64 3x3: 4 · 4 · 9 · 16 = 2304 rows fit the 4096-row buffer: resident.
  ASSERT_TRUE(PlanWeights(Pynq(), 4, 4, 3, 3, "t", &plan).ok());
  EXPECT_TRUE(plan.resident);
  ASSERT_EQ(plan.chunks.size(), 1u);
  EXPECT_EQ(plan.chunks[0].cb_count, 4u);
  EXPECT_EQ(plan.rows_per_block, 576u);
  // 512 -> 512 3x3: 14 blocks per 2048-row half, 32 blocks in 3 balanced chunks.
  ASSERT_TRUE(PlanWeights(Pynq(), 32, 32, 3, 3, "t", &plan).ok());
  EXPECT_FALSE(plan.resident);
  ASSERT_EQ(plan.chunks.size(), 3u);
  EXPECT_EQ(plan.chunks[0].cb_count, 11u);
  EXPECT_EQ(plan.chunks[1].cb_begin, 11u);
  EXPECT_EQ(plan.chunks[2].cb_count, 10u);
  EXPECT_EQ(plan.chunks[2].row, 22u * 144);
  // 15x15 over 2 in and 2 out blocks on pynq: 3600 rows per block; runs of kernel rows.
  ASSERT_TRUE(PlanWeights(Pynq(), 2, 2, 15, 15, "t", &plan).ok());
  EXPECT_FALSE(plan.resident);
  ASSERT_EQ(plan.chunks.size(), 4u);  // per block: rows 0..7, 8..14
  EXPECT_EQ(plan.chunks[0].ky_count, 8u);
  EXPECT_EQ(plan.chunks[1].ky_begin, 8u);
  EXPECT_EQ(plan.chunks[1].row, 8u * 15 * 16);
  EXPECT_EQ(plan.chunks[2].cb_begin, 1u);
  EXPECT_EQ(plan.chunks[2].row, 3600u);
}

}  // namespace
}  // namespace lowering
}  // namespace fpga
}  // namespace loom
