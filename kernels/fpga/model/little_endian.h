// Byte order of everything the accelerator reads or writes in DRAM: integers
// are little-endian and a command is its four 64-bit words, word 0 first
// (accel.json: bit k of a command is bit k % 64 of word k / 64). Spelled out
// byte by byte so the model means the same on any host.
#pragma once

#include <cstddef>
#include <cstdint>

#include "loom/fpga/accel_contract.h"

namespace loom {
namespace fpga {

inline uint64_t LoadLe(const uint8_t* bytes, int count) {
  uint64_t v = 0;
  for (int i = count - 1; i >= 0; --i) v = (v << 8) | bytes[i];
  return v;
}

inline void StoreLe(uint64_t v, int count, uint8_t* bytes) {
  for (int i = 0; i < count; ++i, v >>= 8) bytes[i] = static_cast<uint8_t>(v);
}

inline int32_t LoadLeInt32(const uint8_t* bytes) {
  return static_cast<int32_t>(static_cast<uint32_t>(LoadLe(bytes, 4)));
}
inline void StoreLeInt32(int32_t v, uint8_t* bytes) { StoreLe(static_cast<uint32_t>(v), 4, bytes); }

// contract::kCommandBytes bytes <-> one command.
inline contract::Command CommandFromBytes(const uint8_t* bytes) {
  contract::Command command{};
  for (size_t w = 0; w < command.size(); ++w) command[w] = LoadLe(bytes + 8 * w, 8);
  return command;
}

inline void CommandToBytes(const contract::Command& command, uint8_t* bytes) {
  for (size_t w = 0; w < command.size(); ++w) StoreLe(command[w], 8, bytes + 8 * w);
}

}  // namespace fpga
}  // namespace loom
