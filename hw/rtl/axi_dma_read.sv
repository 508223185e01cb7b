// AXI4 read master: (address, bytes) requests in, the bytes out as a stream of
// full-width beats, in request order, with data_last on the last beat of
// each request.
//
//   AR        axi_burst_issue splits each request into INCR bursts of at most
//             16 beats that never cross 4 KB and issues them while fewer than
//             MAX_OUTSTANDING are in flight (from the AR handshake until the
//             RLAST beat is taken); see there for the alignment rules and the
//             sticky req_error of a refused request. It also says whether the
//             burst on R is its request's last, which places data_last.
//   R         one ID, so beats arrive in order. They pass a two-entry buffer
//             whose not-full flag is RREADY: RREADY is a register output, and
//             back-pressure on data_ready reaches RREADY one cycle later,
//             without a bubble at full rate.
// RRESP SLVERR or DECERR raises the sticky bus_error (the beat is still
// delivered). bytes_read counts the bytes taken on R. clear (a pulse, e.g. at
// ap_start) lowers bus_error and req_error and zeroes bytes_read.
`default_nettype none

module axi_dma_read #(
  parameter int DATA_BITS = 64,       // 64 (pynq_z2) or 128 (kv260)
  parameter int ADDR_BITS = 64,
  parameter int MAX_OUTSTANDING = 4   // bursts in flight, >= 1
) (
  input  wire logic                 clk,
  input  wire logic                 rst_n,  // synchronous
  input  wire logic                 clear,
  // requests
  input  wire logic                 req_valid,
  output logic                      req_ready,
  input  wire logic [ADDR_BITS-1:0] req_addr,
  input  wire logic [31:0]          req_bytes,
  output logic                      req_error,   // sticky: a misaligned request
  // read data
  output logic                      data_valid,
  input  wire logic                 data_ready,
  output logic      [DATA_BITS-1:0] data,
  output logic                      data_last,   // last beat of a request
  // status
  output logic                      bus_error,   // sticky: RRESP SLVERR/DECERR
  output logic      [63:0]          bytes_read,
  output logic                      idle,        // nothing requested or in flight
  // AXI4 master, read channels (ID 0)
  output logic                      m_axi_arvalid,
  input  wire logic                 m_axi_arready,
  output logic      [ADDR_BITS-1:0] m_axi_araddr,
  output logic      [7:0]           m_axi_arlen,
  output logic      [2:0]           m_axi_arsize,
  output logic      [1:0]           m_axi_arburst,
  output logic      [3:0]           m_axi_arcache,
  output logic      [2:0]           m_axi_arprot,
  input  wire logic                 m_axi_rvalid,
  output logic                      m_axi_rready,
  input  wire logic [DATA_BITS-1:0] m_axi_rdata,
  input  wire logic [1:0]           m_axi_rresp,
  input  wire logic                 m_axi_rlast
);
  localparam int BEAT_BYTES = DATA_BITS / 8;

  logic       r_fire, last_burst, issue_idle;
  logic [1:0] skid_count;

  axi_burst_issue #(.DATA_BITS(DATA_BITS), .ADDR_BITS(ADDR_BITS), .MAX_OUTSTANDING(MAX_OUTSTANDING)) issue (
    .clk, .rst_n, .clear,
    .req_valid, .req_ready, .req_addr, .req_bytes, .req_error,
    .ax_valid(m_axi_arvalid), .ax_ready(m_axi_arready), .ax_addr(m_axi_araddr), .ax_len(m_axi_arlen),
    .ax_size(m_axi_arsize), .ax_burst(m_axi_arburst), .ax_cache(m_axi_arcache), .ax_prot(m_axi_arprot),
    .done(r_fire && m_axi_rlast), .head_last(last_burst), .idle(issue_idle));

  assign r_fire = m_axi_rvalid && m_axi_rready;

  fifo #(.WIDTH(DATA_BITS + 1), .DEPTH(2)) skid (
    .clk, .rst_n,
    .in_valid(m_axi_rvalid), .in_ready(m_axi_rready),
    .in_data({m_axi_rlast && last_burst, m_axi_rdata}),
    .out_valid(data_valid), .out_ready(data_ready), .out_data({data_last, data}),
    .count(skid_count));

  assign idle = issue_idle && skid_count == '0;

  always_ff @(posedge clk) begin
    if (!rst_n || clear) begin
      bus_error <= 1'b0;
      bytes_read <= '0;
    end else if (r_fire) begin
      if (m_axi_rresp >= 2'b10) bus_error <= 1'b1;
      bytes_read <= bytes_read + 64'(BEAT_BYTES);
    end
  end
endmodule

`default_nettype wire
