#include "builder/passes/pipeline.h"

#include <algorithm>

#include "builder/build_log.h"
#include "builder/passes/eliminate_common_subexpressions.h"
#include "builder/passes/eliminate_dead_nodes.h"
#include "builder/passes/eliminate_identity.h"
#include "builder/passes/fold_channel_scale.h"
#include "builder/passes/fold_constants.h"
#include "builder/passes/fold_pad.h"
#include "builder/passes/fold_qdq.h"
#include "builder/passes/fold_scale_into_conv.h"
#include "builder/passes/fold_transpose.h"
#include "builder/passes/fuse_activation.h"
#include "builder/passes/fuse_bias_add.h"
#include "builder/passes/fuse_conv_add.h"
#include "builder/passes/fuse_conv_batchnorm.h"
#include "builder/passes/fuse_elementwise_chain.h"
#include "builder/passes/fuse_gelu.h"
#include "builder/passes/fuse_layer_norm.h"
#include "builder/passes/fuse_swish.h"
#include "builder/passes/layout_nchwc.h"
#include "builder/passes/space_to_depth_stem.h"

namespace loom {
namespace passes {

Pipeline DefaultPipeline() {
  Pipeline p;
  p.Add(Phase::kGraph, MakeEliminateIdentity(), "drop Identity and inference-mode Dropout");
  p.Add(Phase::kGraph, MakeFoldConstants(),
        "evaluate constant subgraphs and Shape chains with the CPU kernels "
        "(DequantizeLinear of a constant: later)");
  p.Add(Phase::kGraph, MakeFoldQdq(),
        "fold QuantizeLinear/DequantizeLinear pairs into int8 nodes "
        "(pre-quantized models, --int8)");
  p.Add(Phase::kGraph, MakeFoldDequantized(), "evaluate the DequantizeLinear of constants fold_qdq left");
  p.Add(Phase::kGraph, MakeEliminateDeadNodes(), "drop nodes whose outputs nothing uses");
  p.Add(Phase::kGraph, MakeEliminateCommonSubexpressions(),
        "share equal constants (hashed, then compared) and merge nodes computing the same from the same inputs");
  p.Add(Phase::kGraph, MakeFoldPad(),
        "merge a zero constant Pad of the spatial dims into the pads of the Conv/AveragePool (-inf: MaxPool) after it");
  p.Add(Phase::kGraph, MakeFuseConvBatchNorm(), "fold BatchNormalization into the Conv before it");
  p.Add(Phase::kGraph, MakeFuseLayerNorm(),
        "replace layer normalization written out op by op (ReduceMean, Sub, Pow, ..., Div, Mul, Add) by one "
        "LayerNormalization");
  p.Add(Phase::kGraph, MakeFuseGelu(), "replace GELU written out op by op (Div, Erf, Add, Mul, Mul) by one Gelu");
  p.Add(Phase::kGraph, MakeFoldScaleIntoConv(),
        "fold the Mul by a per-channel constant into the weights and bias of the float Conv/Gemm/MatMul before it");
  p.Add(Phase::kGraph, MakeFuseBiasAdd(),
        "fold the Add of a per-channel constant into the bias of the Conv/Gemm/MatMul before it (2-D MatMul: Gemm)");
  p.Add(Phase::kGraph, MakeFoldTranspose(),
        "fold a Transpose of the last two dims of a Gemm's or MatMul's B into transB / loom.trans_b");
  p.Add(Phase::kPrePlacement, MakeSpaceToDepthStem(),
        "run a strided Conv with few input channels (a stem) over a space-to-depth view of its input when the "
        "accelerator is predicted faster that way");
  p.Add(Phase::kPrePlacement, MakeFuseSwish(true),
        "fuse x * Sigmoid(x) (SiLU) into the Conv/Gemm/MatMul producing x when every device that runs that node "
        "runs the fusion, else into one loom.Swish node on the CPU");
  p.Add(Phase::kPrePlacement, MakeFuseActivation(true),
        "fuse an activation into the Conv/Gemm/MatMul/int8 Add before it when "
        "every device that runs that node "
        "runs the fusion (the placer prices them as one)");
  p.Add(Phase::kPostPlacement, MakeFuseConvAdd(),
        "fuse a float32 residual Add into the CPU Conv producing one of its operands (the other one an input, a "
        "constant or computed earlier) when the Conv kernel takes it; an activation after the Add fuses next");
  p.Add(Phase::kPostPlacement, MakeFuseSwish(false),
        "fuse what is left of x * Sigmoid(x) when the anchor's device kernel takes it, else into loom.Swish when "
        "both nodes are on the CPU");
  p.Add(Phase::kPostPlacement, MakeFuseActivation(false),
        "fuse what is left when the anchor's device kernel takes it (the "
        "activation moves to that device)");
  p.Add(Phase::kPostPlacement, MakeFuseElementwiseChain(),
        "run a chain of float32 elementwise CPU nodes (unary ops, Clip, Add/Sub/Mul/Div/Pow/Max/Min by a scalar, a "
        "per-channel or a full-shape operand) as one loom.ElementwiseChain node, block by block in L1");
  p.Add(Phase::kPostPlacement, MakeLayoutNchwc(),
        "run regions of >= 2 float32 CPU Convs (group 1 or depthwise, channels multiples of 8) and the elementwise, "
        "Concat and global pooling nodes between them in the channel-blocked layout NCHW8c (weights reordered at "
        "build time, one conversion per tensor entering or leaving a region)");
  p.Add(Phase::kPostPlacement, MakeFoldChannelScale(),
        "fold a per-channel Mul of a blocked tensor (squeeze-and-excitation) into the 1x1 loom.ConvNchwc reading it, "
        "which scales its weights per run, when Cout < H*W");
  return p;
}

const char* PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kGraph:
      return "graph";
    case Phase::kPrePlacement:
      return "pre-placement";
    case Phase::kPostPlacement:
      return "post-placement";
  }
  return "?";
}

