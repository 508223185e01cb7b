// AXI4-Lite register slave: XRT's ap_ctrl_hs control map, the kernel
// arguments, and read-only status and counters from the core. Offsets come
// from the contract include (REG_*), documented in hw/README.md.
//
//   CTRL  bit 0 ap_start: writing 1 sets it (writing 0 does nothing); the
//               core's core_ready pulse (it took the start) clears it
//         bit 1 ap_done: set by core_done, cleared when CTRL is read
//         bit 2 ap_idle: core_idle, live
//         bit 3 ap_ready: set by core_ready, cleared when CTRL is read
//         bit 7 auto_restart: not implemented, reads 0 (XRT uses it only for
//               free-running kernels; one run per ap_start here)
//   GIE   bit 0;  IER bits 0 (done) and 1 (ready)
//   ISR   bit 0 done, bit 1 ready: set by the event while its IER bit is set;
//         writing 1 to a bit toggles it (Vitis HLS semantics; XRT clears a
//         set bit by writing 1)
//   irq (the interrupt pin) = GIE & |(ISR & IER)
//   arguments (CMD_ADDR, BASE0..3, CMD_COUNT): 64 bits, low word at the
//         offset, high word at offset + 4, byte strobes honoured
//   ERROR, ERROR_CMD, CONFIG_ID, VERSION and the 64-bit counters: read only.
//         Reading a counter's low word latches its high word, so a following
//         read of the high word returns the same 64-bit sample (read low
//         first); any other read drops the latch.
// Unmapped offsets read 0; writes to them and to read-only registers are
// ignored. Every response is OKAY. One write and one read at a time; AW and W
// may come in either order or together. If a core event and a clearing CTRL
// read happen in the same cycle, the read returns the old value and the bit
// stays set, so no event is lost.
`default_nettype none

module axil_regs #(
  parameter int ADDR_BITS = 8  // >= 8: the map lies in the first 256 bytes
) (
  input  wire logic                 clk,
  input  wire logic                 rst_n,  // synchronous
  // AXI4-Lite slave
  input  wire logic                 s_axi_awvalid,
  output logic                      s_axi_awready,
  input  wire logic [ADDR_BITS-1:0] s_axi_awaddr,
  input  wire logic                 s_axi_wvalid,
  output logic                      s_axi_wready,
  input  wire logic [31:0]          s_axi_wdata,
  input  wire logic [3:0]           s_axi_wstrb,
  output logic                      s_axi_bvalid,
  input  wire logic                 s_axi_bready,
  output logic      [1:0]           s_axi_bresp,
  input  wire logic                 s_axi_arvalid,
  output logic                      s_axi_arready,
  input  wire logic [ADDR_BITS-1:0] s_axi_araddr,
  output logic                      s_axi_rvalid,
  input  wire logic                 s_axi_rready,
  output logic      [31:0]          s_axi_rdata,
  output logic      [1:0]           s_axi_rresp,
  output logic                      irq,         // the kernel's interrupt pin
  // core control
  output logic                      ap_start,    // level, until core_ready
  input  wire logic                 core_ready,  // pulse: the core took ap_start
  input  wire logic                 core_done,   // pulse: the run ended
  input  wire logic                 core_idle,
  // arguments
  output logic      [63:0]          arg_cmd_addr,
  output logic      [63:0]          arg_base0,
  output logic      [63:0]          arg_base1,
  output logic      [63:0]          arg_base2,
  output logic      [63:0]          arg_base3,
  output logic      [63:0]          arg_cmd_count,
  // status
  input  wire logic [7:0]           error_code,  // ERR_*
  input  wire logic [31:0]          error_cmd,
  input  wire logic [63:0]          cnt_cycles,
  input  wire logic [63:0]          cnt_load_busy,
  input  wire logic [63:0]          cnt_load_stall,
  input  wire logic [63:0]          cnt_compute_busy,
  input  wire logic [63:0]          cnt_compute_stall,
  input  wire logic [63:0]          cnt_store_busy,
  input  wire logic [63:0]          cnt_store_stall,
  input  wire logic [63:0]          cnt_dma_read_bytes,
  input  wire logic [63:0]          cnt_dma_write_bytes
);
  `include "loom_accel_config.svh"

  localparam int ARGS = 6;
  localparam int COUNTERS = 9;
  localparam logic [ARGS*8-1:0] ARG_OFFSETS = {
    REG_CMD_COUNT, REG_BASE3, REG_BASE2, REG_BASE1, REG_BASE0, REG_CMD_ADDR};
  localparam logic [COUNTERS*8-1:0] COUNTER_OFFSETS = {
    REG_DMA_WRITE_BYTES, REG_DMA_READ_BYTES, REG_STORE_STALL, REG_STORE_BUSY,
    REG_COMPUTE_STALL, REG_COMPUTE_BUSY, REG_LOAD_STALL, REG_LOAD_BUSY, REG_CYCLES};

  logic [ARGS*64-1:0]     args;      // argument a at bits a*64, in ARG_OFFSETS order
  logic [COUNTERS*64-1:0] counters;  // in COUNTER_OFFSETS order
  logic [64*32-1:0]       words;     // readable word i at bits i*32
  logic                   ap_done_r, ap_ready_r, gie;
  logic [1:0]             ier, isr;
  // write channel: the held AW and W
  logic                   aw_held, w_held, w_mapped, do_write;
  logic [7:0]             w_off;
  logic [31:0]            w_data;
  logic [3:0]             w_strb;
  // read channel
  logic                   ar_fire, r_mapped;
  logic [7:0]             r_off;
  logic [31:0]            r_data;
  logic                   read_low_counter, read_high_counter;
  logic [3:0]             read_counter;
  logic [31:0]            read_counter_hi;
  logic                   snap_valid;  // snap_hi is counter snap_idx's high word
  logic [3:0]             snap_idx;
  logic [31:0]            snap_hi;

  assign counters = {cnt_dma_write_bytes, cnt_dma_read_bytes, cnt_store_stall, cnt_store_busy,
                     cnt_compute_stall, cnt_compute_busy, cnt_load_stall, cnt_load_busy, cnt_cycles};
  assign {arg_cmd_count, arg_base3, arg_base2, arg_base1, arg_base0, arg_cmd_addr} = args;

  // The word offset of a byte address in the 256-byte map.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [7:0] offset_of(input logic [ADDR_BITS-1:0] addr);
    offset_of = {addr[7:2], 2'b00};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  function automatic logic mapped(input logic [ADDR_BITS-1:0] addr);
    mapped = (addr >> 8) == '0;
  endfunction
  // old with the bytes selected by strb replaced from data.
  function automatic logic [31:0] merge(input logic [31:0] old, input logic [31:0] data,
                                        input logic [3:0] strb);
    for (int b = 0; b < 4; b++) merge[b*8 +: 8] = strb[b] ? data[b*8 +: 8] : old[b*8 +: 8];
  endfunction

  // ---------------------------------------------------------------- write channel
  assign s_axi_awready = !aw_held;
  assign s_axi_wready = !w_held;
  assign s_axi_bresp = 2'b00;
  assign do_write = aw_held && w_held && !s_axi_bvalid;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      aw_held <= 1'b0;
      w_held <= 1'b0;
      s_axi_bvalid <= 1'b0;
    end else begin
      if (s_axi_awvalid && s_axi_awready) begin
        aw_held <= 1'b1;
        w_off <= offset_of(s_axi_awaddr);
        w_mapped <= mapped(s_axi_awaddr);
      end
      if (s_axi_wvalid && s_axi_wready) begin
        w_held <= 1'b1;
        w_data <= s_axi_wdata;
        w_strb <= s_axi_wstrb;
      end
      if (do_write) begin
        aw_held <= 1'b0;
        w_held <= 1'b0;
        s_axi_bvalid <= 1'b1;
      end else if (s_axi_bready) begin
        s_axi_bvalid <= 1'b0;
      end
    end
  end

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      ap_start <= 1'b0;
      ap_done_r <= 1'b0;
      ap_ready_r <= 1'b0;
      gie <= 1'b0;
      ier <= '0;
      isr <= '0;
      args <= '0;
    end else begin
      if (do_write && w_mapped) begin
        if (w_off == REG_CTRL && w_strb[0] && w_data[0]) ap_start <= 1'b1;
        if (w_off == REG_GIE && w_strb[0]) gie <= w_data[0];
        if (w_off == REG_IER && w_strb[0]) ier <= w_data[1:0];
        if (w_off == REG_ISR && w_strb[0]) isr <= isr ^ w_data[1:0];
        for (int a = 0; a < ARGS; a++) begin
          if (w_off == ARG_OFFSETS[a*8 +: 8])
            args[a*64 +: 32] <= merge(args[a*64 +: 32], w_data, w_strb);
          if (w_off == ARG_OFFSETS[a*8 +: 8] + 8'd4)
            args[a*64 + 32 +: 32] <= merge(args[a*64 + 32 +: 32], w_data, w_strb);
        end
      end
      if (core_ready) ap_start <= 1'b0;
      // A core event wins over a clearing read in the same cycle.
      if (core_done) ap_done_r <= 1'b1;
      else if (ar_fire && r_mapped && r_off == REG_CTRL) ap_done_r <= 1'b0;
      if (core_ready) ap_ready_r <= 1'b1;
      else if (ar_fire && r_mapped && r_off == REG_CTRL) ap_ready_r <= 1'b0;
      if (core_done && ier[0]) isr[0] <= 1'b1;
      if (core_ready && ier[1]) isr[1] <= 1'b1;
    end
  end

  assign irq = gie && (isr & ier) != '0;

  // ---------------------------------------------------------------- read channel
  assign s_axi_arready = !s_axi_rvalid;
  assign s_axi_rresp = 2'b00;
  assign ar_fire = s_axi_arvalid && s_axi_arready;
  assign r_off = offset_of(s_axi_araddr);
  assign r_mapped = mapped(s_axi_araddr);

  // Every readable word at its offset / 4; a mux on the offset picks one.
  always_comb begin
    words = '0;
    words[REG_CTRL[7:2]*32 +: 32] = {28'd0, ap_ready_r, core_idle, ap_done_r, ap_start};
    words[REG_GIE[7:2]*32 +: 32] = {31'd0, gie};
    words[REG_IER[7:2]*32 +: 32] = {30'd0, ier};
    words[REG_ISR[7:2]*32 +: 32] = {30'd0, isr};
    words[REG_ERROR[7:2]*32 +: 32] = {24'd0, error_code};
    words[REG_ERROR_CMD[7:2]*32 +: 32] = error_cmd;
    words[REG_CONFIG_ID[7:2]*32 +: 32] = CONFIG_ID;
    words[REG_VERSION[7:2]*32 +: 32] = VERSION;
    for (int a = 0; a < ARGS; a++)
      words[ARG_OFFSETS[a*8+2 +: 6]*32 +: 64] = args[a*64 +: 64];
    for (int c = 0; c < COUNTERS; c++)
      words[COUNTER_OFFSETS[c*8+2 +: 6]*32 +: 64] = counters[c*64 +: 64];
  end

  // The counter whose low (or high) word is at r_off, if any.
  always_comb begin
    read_low_counter = 1'b0;
    read_high_counter = 1'b0;
    read_counter = '0;
    read_counter_hi = '0;
    for (int c = 0; c < COUNTERS; c++) begin
      if (r_off == COUNTER_OFFSETS[c*8 +: 8]) begin
        read_low_counter = 1'b1;
        read_counter = 4'(c);
        read_counter_hi = counters[c*64 + 32 +: 32];
      end
      if (r_off == COUNTER_OFFSETS[c*8 +: 8] + 8'd4) begin
        read_high_counter = 1'b1;
        read_counter = 4'(c);
      end
    end
  end

  always_comb begin
    if (!r_mapped) r_data = '0;
    else if (read_high_counter && snap_valid && snap_idx == read_counter) r_data = snap_hi;
    else r_data = words[r_off[7:2]*32 +: 32];
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      s_axi_rvalid <= 1'b0;
      snap_valid <= 1'b0;
    end else begin
      if (ar_fire) begin
        s_axi_rvalid <= 1'b1;
        s_axi_rdata <= r_data;
        snap_valid <= r_mapped && read_low_counter;
        snap_idx <= read_counter;
        snap_hi <= read_counter_hi;
      end else if (s_axi_rready) begin
        s_axi_rvalid <= 1'b0;
      end
    end
  end
endmodule

`default_nettype wire
