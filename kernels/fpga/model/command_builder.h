// Building command streams: encode commands into a vector, then copy the
// stream into device memory where fetch reads it. Used by the tests and by
// whatever turns a plan into commands; a field that does not fit its width is
// an error naming the opcode, the field and the value, never a silent wrap.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "kernels/fpga/model/device_memory.h"
#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {

// InvalidArgument: "<OPCODE>: <field> = <value> does not fit its <width> bits".
Status FieldDoesNotFit(contract::Opcode opcode, const contract::Field& field, int64_t value);

// Encodes op (contract::LoadAct, Conv, ...) and appends it to stream.
template <typename Op>
Status AppendCommand(const Op& op, std::vector<contract::Command>* stream) {
  contract::Command command{};
  if (contract::Encode(op, &command)) {
    stream->push_back(command);
    return Status::Ok();
  }
  Status status = Status::Internal("Encode refused a command whose fields all fit");
  Op::ForEachField(op, [&](const contract::Field& field, auto value) {
    if (status.code() == StatusCode::kInternal && !contract::detail::Fits(value, field))
      status = FieldDoesNotFit(Op::kOpcode, field, value);
  });
  return status;
}

// Allocates room for the stream in memory (kCommandBytes-aligned, as fetch
// requires), writes it there little-endian and returns its device address.
Status WriteStream(const std::vector<contract::Command>& stream, DeviceMemory* memory, uint64_t* cmd_addr);

}  // namespace fpga
}  // namespace loom
