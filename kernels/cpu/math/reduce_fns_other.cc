// The loops of ReduceMax, ReduceMin, ReduceProd, ReduceLogSum and ReduceLogSumExp (reduce_loops.h).
#include "kernels/cpu/math/reduce_loops.h"

namespace loom {
namespace math {
namespace reduce {

bool SelectOtherReduceFns(const std::string& op, DType dtype, ReduceFns* fns, bool* known_op) {
  return SelectReduceFns<MaxR>("ReduceMax", op, dtype, fns, known_op) ||
         SelectReduceFns<MinR>("ReduceMin", op, dtype, fns, known_op) ||
         SelectReduceFns<ProdR>("ReduceProd", op, dtype, fns, known_op) ||
         SelectReduceFns<LogSumR>("ReduceLogSum", op, dtype, fns, known_op) ||
         SelectReduceFns<LogSumExpR>("ReduceLogSumExp", op, dtype, fns, known_op);
}

}  // namespace reduce
}  // namespace math
}  // namespace loom
