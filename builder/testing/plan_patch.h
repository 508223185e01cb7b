// Tampered plans for fault tests: a plan whose accelerator command stream
// has one command changed, re-sealed so that it still passes the checksums
// and only the change is wrong.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "common/checksum.h"
#include "kernels/fpga/kernels/launch_attrs.h"
#include "kernels/fpga/model/little_endian.h"
#include "loom/fpga/accel_contract.h"
#include "schemas/plan_codec.h"
#include "schemas/plan_generated.h"

namespace loom {
namespace testing {

// The plan with the first `Op` command of its first launch's stream changed
// by `patch`; *index is that command's. The stream is a uint8 constant (the
// launching node's next-to-last input, launch_attrs.h), so its bytes sit in
// the constants section at the tensor's offset: patched there, the
// constant's own checksum and the section's copy in the metadata updated,
// then the plan is sealed again. Rebuilding the graph could not make a bad
// stream, and the engine API does not expose constants.
template <typename Op>
std::vector<uint8_t> PatchFirstCommand(const std::vector<uint8_t>& plan_bytes,
                                       const std::function<void(const plan::Plan&, Op*)>& patch, uint32_t* index) {
  plan::FileHeader h;
  std::memcpy(static_cast<void*>(&h), plan_bytes.data(), sizeof(h));
  const plan::Plan& p = *plan::GetPlan(plan_bytes.data() + h.metadata_offset());
  std::vector<uint8_t> constants(plan_bytes.begin() + h.constants_offset(),
                                 plan_bytes.begin() + h.constants_offset() + h.constants_bytes());
  const plan::Tensor* stream = nullptr;
  for (const plan::Node* node : *p.nodes()) {
    for (const plan::Attribute* a : *node->attributes()) {
      if (stream == nullptr && a->name()->str() == fpga::kLaunchNodesAttr && a->i() > 0)
        stream = p.tensors()->Get(node->inputs()->Get(node->inputs()->size() - fpga::kLaunchInputs));
    }
  }
  EXPECT_NE(stream, nullptr);
  if (stream == nullptr) return {};
  EXPECT_EQ(stream->storage(), plan::Storage::CONSTANT);
  uint8_t* commands = constants.data() + stream->offset();
  for (*index = 0; *index < stream->size_bytes() / fpga::contract::kCommandBytes; ++*index) {
    uint8_t* bytes = commands + *index * fpga::contract::kCommandBytes;
    Op op;
    if (!fpga::contract::Decode(fpga::CommandFromBytes(bytes), &op)) continue;
    patch(p, &op);
    fpga::contract::Command command;
    EXPECT_TRUE(fpga::contract::Encode(op, &command));
    fpga::CommandToBytes(command, bytes);
    std::vector<uint8_t> metadata(plan_bytes.begin() + h.metadata_offset(),
                                  plan_bytes.begin() + h.metadata_offset() + h.metadata_bytes());
    plan::Plan* mutable_plan = plan::GetMutablePlan(metadata.data());
    if (p.constant_checksums()) {
      for (flatbuffers::uoffset_t t = 0; t < p.tensors()->size(); ++t) {
        if (p.tensors()->Get(t) != stream) continue;
        EXPECT_TRUE(mutable_plan->mutable_tensors()->GetMutableObject(t)->mutate_checksum(
            Checksum64x8(commands, stream->size_bytes())));
      }
      EXPECT_TRUE(mutable_plan->mutate_constants_checksum(Checksum64x8(constants.data(), constants.size())));
    }
    return plan_codec::SealPlan(metadata.data(), metadata.size(), constants.data(), constants.size());
  }
  ADD_FAILURE() << "no " << fpga::contract::OpcodeName(Op::kOpcode) << " in the launch's command stream";
  return {};
}

}  // namespace testing
}  // namespace loom
