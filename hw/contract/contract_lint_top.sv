// Checks that the contract include (hw/rtl/loom_accel_config.svh) is
// accepted by Verilator (--lint-only -Wall, ctest hw.contract_sv_lint.<config>) and
// yosys (read_verilog -sv; synth) when included, as every RTL module does,
// inside the bodies of two modules of one compilation unit.
`default_nettype none

/* verilator lint_off DECLFILENAME */
module contract_lint_decode (
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire logic [255:0] cmd,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic              is_load_act,
  output logic [15:0]       sram_row
);
  `include "loom_accel_config.svh"

  assign is_load_act = cmd[CMD_OPCODE_LSB +: CMD_OPCODE_W] == OP_LOAD_ACT;
  assign sram_row = cmd[LOAD_ACT_SRAM_ROW_LSB +: LOAD_ACT_SRAM_ROW_W];
endmodule
/* verilator lint_on DECLFILENAME */

module contract_lint_top (
  input  wire logic [255:0] cmd,
  input  wire logic [7:0]   reg_addr,
  output logic              is_load_act,
  output logic [15:0]       sram_row,
  output logic [31:0]       reg_rdata
);
  `include "loom_accel_config.svh"

  contract_lint_decode decode (.cmd(cmd), .is_load_act(is_load_act), .sram_row(sram_row));

  always_comb begin
    case (reg_addr)
      REG_CONFIG_ID: reg_rdata = CONFIG_ID;
      REG_VERSION: reg_rdata = VERSION;
      REG_ERROR: reg_rdata = {24'd0, ERR_BAD_OPCODE};
      default: reg_rdata = N;
    endcase
  end
endmodule

`default_nettype wire
