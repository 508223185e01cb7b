// Test top of the load and store units (ctest hw.load_store): load_unit and
// store_unit on a two-port dma_read_arbiter (port 0 load, port 1 store's
// LOAD_PARAM) into axi_dma_read, the store unit on axi_dma_write, both on
// one AXI4 master (m_axi_*) that the C++ DDR model serves; the input, weight
// and accumulator buffers (sram_sdp, the contract's sizes) with testbench
// ports: writes into all three (multiplexed with the load unit's ports, so
// the testbench must not write while a load runs) and reads of the input
// and weight buffers. acc_busy stands for the compute unit's priority on the
// accumulator read port: while it is high the store unit's reads wait.
// Verilated once, with the pynq_z2 contract; STORE_LANES sets the store
// unit's requant lanes (0: the contract's REQUANT_LANES).
`default_nettype none

module tb_load_store_top (
  clk, rst_n, clear, base,
  load_start, load_cmd, load_busy, load_done, load_error, load_error_code, load_cnt_busy, load_cnt_stall,
  store_start, store_cmd, store_busy, store_done, store_error, store_error_code, store_cnt_busy,
  store_cnt_stall,
  acc_busy, tb_inp_we, tb_wgt_we, tb_acc_we, tb_waddr, tb_wdata, tb_acc_wdata,
  tb_raddr, tb_inp_rdata, tb_wgt_rdata,
  rd_req_error, rd_bus_error, rd_bytes, rd_idle, wr_req_error, wr_bus_error, wr_bytes, wr_idle,
  m_axi_arvalid, m_axi_arready, m_axi_araddr, m_axi_arlen, m_axi_arsize, m_axi_arburst, m_axi_arcache,
  m_axi_arprot, m_axi_rvalid, m_axi_rready, m_axi_rdata, m_axi_rresp, m_axi_rlast,
  m_axi_awvalid, m_axi_awready, m_axi_awaddr, m_axi_awlen, m_axi_awsize, m_axi_awburst, m_axi_awcache,
  m_axi_awprot, m_axi_wvalid, m_axi_wready, m_axi_wdata, m_axi_wstrb, m_axi_wlast,
  m_axi_bvalid, m_axi_bready, m_axi_bresp
);
  `include "loom_accel_config.svh"
  parameter int STORE_LANES = 0;

  localparam int D = AXI_DATA_BITS;
  localparam int INP_AW = $clog2(INP_ROWS);
  localparam int WGT_AW = $clog2(WGT_ROWS);
  localparam int ACC_AW = $clog2(ACC_ROWS);
  localparam int TB_AW = 16;

  input  wire logic                     clk;
  input  wire logic                     rst_n;
  input  wire logic                     clear;  // ap_start: units' counters, parameter buffer, DMA status
  input  wire logic [BASE_SLOTS*64-1:0] base;
  input  wire logic                     load_start;
  input  wire logic [CMD_BITS-1:0]      load_cmd;
  output logic                          load_busy;
  output logic                          load_done;
  output logic                          load_error;
  output logic      [7:0]               load_error_code;
  output logic      [63:0]              load_cnt_busy;
  output logic      [63:0]              load_cnt_stall;
  input  wire logic                     store_start;
  input  wire logic [CMD_BITS-1:0]      store_cmd;
  output logic                          store_busy;
  output logic                          store_done;
  output logic                          store_error;
  output logic      [7:0]               store_error_code;
  output logic      [63:0]              store_cnt_busy;
  output logic      [63:0]              store_cnt_stall;
  input  wire logic                     acc_busy;
  input  wire logic                     tb_inp_we;
  input  wire logic                     tb_wgt_we;
  input  wire logic                     tb_acc_we;
  input  wire logic [TB_AW-1:0]         tb_waddr;
  input  wire logic [N*8-1:0]           tb_wdata;
  input  wire logic [N*32-1:0]          tb_acc_wdata;
  input  wire logic [TB_AW-1:0]         tb_raddr;      // input and weight buffers, data next cycle
  output logic      [N*8-1:0]           tb_inp_rdata;
  output logic      [N*8-1:0]           tb_wgt_rdata;
  output logic                          rd_req_error;
  output logic                          rd_bus_error;
  output logic      [63:0]              rd_bytes;
  output logic                          rd_idle;
  output logic                          wr_req_error;
  output logic                          wr_bus_error;
  output logic      [63:0]              wr_bytes;
  output logic                          wr_idle;
  output logic                          m_axi_arvalid;
  input  wire logic                     m_axi_arready;
  output logic      [63:0]              m_axi_araddr;
  output logic      [7:0]               m_axi_arlen;
  output logic      [2:0]               m_axi_arsize;
  output logic      [1:0]               m_axi_arburst;
  output logic      [3:0]               m_axi_arcache;
  output logic      [2:0]               m_axi_arprot;
  input  wire logic                     m_axi_rvalid;
  output logic                          m_axi_rready;
  input  wire logic [D-1:0]             m_axi_rdata;
  input  wire logic [1:0]               m_axi_rresp;
  input  wire logic                     m_axi_rlast;
  output logic                          m_axi_awvalid;
  input  wire logic                     m_axi_awready;
  output logic      [63:0]              m_axi_awaddr;
  output logic      [7:0]               m_axi_awlen;
  output logic      [2:0]               m_axi_awsize;
  output logic      [1:0]               m_axi_awburst;
  output logic      [3:0]               m_axi_awcache;
  output logic      [2:0]               m_axi_awprot;
  output logic                          m_axi_wvalid;
  input  wire logic                     m_axi_wready;
  output logic      [D-1:0]             m_axi_wdata;
  output logic      [D/8-1:0]           m_axi_wstrb;
  output logic                          m_axi_wlast;
  input  wire logic                     m_axi_bvalid;
  output logic                          m_axi_bready;
  input  wire logic [1:0]               m_axi_bresp;

  // ---------------------------------------------------------------- units
  logic [1:0]           rd_req_valid, rd_req_ready, rd_rsp_valid, rd_rsp_ready;
  logic [2*64-1:0]      rd_req_addr;
  logic [2*32-1:0]      rd_req_bytes;
  logic [D-1:0]         rd_rsp_data;
  logic                 rd_rsp_last;
  logic                 inp_we, wgt_we, acc_re;
  logic [INP_AW-1:0]    inp_waddr;
  logic [WGT_AW-1:0]    wgt_waddr;
  logic [ACC_AW-1:0]    acc_raddr;
  logic [N*8-1:0]       inp_wdata, wgt_wdata;
  logic [N*32-1:0]      acc_rdata;
  logic                 wr_req_valid, wr_req_ready, wr_req_done, wr_data_valid, wr_data_ready;
  logic [63:0]          wr_req_addr;
  logic [31:0]          wr_req_bytes;
  logic [D-1:0]         wr_data;

  load_unit u_load (
    .clk(clk), .rst_n(rst_n), .clear(clear),
    .start(load_start), .cmd(load_cmd), .busy(load_busy), .done(load_done), .error(load_error),
    .error_code(load_error_code), .base(base),
    .rd_req_valid(rd_req_valid[0]), .rd_req_ready(rd_req_ready[0]), .rd_req_addr(rd_req_addr[0 +: 64]),
    .rd_req_bytes(rd_req_bytes[0 +: 32]), .rd_rsp_valid(rd_rsp_valid[0]), .rd_rsp_ready(rd_rsp_ready[0]),
    .rd_rsp_data(rd_rsp_data), .rd_rsp_last(rd_rsp_last), .rd_bus_error(rd_bus_error),
    .inp_we(inp_we), .inp_waddr(inp_waddr), .inp_wdata(inp_wdata),
    .wgt_we(wgt_we), .wgt_waddr(wgt_waddr), .wgt_wdata(wgt_wdata),
    .cnt_busy(load_cnt_busy), .cnt_stall(load_cnt_stall));

  store_unit #(.LANES(STORE_LANES > 0 ? STORE_LANES : REQUANT_LANES)) u_store (
    .clk(clk), .rst_n(rst_n), .clear(clear),
    .start(store_start), .cmd(store_cmd), .busy(store_busy), .done(store_done), .error(store_error),
    .error_code(store_error_code), .base(base),
    .rd_req_valid(rd_req_valid[1]), .rd_req_ready(rd_req_ready[1]), .rd_req_addr(rd_req_addr[64 +: 64]),
    .rd_req_bytes(rd_req_bytes[32 +: 32]), .rd_rsp_valid(rd_rsp_valid[1]), .rd_rsp_ready(rd_rsp_ready[1]),
    .rd_rsp_data(rd_rsp_data), .rd_rsp_last(rd_rsp_last), .rd_bus_error(rd_bus_error),
    .acc_re(acc_re), .acc_ready(!acc_busy), .acc_raddr(acc_raddr), .acc_rdata(acc_rdata),
    .wr_req_valid(wr_req_valid), .wr_req_ready(wr_req_ready), .wr_req_addr(wr_req_addr),
    .wr_req_bytes(wr_req_bytes), .wr_req_done(wr_req_done),
    .wr_data_valid(wr_data_valid), .wr_data_ready(wr_data_ready), .wr_data(wr_data),
    .wr_bus_error(wr_bus_error), .cnt_busy(store_cnt_busy), .cnt_stall(store_cnt_stall));

  // ---------------------------------------------------------------- buffers
  sram_sdp #(.WIDTH(N * 8), .DEPTH(INP_ROWS)) u_inp (
    .clk(clk), .we(inp_we || tb_inp_we), .waddr(tb_inp_we ? tb_waddr[INP_AW-1:0] : inp_waddr),
    .wdata(tb_inp_we ? tb_wdata : inp_wdata), .re(1'b1), .raddr(tb_raddr[INP_AW-1:0]), .rdata(tb_inp_rdata));
  sram_sdp #(.WIDTH(N * 8), .DEPTH(WGT_ROWS)) u_wgt (
    .clk(clk), .we(wgt_we || tb_wgt_we), .waddr(tb_wgt_we ? tb_waddr[WGT_AW-1:0] : wgt_waddr),
    .wdata(tb_wgt_we ? tb_wdata : wgt_wdata), .re(1'b1), .raddr(tb_raddr[WGT_AW-1:0]), .rdata(tb_wgt_rdata));
  // While acc_busy is high the "compute unit" reads row tb_raddr, which
  // changes the read data under the store unit.
  sram_sdp #(.WIDTH(N * 32), .DEPTH(ACC_ROWS)) u_acc (
    .clk(clk), .we(tb_acc_we), .waddr(tb_waddr[ACC_AW-1:0]), .wdata(tb_acc_wdata),
    .re(acc_re || acc_busy), .raddr(acc_busy ? tb_raddr[ACC_AW-1:0] : acc_raddr), .rdata(acc_rdata));

  /* verilator lint_off UNUSEDSIGNAL */
  wire unused_tb = &{1'b0, tb_waddr, tb_raddr};
  /* verilator lint_on UNUSEDSIGNAL */

  // ---------------------------------------------------------------- DMA
  logic         dma_req_valid, dma_req_ready, dma_data_valid, dma_data_ready, dma_data_last;
  logic [63:0]  dma_req_addr;
  logic [31:0]  dma_req_bytes;
  logic [D-1:0] dma_data;

  dma_read_arbiter #(.K(2), .DATA_BITS(D)) u_arbiter (
    .clk(clk), .rst_n(rst_n),
    .req_valid(rd_req_valid), .req_ready(rd_req_ready), .req_addr(rd_req_addr), .req_bytes(rd_req_bytes),
    .rsp_valid(rd_rsp_valid), .rsp_ready(rd_rsp_ready), .rsp_data(rd_rsp_data), .rsp_last(rd_rsp_last),
    .dma_req_valid(dma_req_valid), .dma_req_ready(dma_req_ready), .dma_req_addr(dma_req_addr),
    .dma_req_bytes(dma_req_bytes), .dma_data_valid(dma_data_valid), .dma_data_ready(dma_data_ready),
    .dma_data(dma_data), .dma_data_last(dma_data_last));

  axi_dma_read #(.DATA_BITS(D)) u_reader (
    .clk(clk), .rst_n(rst_n), .clear(clear),
    .req_valid(dma_req_valid), .req_ready(dma_req_ready), .req_addr(dma_req_addr), .req_bytes(dma_req_bytes),
    .req_error(rd_req_error), .data_valid(dma_data_valid), .data_ready(dma_data_ready), .data(dma_data),
    .data_last(dma_data_last), .bus_error(rd_bus_error), .bytes_read(rd_bytes), .idle(rd_idle),
    .m_axi_arvalid(m_axi_arvalid), .m_axi_arready(m_axi_arready), .m_axi_araddr(m_axi_araddr),
    .m_axi_arlen(m_axi_arlen), .m_axi_arsize(m_axi_arsize), .m_axi_arburst(m_axi_arburst),
    .m_axi_arcache(m_axi_arcache), .m_axi_arprot(m_axi_arprot), .m_axi_rvalid(m_axi_rvalid),
    .m_axi_rready(m_axi_rready), .m_axi_rdata(m_axi_rdata), .m_axi_rresp(m_axi_rresp),
    .m_axi_rlast(m_axi_rlast));

  axi_dma_write #(.DATA_BITS(D)) u_writer (
    .clk(clk), .rst_n(rst_n), .clear(clear),
    .req_valid(wr_req_valid), .req_ready(wr_req_ready), .req_addr(wr_req_addr), .req_bytes(wr_req_bytes),
    .req_error(wr_req_error), .req_done(wr_req_done),
    .wdata_valid(wr_data_valid), .wdata_ready(wr_data_ready), .wdata(wr_data),
    .bus_error(wr_bus_error), .bytes_written(wr_bytes), .idle(wr_idle),
    .m_axi_awvalid(m_axi_awvalid), .m_axi_awready(m_axi_awready), .m_axi_awaddr(m_axi_awaddr),
    .m_axi_awlen(m_axi_awlen), .m_axi_awsize(m_axi_awsize), .m_axi_awburst(m_axi_awburst),
    .m_axi_awcache(m_axi_awcache), .m_axi_awprot(m_axi_awprot), .m_axi_wvalid(m_axi_wvalid),
    .m_axi_wready(m_axi_wready), .m_axi_wdata(m_axi_wdata), .m_axi_wstrb(m_axi_wstrb),
    .m_axi_wlast(m_axi_wlast), .m_axi_bvalid(m_axi_bvalid), .m_axi_bready(m_axi_bready),
    .m_axi_bresp(m_axi_bresp));
endmodule

`default_nettype wire
