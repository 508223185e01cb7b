// The address side of an AXI4 DMA, shared by axi_dma_read (AR) and
// axi_dma_write (AW): splits (address, bytes) requests into INCR bursts of
// full-width beats, issues them on the address channel, and tracks the bursts
// in flight.
//
// Splitting: a burst starts at the current address and has
//   beats = min(MAX_BURST_BEATS, beats to the next BURST_BOUNDARY, beats left)
// so it never crosses a 4 KB page and AxLEN stays <= 15 (AXI3 HP ports):
// 16-beat bursts, shortened only where a page or the request ends (the
// constants come from the contract include). The next burst is computed into
// the address register while the current one waits, so bursts leave back to
// back.
// In flight: a burst is in flight from its address handshake until the
// parent module reports it finished (done: its last R beat, or its B); at
// most MAX_OUTSTANDING are, and AxVALID waits for room (room only grows while
// AxVALID is high, so AxVALID is never withdrawn). A FIFO of one bit per burst
// in flight says whether it is the last of its request (head_last for the
// oldest), which places data_last and req_done.
//
// Requests: req_addr must be a multiple of the bus width (DATA_BITS / 8) and
// req_bytes a non-zero multiple of it. Such a request is taken when no other
// request is being split (req_ready). Any other request is refused: it is
// never taken (req_ready stays low while it is presented, so it stalls its
// client) and the sticky req_error rises; the accelerator then ends the run
// with ERR_MISALIGNED and resets the DMA. clear (a pulse, e.g. at ap_start)
// lowers req_error.
`default_nettype none

module axi_burst_issue #(
  parameter int DATA_BITS = 64,      // AXI data width: 64 or 128
  parameter int ADDR_BITS = 64,
  parameter int MAX_OUTSTANDING = 4  // >= 1
) (
  input  wire logic                 clk,
  input  wire logic                 rst_n,  // synchronous
  input  wire logic                 clear,  // lowers req_error
  input  wire logic                 req_valid,
  output logic                      req_ready,
  input  wire logic [ADDR_BITS-1:0] req_addr,
  input  wire logic [31:0]          req_bytes,
  output logic                      req_error,  // sticky: a request was refused
  // AXI address channel (AR or AW)
  output logic                      ax_valid,
  input  wire logic                 ax_ready,
  output logic      [ADDR_BITS-1:0] ax_addr,
  output logic      [7:0]           ax_len,     // beats - 1
  output logic      [2:0]           ax_size,
  output logic      [1:0]           ax_burst,
  output logic      [3:0]           ax_cache,
  output logic      [2:0]           ax_prot,
  // bursts in flight
  input  wire logic                 done,       // the oldest burst in flight finished
  output logic                      head_last,  // the oldest is the last of its request
  output logic                      idle        // no request being split, no burst in flight
);
  `include "loom_accel_config.svh"

  localparam int BEAT_BYTES = DATA_BITS / 8;
  localparam int LSB = $clog2(BEAT_BYTES);
  localparam int BEATS_W = 32 - LSB;                      // beats of one request
  localparam int PAGE_LSB = $clog2(BURST_BOUNDARY);       // 12
  localparam int PAGE_BEATS = BURST_BOUNDARY / BEAT_BYTES;
  localparam int PAGE_W = PAGE_LSB - LSB + 1;             // holds 1 .. PAGE_BEATS
  localparam int LEN_W = $clog2(MAX_BURST_BEATS) + 1;     // holds 1 .. MAX_BURST_BEATS
  localparam int TAG_DEPTH = MAX_OUTSTANDING < 2 ? 2 : MAX_OUTSTANDING;
  localparam int TAG_COUNT_W = $clog2(TAG_DEPTH + 1);

  logic                   active;       // a request is being split
  logic [ADDR_BITS-1:0]   cur_addr;     // start of the next burst
  logic [BEATS_W-1:0]     beats_left;   // of the request, from cur_addr
  logic                   aligned;
  logic [PAGE_W-1:0]      page_beats;   // beats from cur_addr to the page end
  logic [LEN_W-1:0]       beats;        // of the next burst
  logic                   load;         // the next burst enters the address register
  logic                   burst_valid;  // the address register holds a burst
  logic                   burst_last;   // ... the last of its request
  logic                   room, ax_fire, any_in_flight;
  logic [TAG_COUNT_W-1:0] in_flight;
  /* verilator lint_off UNUSEDSIGNAL */
  logic                   unused_tag_ready;  // never full: room gates ax_valid
  /* verilator lint_on UNUSEDSIGNAL */

  assign aligned = req_addr[LSB-1:0] == '0 && req_bytes[LSB-1:0] == '0 && req_bytes[31:LSB] != '0;
  assign req_ready = !active && aligned;
  assign page_beats = PAGE_W'(PAGE_BEATS) - PAGE_W'(cur_addr[PAGE_LSB-1:LSB]);
  assign load = active && (!burst_valid || ax_fire);

  always_comb begin
    beats = LEN_W'(MAX_BURST_BEATS);
    if (page_beats < PAGE_W'(beats)) beats = LEN_W'(page_beats);
    if (beats_left < BEATS_W'(beats)) beats = LEN_W'(beats_left);
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      active <= 1'b0;
      burst_valid <= 1'b0;
      req_error <= 1'b0;
    end else begin
      if (load) begin
        burst_valid <= 1'b1;
        active <= beats_left != BEATS_W'(beats);
      end else if (ax_fire) begin
        burst_valid <= 1'b0;
      end
      if (req_valid && req_ready) active <= 1'b1;
      if (clear) req_error <= 1'b0;
      else if (req_valid && !active && !aligned) req_error <= 1'b1;
    end
  end

  always_ff @(posedge clk) begin
    if (load) begin
      ax_addr <= cur_addr;
      ax_len <= 8'(beats) - 8'd1;
      burst_last <= beats_left == BEATS_W'(beats);
      cur_addr <= cur_addr + (ADDR_BITS'(beats) << LSB);
      beats_left <= beats_left - BEATS_W'(beats);
    end
    if (req_valid && req_ready) begin
      cur_addr <= req_addr;
      beats_left <= req_bytes[31:LSB];
    end
  end

  assign room = in_flight < TAG_COUNT_W'(MAX_OUTSTANDING);
  assign ax_valid = burst_valid && room;
  assign ax_fire = ax_valid && ax_ready;
  assign ax_size = 3'(LSB);
  assign ax_burst = 2'b01;   // INCR
  assign ax_cache = 4'b0011; // normal non-cacheable bufferable
  assign ax_prot = 3'b000;
  assign idle = !active && !burst_valid && !any_in_flight;

  fifo #(.WIDTH(1), .DEPTH(TAG_DEPTH)) tags (
    .clk, .rst_n,
    .in_valid(ax_fire), .in_ready(unused_tag_ready), .in_data(burst_last),
    .out_valid(any_in_flight), .out_ready(done), .out_data(head_last),
    .count(in_flight));
endmodule

`default_nettype wire
