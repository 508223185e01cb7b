#include "kernels/fpga/model/command_builder.h"

#include "kernels/fpga/model/little_endian.h"

namespace loom {
namespace fpga {

Status FieldDoesNotFit(contract::Opcode opcode, const contract::Field& field, int64_t value) {
  return Status::InvalidArgument(std::string(contract::OpcodeName(opcode)) + ": " + field.name + " = " +
                                 std::to_string(value) + " does not fit its " + std::to_string(field.width) +
                                 (field.is_signed ? " signed bits" : " bits"));
}

Status WriteStream(const std::vector<contract::Command>& stream, DeviceMemory* memory, uint64_t* cmd_addr) {
  std::vector<uint8_t> bytes(stream.size() * contract::kCommandBytes);
  for (size_t i = 0; i < stream.size(); ++i) CommandToBytes(stream[i], &bytes[i * contract::kCommandBytes]);
  uint64_t addr = 0;
  RETURN_IF_ERROR(memory->Allocate(bytes.size(), contract::kCommandBytes, &addr));
  RETURN_IF_ERROR(memory->Write(addr, bytes.data(), bytes.size()));
  *cmd_addr = addr;
  return Status::Ok();
}

}  // namespace fpga
}  // namespace loom
