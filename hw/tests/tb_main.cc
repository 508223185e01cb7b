// main() of every Verilator testbench: Verilator's own +verilator+ arguments,
// then the testbench's Run().
#include "hw/tests/tb_util.h"

int main(int argc, char** argv) {
  Verilated::commandArgs(argc, argv);
  return loom::hw_tb::Run();
}
