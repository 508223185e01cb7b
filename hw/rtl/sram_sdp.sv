// Simple dual-port RAM: one write port, one read port with a registered
// output, one clock. Written the way Vivado and yosys infer block RAM
// (RAMB18E1/RAMB36E1 on 7-series; small shapes may become LUT RAM).
//   write: we, waddr, wdata in cycle T -> stored at the rising edge ending T
//   read:  re, raddr in cycle T -> rdata from cycle T + 1 (held while re is 0)
// A read of the address written in the same cycle returns the old data.
// Contents are undefined after configuration (no reset).
`default_nettype none

module sram_sdp #(
  parameter int WIDTH = 128,
  parameter int DEPTH = 4096  // >= 2
) (
  input  wire logic                     clk,
  input  wire logic                     we,
  input  wire logic [$clog2(DEPTH)-1:0] waddr,
  input  wire logic [WIDTH-1:0]         wdata,
  input  wire logic                     re,
  input  wire logic [$clog2(DEPTH)-1:0] raddr,
  output logic      [WIDTH-1:0]         rdata
);
  logic [WIDTH-1:0] mem [DEPTH];

  always_ff @(posedge clk) begin
    if (we) mem[waddr] <= wdata;
  end

  always_ff @(posedge clk) begin
    if (re) rdata <= mem[raddr];
  end
endmodule

`default_nettype wire
