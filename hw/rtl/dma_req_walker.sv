// The DMA requests of a unit's command: a grid of rows x cols requests of
// `bytes` each, request (r, c) at addr + r·row_pitch + c·col_pitch, row by
// row, handed over one per req_valid/req_ready handshake (a DMA client port:
// dma_read_arbiter's or axi_dma_write's). The load and store units use one
// per DRAM row when a row's pixels are contiguous (cols = 1), else one per
// pixel.
//   load      (one cycle) starts a walk, dropping what is left of the last;
//             rows and cols >= 1
//   hold      presents nothing while high (a unit stops after a bus error)
//   finished  every request of the walk was handed over (high after reset)
// The request is registered: req_addr and req_bytes stay stable while
// req_valid waits.
`default_nettype none

module dma_req_walker #(
  parameter int ADDR_BITS = 64,
  parameter int COUNT_W = 12,      // rows, cols
  parameter int ROW_PITCH_W = 24,
  parameter int COL_PITCH_W = 16
) (
  input  wire logic                   clk,
  input  wire logic                   rst_n,  // synchronous
  input  wire logic                   load,
  input  wire logic [ADDR_BITS-1:0]   addr,
  input  wire logic [COUNT_W-1:0]     rows,
  input  wire logic [COUNT_W-1:0]     cols,
  input  wire logic [ROW_PITCH_W-1:0] row_pitch,
  input  wire logic [COL_PITCH_W-1:0] col_pitch,
  input  wire logic [31:0]            bytes,
  input  wire logic                   hold,
  output logic                        finished,
  output logic                        req_valid,
  input  wire logic                   req_ready,
  output logic      [ADDR_BITS-1:0]   req_addr,
  output logic      [31:0]            req_bytes
);
  logic [COUNT_W-1:0]     rows_left, cols_left, cols_q;
  logic [ROW_PITCH_W-1:0] row_pitch_q;
  logic [COL_PITCH_W-1:0] col_pitch_q;
  logic [ADDR_BITS-1:0]   row_addr, next_row_addr;  // the current row's first request

  assign finished = rows_left == '0;
  assign req_valid = !finished && !hold;
  assign next_row_addr = row_addr + ADDR_BITS'(row_pitch_q);

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      rows_left <= '0;
    end else if (load) begin
      rows_left <= rows;
      cols_left <= cols;
    end else if (req_valid && req_ready) begin
      if (cols_left != COUNT_W'(1)) begin
        cols_left <= cols_left - 1'b1;
      end else begin
        cols_left <= cols_q;
        rows_left <= rows_left - 1'b1;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (load) begin
      cols_q <= cols;
      row_pitch_q <= row_pitch;
      col_pitch_q <= col_pitch;
      row_addr <= addr;
      req_addr <= addr;
      req_bytes <= bytes;
    end else if (req_valid && req_ready) begin
      if (cols_left != COUNT_W'(1)) begin
        req_addr <= req_addr + ADDR_BITS'(col_pitch_q);
      end else begin
        row_addr <= next_row_addr;
        req_addr <= next_row_addr;
      end
    end
  end
endmodule

`default_nettype wire
