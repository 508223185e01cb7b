// The engine's FPGA kernels: "fpga.Conv", "fpga.Gemm", "fpga.MatMul",
// "fpga.Add" and "fpga.MaxPool" (device kFpga), one class for all.
//
//   building  (KernelSetup::runtime null) Prepare accepts exactly what
//             AccelLayerFromSetup accepts for the FpgaDeviceConfig the node
//             is placed with; the placer asks this.
//   loading   (the engine hands the attached FpgaRuntime) Prepare uploads the
//             launch's command stream and constant image (launch_attrs.h)
//             into device memory once; nothing is packed on the board.
//   running   the first node of a launch flushes the CPU-written ranges,
//             starts the stream with slot 0 at the context's arena and slot 1
//             at the constants, waits (up to FpgaRuntime::launch_timeout_ms),
//             and invalidates what the CPU reads next; nodes that joined the
//             launch do nothing. No allocation.
#pragma once

namespace loom {

class KernelRegistry;

namespace fpga {

void RegisterFpgaKernels(KernelRegistry* registry);

// KernelRegistry::Global()'s kernels followed by the FPGA kernels: what the
// builder places with and what an engine running FPGA plans loads with
// (LoadOptions::registry). Filled on first use.
const KernelRegistry& FpgaKernelRegistry();

}  // namespace fpga
}  // namespace loom
