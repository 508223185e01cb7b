// K read clients (the accelerator has three: fetch, load unit, the store
// unit's parameter loads) sharing one axi_dma_read.
//
// Requests: round robin between whole requests (a request is one handshake;
// the port after the last granted one has priority). The granted request is
// registered (dma_req_*), so the DMA sees a stable request and no
// combinational path runs from a client to the AXI side. Each grant pushes
// the port's index into an order FIFO of ORDER_DEPTH entries; a full FIFO
// holds off further grants.
// Responses: axi_dma_read returns requests in order, so the FIFO's head names
// the port that gets the current beat; the head is dropped after the beat with
// data_last. rsp_data and rsp_last are shared by all ports (only the addressed
// port's rsp_valid rises); rsp_ready of the other ports is ignored.
// Per-port request fields are packed: port p's address is
// req_addr[p*ADDR_BITS +: ADDR_BITS], its byte count req_bytes[p*32 +: 32].
`default_nettype none

module dma_read_arbiter #(
  parameter int K = 3,             // ports, >= 1
  parameter int DATA_BITS = 64,
  parameter int ADDR_BITS = 64,
  parameter int ORDER_DEPTH = 4    // requests granted and not yet answered, >= 2
) (
  input  wire logic                   clk,
  input  wire logic                   rst_n,  // synchronous
  // clients
  input  wire logic [K-1:0]           req_valid,
  output logic      [K-1:0]           req_ready,
  input  wire logic [K*ADDR_BITS-1:0] req_addr,
  input  wire logic [K*32-1:0]        req_bytes,
  output logic      [K-1:0]           rsp_valid,
  input  wire logic [K-1:0]           rsp_ready,
  output logic      [DATA_BITS-1:0]   rsp_data,
  output logic                        rsp_last,
  // axi_dma_read
  output logic                        dma_req_valid,
  input  wire logic                   dma_req_ready,
  output logic      [ADDR_BITS-1:0]   dma_req_addr,
  output logic      [31:0]            dma_req_bytes,
  input  wire logic                   dma_data_valid,
  output logic                        dma_data_ready,
  input  wire logic [DATA_BITS-1:0]   dma_data,
  input  wire logic                   dma_data_last
);
  localparam int IDX_W = K > 1 ? $clog2(K) : 1;

  logic [IDX_W-1:0] prio;        // the port with priority in the next grant
  logic [IDX_W-1:0] grant_idx, head;
  logic             grant_any, can_grant, grant, order_room, order_valid;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [$clog2(ORDER_DEPTH+1)-1:0] unused_order_count;
  /* verilator lint_on UNUSEDSIGNAL */

  // The port i places after prio, wrapping around.
  function automatic logic [IDX_W-1:0] port_at(input logic [IDX_W:0] i);
    logic [IDX_W:0] sum;
    sum = {1'b0, prio} + i;
    port_at = IDX_W'(sum >= (IDX_W + 1)'(K) ? sum - (IDX_W + 1)'(K) : sum);
  endfunction

  // The first valid port at or after prio.
  always_comb begin
    grant_any = 1'b0;
    grant_idx = '0;
    for (int i = K - 1; i >= 0; i--) begin
      if (req_valid[port_at((IDX_W + 1)'(i))]) begin
        grant_any = 1'b1;
        grant_idx = port_at((IDX_W + 1)'(i));
      end
    end
  end

  assign can_grant = (!dma_req_valid || dma_req_ready) && order_room;
  assign grant = can_grant && grant_any;
  always_comb begin
    req_ready = '0;
    req_ready[grant_idx] = grant;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      dma_req_valid <= 1'b0;
      prio <= '0;
    end else if (grant) begin
      dma_req_valid <= 1'b1;
      prio <= grant_idx == IDX_W'(K - 1) ? '0 : grant_idx + 1'b1;
    end else if (dma_req_ready) begin
      dma_req_valid <= 1'b0;
    end
  end

  always_ff @(posedge clk) begin
    if (grant) begin
      dma_req_addr <= req_addr[grant_idx * ADDR_BITS +: ADDR_BITS];
      dma_req_bytes <= req_bytes[grant_idx * 32 +: 32];
    end
  end

  fifo #(.WIDTH(IDX_W), .DEPTH(ORDER_DEPTH)) order (
    .clk, .rst_n,
    .in_valid(grant), .in_ready(order_room), .in_data(grant_idx),
    .out_valid(order_valid), .out_ready(dma_data_valid && dma_data_ready && dma_data_last),
    .out_data(head), .count(unused_order_count));

  assign rsp_data = dma_data;
  assign rsp_last = dma_data_last;
  assign dma_data_ready = order_valid && rsp_ready[head];
  always_comb begin
    rsp_valid = '0;
    rsp_valid[head] = order_valid && dma_data_valid;
  end
endmodule

`default_nettype wire
