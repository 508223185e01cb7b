// The loops of ReduceSum, ReduceMean, ReduceL1, ReduceL2 and ReduceSumSquare (reduce_loops.h).
#include "kernels/cpu/math/reduce_loops.h"

namespace loom {
namespace math {
namespace reduce {

bool SelectSumReduceFns(const std::string& op, DType dtype, ReduceFns* fns, bool* known_op) {
  return SelectReduceFns<SumR>("ReduceSum", op, dtype, fns, known_op) ||
         SelectReduceFns<MeanR>("ReduceMean", op, dtype, fns, known_op) ||
         SelectReduceFns<L1R>("ReduceL1", op, dtype, fns, known_op) ||
         SelectReduceFns<L2R>("ReduceL2", op, dtype, fns, known_op) ||
         SelectReduceFns<SumSquareR>("ReduceSumSquare", op, dtype, fns, known_op);
}

}  // namespace reduce
}  // namespace math
}  // namespace loom
