// AXI4 write master: (address, bytes) requests plus a stream of full-width
// data beats in, INCR bursts out; req_done pulses in the cycle after the last
// B response of a request arrives (the store unit waits for it before the
// accelerator may raise ap_done, so the data is in DRAM when the host sees
// done).
//
//   AW        axi_burst_issue splits requests into bursts (at most 16 beats,
//             never across 4 KB; alignment rules and the sticky req_error
//             there) and issues them while fewer than MAX_OUTSTANDING wait for
//             their B; it says whether the oldest is its request's last. Each
//             AW handshake also queues the burst's length for the W channel,
//             so W beats follow their AW (never before it).
//   W         wdata passes a two-entry buffer (wdata_ready is its not-full
//             flag, a register output); WVALID needs a queued burst; WLAST on
//             the burst's last beat; WSTRB all ones.
//   B         always ready; in order (one ID). BRESP SLVERR or DECERR raises
//             the sticky bus_error.
// bytes_written counts the bytes taken on W. clear (a pulse, e.g. at ap_start)
// lowers bus_error and req_error and zeroes bytes_written.
`default_nettype none

module axi_dma_write #(
  parameter int DATA_BITS = 64,       // 64 (pynq_z2) or 128 (kv260)
  parameter int ADDR_BITS = 64,
  parameter int MAX_OUTSTANDING = 4   // bursts awaiting B, >= 1
) (
  input  wire logic                   clk,
  input  wire logic                   rst_n,  // synchronous
  input  wire logic                   clear,
  // requests
  input  wire logic                   req_valid,
  output logic                        req_ready,
  input  wire logic [ADDR_BITS-1:0]   req_addr,
  input  wire logic [31:0]            req_bytes,
  output logic                        req_error,     // sticky: a misaligned request
  output logic                        req_done,      // pulse: a request's last B arrived
  // write data, req_bytes / (DATA_BITS / 8) beats per request, in request order
  input  wire logic                   wdata_valid,
  output logic                        wdata_ready,
  input  wire logic [DATA_BITS-1:0]   wdata,
  // status
  output logic                        bus_error,     // sticky: BRESP SLVERR/DECERR
  output logic      [63:0]            bytes_written,
  output logic                        idle,          // every request done
  // AXI4 master, write channels (ID 0)
  output logic                        m_axi_awvalid,
  input  wire logic                   m_axi_awready,
  output logic      [ADDR_BITS-1:0]   m_axi_awaddr,
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
  localparam int BEAT_BYTES = DATA_BITS / 8;
  localparam int LEN_DEPTH = MAX_OUTSTANDING < 2 ? 2 : MAX_OUTSTANDING;

  logic                             w_fire, b_fire, last_burst, issue_idle;
  logic                             len_valid;  // a burst's W beats are due
  logic [7:0]                       len, beat;  // its AWLEN; beats sent of it
  logic                             beat_valid;
  logic [1:0]                       skid_count;
  /* verilator lint_off UNUSEDSIGNAL */
  logic                             unused_len_ready;  // never full: one entry per burst in flight
  logic [$clog2(LEN_DEPTH + 1)-1:0] unused_len_count;
  /* verilator lint_on UNUSEDSIGNAL */

  axi_burst_issue #(.DATA_BITS(DATA_BITS), .ADDR_BITS(ADDR_BITS), .MAX_OUTSTANDING(MAX_OUTSTANDING)) issue (
    .clk, .rst_n, .clear,
    .req_valid, .req_ready, .req_addr, .req_bytes, .req_error,
    .ax_valid(m_axi_awvalid), .ax_ready(m_axi_awready), .ax_addr(m_axi_awaddr), .ax_len(m_axi_awlen),
    .ax_size(m_axi_awsize), .ax_burst(m_axi_awburst), .ax_cache(m_axi_awcache), .ax_prot(m_axi_awprot),
    .done(b_fire), .head_last(last_burst), .idle(issue_idle));

  // Per burst sent: its AWLEN, until its last W beat has gone.
  fifo #(.WIDTH(8), .DEPTH(LEN_DEPTH)) w_lens (
    .clk, .rst_n,
    .in_valid(m_axi_awvalid && m_axi_awready), .in_ready(unused_len_ready), .in_data(m_axi_awlen),
    .out_valid(len_valid), .out_ready(w_fire && m_axi_wlast), .out_data(len),
    .count(unused_len_count));

  fifo #(.WIDTH(DATA_BITS), .DEPTH(2)) skid (
    .clk, .rst_n,
    .in_valid(wdata_valid), .in_ready(wdata_ready), .in_data(wdata),
    .out_valid(beat_valid), .out_ready(m_axi_wready && len_valid), .out_data(m_axi_wdata),
    .count(skid_count));

  assign m_axi_wvalid = beat_valid && len_valid;
  assign m_axi_wlast = beat == len;
  assign m_axi_wstrb = '1;
  assign w_fire = m_axi_wvalid && m_axi_wready;
  assign m_axi_bready = 1'b1;
  assign b_fire = m_axi_bvalid;
  assign idle = issue_idle && skid_count == '0;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      beat <= '0;
      req_done <= 1'b0;
    end else begin
      if (w_fire) beat <= m_axi_wlast ? '0 : beat + 1'b1;
      req_done <= b_fire && last_burst;
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n || clear) begin
      bus_error <= 1'b0;
      bytes_written <= '0;
    end else begin
      if (b_fire && m_axi_bresp >= 2'b10) bus_error <= 1'b1;
      if (w_fire) bytes_written <= bytes_written + 64'(BEAT_BYTES);
    end
  end
endmodule

`default_nettype wire
