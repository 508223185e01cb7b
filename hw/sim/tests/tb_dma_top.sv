// Test top of the accelerator's memory system (ctest hw.axi_dma): three read
// clients through dma_read_arbiter into axi_dma_read, one write client on
// axi_dma_write, both on one AXI4 master (m_axi_*) that the C++ DDR model
// serves. Verilated once, with DATA_BITS 64 (pynq_z2).
`default_nettype none

module tb_dma_top #(
  parameter int DATA_BITS = 64,
  parameter int K = 3,
  parameter int MAX_OUTSTANDING = 4
) (
  input  wire logic                   clk,
  input  wire logic                   rst_n,
  input  wire logic                   clear,
  // read clients (dma_read_arbiter's ports)
  input  wire logic [K-1:0]           rd_req_valid,
  output logic      [K-1:0]           rd_req_ready,
  input  wire logic [K*64-1:0]        rd_req_addr,
  input  wire logic [K*32-1:0]        rd_req_bytes,
  output logic      [K-1:0]           rd_rsp_valid,
  input  wire logic [K-1:0]           rd_rsp_ready,
  output logic      [DATA_BITS-1:0]   rd_rsp_data,
  output logic                        rd_rsp_last,
  output logic                        rd_req_error,
  output logic                        rd_bus_error,
  output logic      [63:0]            rd_bytes,
  output logic                        rd_idle,
  // write client
  input  wire logic                   wr_req_valid,
  output logic                        wr_req_ready,
  input  wire logic [63:0]            wr_req_addr,
  input  wire logic [31:0]            wr_req_bytes,
  output logic                        wr_req_done,
  input  wire logic                   wr_data_valid,
  output logic                        wr_data_ready,
  input  wire logic [DATA_BITS-1:0]   wr_data,
  output logic                        wr_req_error,
  output logic                        wr_bus_error,
  output logic      [63:0]            wr_bytes,
  output logic                        wr_idle,
  // AXI4 master
  output logic                        m_axi_arvalid,
  input  wire logic                   m_axi_arready,
  output logic      [63:0]            m_axi_araddr,
  output logic      [7:0]             m_axi_arlen,
  output logic      [2:0]             m_axi_arsize,
  output logic      [1:0]             m_axi_arburst,
  output logic      [3:0]             m_axi_arcache,
  output logic      [2:0]             m_axi_arprot,
  input  wire logic                   m_axi_rvalid,
  output logic                        m_axi_rready,
  input  wire logic [DATA_BITS-1:0]   m_axi_rdata,
  input  wire logic [1:0]             m_axi_rresp,
  input  wire logic                   m_axi_rlast,
  output logic                        m_axi_awvalid,
  input  wire logic                   m_axi_awready,
  output logic      [63:0]            m_axi_awaddr,
  output logic      [7:0]             m_axi_awlen,
  output logic      [2:0]             m_axi_awsize,
  output logic      [1:0]             m_axi_awburst,
  output logic      [3:0]             m_axi_awcache,
  output logic      [2:0]             m_axi_awprot,
  output logic                        m_axi_wvalid,
  input  wire logic                   m_axi_wready,
  output logic      [DATA_BITS-1:0]   m_axi_wdata,
  output logic      [DATA_BITS/8-1:0] m_axi_wstrb,
  output logic                        m_axi_wlast,
  input  wire logic                   m_axi_bvalid,
  output logic                        m_axi_bready,
  input  wire logic [1:0]             m_axi_bresp
);
  logic                 dma_req_valid, dma_req_ready, dma_data_valid, dma_data_ready, dma_data_last;
  logic [63:0]          dma_req_addr;
  logic [31:0]          dma_req_bytes;
  logic [DATA_BITS-1:0] dma_data;

  dma_read_arbiter #(.K(K), .DATA_BITS(DATA_BITS)) arbiter (
    .clk, .rst_n,
    .req_valid(rd_req_valid), .req_ready(rd_req_ready), .req_addr(rd_req_addr), .req_bytes(rd_req_bytes),
    .rsp_valid(rd_rsp_valid), .rsp_ready(rd_rsp_ready), .rsp_data(rd_rsp_data), .rsp_last(rd_rsp_last),
    .dma_req_valid, .dma_req_ready, .dma_req_addr, .dma_req_bytes,
    .dma_data_valid, .dma_data_ready, .dma_data, .dma_data_last);

  axi_dma_read #(.DATA_BITS(DATA_BITS), .MAX_OUTSTANDING(MAX_OUTSTANDING)) reader (
    .clk, .rst_n, .clear,
    .req_valid(dma_req_valid), .req_ready(dma_req_ready), .req_addr(dma_req_addr),
    .req_bytes(dma_req_bytes), .req_error(rd_req_error),
    .data_valid(dma_data_valid), .data_ready(dma_data_ready), .data(dma_data), .data_last(dma_data_last),
    .bus_error(rd_bus_error), .bytes_read(rd_bytes), .idle(rd_idle),
    .m_axi_arvalid, .m_axi_arready, .m_axi_araddr, .m_axi_arlen, .m_axi_arsize, .m_axi_arburst,
    .m_axi_arcache, .m_axi_arprot,
    .m_axi_rvalid, .m_axi_rready, .m_axi_rdata, .m_axi_rresp, .m_axi_rlast);

  axi_dma_write #(.DATA_BITS(DATA_BITS), .MAX_OUTSTANDING(MAX_OUTSTANDING)) writer (
    .clk, .rst_n, .clear,
    .req_valid(wr_req_valid), .req_ready(wr_req_ready), .req_addr(wr_req_addr), .req_bytes(wr_req_bytes),
    .req_error(wr_req_error), .req_done(wr_req_done),
    .wdata_valid(wr_data_valid), .wdata_ready(wr_data_ready), .wdata(wr_data),
    .bus_error(wr_bus_error), .bytes_written(wr_bytes), .idle(wr_idle),
    .m_axi_awvalid, .m_axi_awready, .m_axi_awaddr, .m_axi_awlen, .m_axi_awsize, .m_axi_awburst,
    .m_axi_awcache, .m_axi_awprot,
    .m_axi_wvalid, .m_axi_wready, .m_axi_wdata, .m_axi_wstrb, .m_axi_wlast,
    .m_axi_bvalid, .m_axi_bready, .m_axi_bresp);
endmodule

`default_nettype wire
