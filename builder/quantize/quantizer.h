// `loom build --int8`: the quantize phase, between the graph passes and
// placement. It
//   1. finds each float activation's range: from --calib-cache when it holds
//      this model's ranges for this method, else by running the float graph
//      on the calibration set (calibration_data.h) with the range estimator
//      of --calib-method (calibration.h), writing the cache when asked;
//   2. picks int8 parameters (quant_scheme.h, op_roles.h: a Relu/Clip's
//      producer takes the activation's range, value-moving ops their input's);
//   3. writes them as QDQ (insert_qdq.h), folds the QDQ into int8 nodes
//      (passes/fold_qdq.h) and removes what did not fold;
//   4. with calibration data, runs float and int8 side by side on it: the SNR
//      of every int8 layer's output and, per graph output, cosine similarity
//      and top-1 agreement. Layers below --int8-min-snr stay float and steps
//      3-4 run once more.
#pragma once

#include <string>
#include <vector>

#include "builder/builder.h"
#include "builder/ir/graph.h"
#include "common/status.h"
#include "kernels/common/registry.h"

namespace loom {
namespace quantize {

// `model_hash` identifies the model for the calibration cache.
Status QuantizeInt8(ir::Graph* graph, const Int8Options& options, const std::string& model_hash,
                    const KernelRegistry& registry, Int8Report* report, std::vector<std::string>* notes);

}  // namespace quantize
}  // namespace loom