void Pipeline::Add(Phase phase, std::unique_ptr<Pass> pass, std::string what) {
  entries_.push_back({phase, std::move(pass), std::move(what)});
}

Status Pipeline::CheckOptions(const PipelineOptions& options) const {
  for (const std::string& name : options.disabled) {
    const bool known =
        std::any_of(entries_.begin(), entries_.end(), [&](const PipelineEntry& e) { return name == e.pass->name(); });
    if (known) continue;
    std::string list;
    for (const PipelineEntry& e : entries_) list += (list.empty() ? "" : ", ") + std::string(e.pass->name());
    return Status::InvalidArgument("--disable-pass: unknown pass '" + name + "' (passes: " + list + ")");
  }
  return Status::Ok();
}

Status Pipeline::Run(Phase phase, const PipelineOptions& options, PassContext& ctx, ir::Graph& graph,
                     std::vector<std::string>* applied) const {
  RETURN_IF_ERROR(CheckOptions(options));
  for (const PipelineEntry& entry : entries_) {
    const std::string name = entry.pass->name();
    if (entry.phase != phase || options.opt_level < entry.pass->min_opt_level()) continue;
    if (std::find(options.disabled.begin(), options.disabled.end(), name) != options.disabled.end()) continue;
    int changes = 0;
    Status s = entry.pass->Run(graph, ctx, &changes);
    if (!s.ok()) return s.WithContext("pass " + name);
    graph.Compact();
    s = graph.Validate();
    if (!s.ok()) return Status::Internal("pass " + name + " left an invalid graph: " + s.message());
    BuildLog().info("pass {}: {} nodes changed, {} nodes left", name, changes, graph.live_node_count());
    if (changes > 0) applied->push_back(name + ": " + std::to_string(changes) + " nodes");
    if (options.after_pass) RETURN_IF_ERROR(options.after_pass(phase, name, graph));
  }
  return Status::Ok();
}

}  // namespace passes
}  // namespace loom
