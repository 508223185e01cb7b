// Running one pass in a pass test: with the real CPU kernels (they decide
// what fuses), then compacting and validating the graph.
//
//   EXPECT_EQ(testing::RunPass(*MakeFuseSwish(false), b), 1);
#pragma once

#include <gtest/gtest.h>

#include "builder/passes/pass.h"
#include "builder/testing/ir_builder.h"

namespace loom {
namespace testing {

// Returns the number of nodes the pass reports changed. `registry` null:
// the built-in kernels.
inline int RunPass(passes::Pass& pass, IrBuilder& b, const KernelRegistry* registry = nullptr) {
  passes::PassContext ctx;
  if (registry != nullptr) ctx.registry = registry;
  int changes = 0;
  const Status s = pass.Run(b.g, ctx, &changes);
  EXPECT_TRUE(s.ok()) << s.message();
  b.g.Compact();
  EXPECT_TRUE(b.g.Validate().ok()) << b.g.Validate().message();
  return changes;
}

}  // namespace testing
}  // namespace loom
