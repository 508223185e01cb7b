// The Verilated top of hw.compute_unit (tb_compute_unit.cc): compute_unit with
// the three buffers it reads and writes (sram_sdp, sizes from the contract
// include) and testbench ports around them:
//   tb_inp_*, tb_wgt_*  the input and weight buffers' write ports (the unit
//                       never writes them)
//   tb_acc_w*, tb_acc_r* the accumulators' ports, which take over the unit's
//                       while tb_acc_we / tb_acc_re are high (the testbench
//                       uses them only while the unit is idle); acc_rdata is
//                       the read data of either
//   cu_*                the unit's own port enables, addresses and write data,
//                       for the testbench's ownership and write checks
`default_nettype none

module tb_compute_top (
  clk, rst_n, start, cmd, busy, done, error, error_code, cnt_busy, cnt_macs,
  tb_inp_we, tb_inp_waddr, tb_inp_wdata, tb_wgt_we, tb_wgt_waddr, tb_wgt_wdata,
  tb_acc_we, tb_acc_waddr, tb_acc_wdata, tb_acc_re, tb_acc_raddr, acc_rdata,
  cu_inp_re, cu_wgt_re, cu_acc_re, cu_acc_we, cu_acc_waddr
);
  `include "loom_accel_config.svh"
  parameter int DSP_ROWS = 12;
  localparam int INP_AW = $clog2(INP_ROWS);
  localparam int WGT_AW = $clog2(WGT_ROWS);
  localparam int ACC_AW = $clog2(ACC_ROWS);

  input  wire logic                clk;
  input  wire logic                rst_n;
  input  wire logic                start;
  input  wire logic [CMD_BITS-1:0] cmd;
  output logic                     busy, done, error;
  output logic      [7:0]          error_code;
  output logic      [63:0]         cnt_busy, cnt_macs;
  input  wire logic                tb_inp_we;
  input  wire logic [INP_AW-1:0]   tb_inp_waddr;
  input  wire logic [N*8-1:0]      tb_inp_wdata;
  input  wire logic                tb_wgt_we;
  input  wire logic [WGT_AW-1:0]   tb_wgt_waddr;
  input  wire logic [N*8-1:0]      tb_wgt_wdata;
  input  wire logic                tb_acc_we;
  input  wire logic [ACC_AW-1:0]   tb_acc_waddr;
  input  wire logic [N*32-1:0]     tb_acc_wdata;
  input  wire logic                tb_acc_re;
  input  wire logic [ACC_AW-1:0]   tb_acc_raddr;
  output logic      [N*32-1:0]     acc_rdata;
  output logic                     cu_inp_re, cu_wgt_re, cu_acc_re, cu_acc_we;
  output logic      [ACC_AW-1:0]   cu_acc_waddr;

  logic [INP_AW-1:0] inp_raddr;
  logic [WGT_AW-1:0] wgt_raddr;
  logic [ACC_AW-1:0] acc_raddr;
  logic [N*8-1:0] inp_rdata, wgt_rdata;
  logic [N*32-1:0] cu_acc_wdata;

  compute_unit #(.DSP_ROWS(DSP_ROWS)) u_cu (
    .clk(clk), .rst_n(rst_n), .start(start), .cmd(cmd), .busy(busy), .done(done), .error(error),
    .error_code(error_code),
    .inp_re(cu_inp_re), .inp_raddr(inp_raddr), .inp_rdata(inp_rdata),
    .wgt_re(cu_wgt_re), .wgt_raddr(wgt_raddr), .wgt_rdata(wgt_rdata),
    .acc_re(cu_acc_re), .acc_raddr(acc_raddr), .acc_rdata(acc_rdata),
    .acc_we(cu_acc_we), .acc_waddr(cu_acc_waddr), .acc_wdata(cu_acc_wdata),
    .cnt_busy(cnt_busy), .cnt_macs(cnt_macs));

  sram_sdp #(.WIDTH(N * 8), .DEPTH(INP_ROWS)) u_inp (
    .clk(clk), .we(tb_inp_we), .waddr(tb_inp_waddr), .wdata(tb_inp_wdata),
    .re(cu_inp_re), .raddr(inp_raddr), .rdata(inp_rdata));
  sram_sdp #(.WIDTH(N * 8), .DEPTH(WGT_ROWS)) u_wgt (
    .clk(clk), .we(tb_wgt_we), .waddr(tb_wgt_waddr), .wdata(tb_wgt_wdata),
    .re(cu_wgt_re), .raddr(wgt_raddr), .rdata(wgt_rdata));
  sram_sdp #(.WIDTH(N * 32), .DEPTH(ACC_ROWS)) u_acc (
    .clk(clk),
    .we(tb_acc_we || cu_acc_we), .waddr(tb_acc_we ? tb_acc_waddr : cu_acc_waddr),
    .wdata(tb_acc_we ? tb_acc_wdata : cu_acc_wdata),
    .re(tb_acc_re || cu_acc_re), .raddr(tb_acc_re ? tb_acc_raddr : acc_raddr), .rdata(acc_rdata));
endmodule

`default_nettype wire
