// Pins: where a simulation model reads and writes one port of a Verilated
// top, so the models need no particular top (and no Verilator headers).
//
// Verilator keeps a port of 1-8 bits in a uint8_t, 9-16 in a uint16_t, 17-32
// in a uint32_t, 33-64 in a uint64_t and wider ones in a VlWide<words> (an
// array of uint32_t, word 0 lowest). On a little-endian host every one of them
// is the port's value as bytes, lowest first, so a Pin is a byte span: Get and
// Set move up to 64 bits, Bytes() serves wide data buses (64 or 128 bits).
// A testbench binds a top's pins with LOOM_AXI_MASTER_PINS or
// LOOM_AXI_LITE_PINS.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace loom {
namespace hw_sim {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "Pin assumes a little-endian host");

class Pin {
 public:
  Pin() = default;
  template <typename Port>
  Pin(Port& port) : bytes_(reinterpret_cast<uint8_t*>(&port)), size_(sizeof(Port)) {  // NOLINT: implicit
    static_assert(sizeof(Port) == 1 || sizeof(Port) == 2 || sizeof(Port) % 4 == 0, "not a Verilator port");
  }

  // The low 64 bits of the port. The models read and write pins every
  // cycle, so the storage sizes Verilator uses are fixed-size copies (a
  // copy of variable size would be a library call).
  uint64_t Get() const {
    switch (size_) {
      case 1:
        return *bytes_;
      case 2:
        return Load<uint16_t>();
      case 4:
        return Load<uint32_t>();
      default:  // 8, or a VlWide: its low 64 bits
        return Load<uint64_t>();
    }
  }
  bool High() const { return Get() != 0; }
  // Writes value to the port, zero-extended over its whole storage.
  void Set(uint64_t value) const {
    switch (size_) {
      case 1:
        *bytes_ = static_cast<uint8_t>(value);
        return;
      case 2:
        Store(static_cast<uint16_t>(value));
        return;
      case 4:
        Store(static_cast<uint32_t>(value));
        return;
      case 8:
        Store(value);
        return;
      default:
        std::memset(bytes_, 0, size_);
        Store(value);
    }
  }
  uint8_t* Bytes() const { return bytes_; }
  size_t size() const { return size_; }

 private:
  template <typename T>
  T Load() const {
    T value;
    std::memcpy(&value, bytes_, sizeof(T));
    return value;
  }
  template <typename T>
  void Store(T value) const {
    std::memcpy(bytes_, &value, sizeof(T));
  }

  uint8_t* bytes_ = nullptr;
  size_t size_ = 0;
};

// An AXI4 master's ports (one ID, so no ID pins), as seen by a slave model.
struct AxiMasterPins {
  Pin arvalid, arready, araddr, arlen, arsize, arburst;
  Pin rvalid, rready, rdata, rresp, rlast;
  Pin awvalid, awready, awaddr, awlen, awsize, awburst;
  Pin wvalid, wready, wdata, wstrb, wlast;
  Pin bvalid, bready, bresp;
};

// An AXI4-Lite slave's ports, as seen by a master (the driver).
struct AxiLitePins {
  Pin awvalid, awready, awaddr, wvalid, wready, wdata, wstrb, bvalid, bready, bresp;
  Pin arvalid, arready, araddr, rvalid, rready, rdata, rresp;
};

}  // namespace hw_sim
}  // namespace loom

// The pins of `top`'s ports named prefix##arvalid, ... (e.g. prefix m_axi_).
#define LOOM_AXI_MASTER_PINS(top, prefix)                                                          \
  ::loom::hw_sim::AxiMasterPins {                                                                   \
    (top).prefix##arvalid, (top).prefix##arready, (top).prefix##araddr, (top).prefix##arlen,        \
        (top).prefix##arsize, (top).prefix##arburst, (top).prefix##rvalid, (top).prefix##rready,    \
        (top).prefix##rdata, (top).prefix##rresp, (top).prefix##rlast, (top).prefix##awvalid,       \
        (top).prefix##awready, (top).prefix##awaddr, (top).prefix##awlen, (top).prefix##awsize,     \
        (top).prefix##awburst, (top).prefix##wvalid, (top).prefix##wready, (top).prefix##wdata,     \
        (top).prefix##wstrb, (top).prefix##wlast, (top).prefix##bvalid, (top).prefix##bready,       \
        (top).prefix##bresp                                                                         \
  }

// The pins of `top`'s ports named prefix##awvalid, ... (e.g. prefix s_axi_).
#define LOOM_AXI_LITE_PINS(top, prefix)                                                            \
  ::loom::hw_sim::AxiLitePins {                                                                     \
    (top).prefix##awvalid, (top).prefix##awready, (top).prefix##awaddr, (top).prefix##wvalid,       \
        (top).prefix##wready, (top).prefix##wdata, (top).prefix##wstrb, (top).prefix##bvalid,      \
        (top).prefix##bready, (top).prefix##bresp, (top).prefix##arvalid, (top).prefix##arready,    \
        (top).prefix##araddr, (top).prefix##rvalid, (top).prefix##rready, (top).prefix##rdata,      \
        (top).prefix##rresp                                                                         \
  }
