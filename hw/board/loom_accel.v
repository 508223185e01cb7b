// The accelerator as a Vivado IP / XRT RTL kernel: a Verilog-2001 wrapper
// around the SystemVerilog top, named after the kernel. Vivado's block
// designs cannot reference a SystemVerilog module directly, and the
// X_INTERFACE attributes below tell the IP packager which pins form the
// clock, reset, interrupt and the two AXI interfaces.
module loom_accel #(
  parameter integer C_M_AXI_GMEM_DATA_WIDTH = 64
) (
  (* X_INTERFACE_PARAMETER = "ASSOCIATED_BUSIF s_axi_control:m_axi_gmem, ASSOCIATED_RESET ap_rst_n" *)
  (* X_INTERFACE_INFO = "xilinx.com:signal:clock:1.0 ap_clk CLK" *)
  input  wire         ap_clk,
  (* X_INTERFACE_PARAMETER = "POLARITY ACTIVE_LOW" *)
  (* X_INTERFACE_INFO = "xilinx.com:signal:reset:1.0 ap_rst_n RST" *)
  input  wire         ap_rst_n,
  (* X_INTERFACE_PARAMETER = "SENSITIVITY LEVEL_HIGH" *)
  (* X_INTERFACE_INFO = "xilinx.com:signal:interrupt:1.0 interrupt INTERRUPT" *)
  output wire         interrupt,

  input  wire         s_axi_control_awvalid,
  output wire         s_axi_control_awready,
  input  wire [7:0]   s_axi_control_awaddr,
  input  wire         s_axi_control_wvalid,
  output wire         s_axi_control_wready,
  input  wire [31:0]  s_axi_control_wdata,
  input  wire [3:0]   s_axi_control_wstrb,
  output wire         s_axi_control_bvalid,
  input  wire         s_axi_control_bready,
  output wire [1:0]   s_axi_control_bresp,
  input  wire         s_axi_control_arvalid,
  output wire         s_axi_control_arready,
  input  wire [7:0]   s_axi_control_araddr,
  output wire         s_axi_control_rvalid,
  input  wire         s_axi_control_rready,
  output wire [31:0]  s_axi_control_rdata,
  output wire [1:0]   s_axi_control_rresp,

  output wire         m_axi_gmem_awvalid,
  input  wire         m_axi_gmem_awready,
  output wire [63:0]  m_axi_gmem_awaddr,
  output wire [7:0]   m_axi_gmem_awlen,
  output wire [2:0]   m_axi_gmem_awsize,
  output wire [1:0]   m_axi_gmem_awburst,
  output wire [3:0]   m_axi_gmem_awcache,
  output wire [2:0]   m_axi_gmem_awprot,
  output wire         m_axi_gmem_wvalid,
  input  wire         m_axi_gmem_wready,
  output wire [C_M_AXI_GMEM_DATA_WIDTH-1:0]   m_axi_gmem_wdata,
  output wire [C_M_AXI_GMEM_DATA_WIDTH/8-1:0] m_axi_gmem_wstrb,
  output wire         m_axi_gmem_wlast,
  input  wire         m_axi_gmem_bvalid,
  output wire         m_axi_gmem_bready,
  input  wire [1:0]   m_axi_gmem_bresp,
  output wire         m_axi_gmem_arvalid,
  input  wire         m_axi_gmem_arready,
  output wire [63:0]  m_axi_gmem_araddr,
  output wire [7:0]   m_axi_gmem_arlen,
  output wire [2:0]   m_axi_gmem_arsize,
  output wire [1:0]   m_axi_gmem_arburst,
  output wire [3:0]   m_axi_gmem_arcache,
  output wire [2:0]   m_axi_gmem_arprot,
  input  wire         m_axi_gmem_rvalid,
  output wire         m_axi_gmem_rready,
  input  wire [C_M_AXI_GMEM_DATA_WIDTH-1:0]   m_axi_gmem_rdata,
  input  wire [1:0]   m_axi_gmem_rresp,
  input  wire         m_axi_gmem_rlast
);

  loom_accel_top core (
    .ap_clk(ap_clk), .ap_rst_n(ap_rst_n), .interrupt(interrupt),
    .s_axi_control_awvalid(s_axi_control_awvalid), .s_axi_control_awready(s_axi_control_awready),
    .s_axi_control_awaddr(s_axi_control_awaddr),
    .s_axi_control_wvalid(s_axi_control_wvalid), .s_axi_control_wready(s_axi_control_wready),
    .s_axi_control_wdata(s_axi_control_wdata), .s_axi_control_wstrb(s_axi_control_wstrb),
    .s_axi_control_bvalid(s_axi_control_bvalid), .s_axi_control_bready(s_axi_control_bready),
    .s_axi_control_bresp(s_axi_control_bresp),
    .s_axi_control_arvalid(s_axi_control_arvalid), .s_axi_control_arready(s_axi_control_arready),
    .s_axi_control_araddr(s_axi_control_araddr),
    .s_axi_control_rvalid(s_axi_control_rvalid), .s_axi_control_rready(s_axi_control_rready),
    .s_axi_control_rdata(s_axi_control_rdata), .s_axi_control_rresp(s_axi_control_rresp),
    .m_axi_gmem_awvalid(m_axi_gmem_awvalid), .m_axi_gmem_awready(m_axi_gmem_awready),
    .m_axi_gmem_awaddr(m_axi_gmem_awaddr), .m_axi_gmem_awlen(m_axi_gmem_awlen),
    .m_axi_gmem_awsize(m_axi_gmem_awsize), .m_axi_gmem_awburst(m_axi_gmem_awburst),
    .m_axi_gmem_awcache(m_axi_gmem_awcache), .m_axi_gmem_awprot(m_axi_gmem_awprot),
    .m_axi_gmem_wvalid(m_axi_gmem_wvalid), .m_axi_gmem_wready(m_axi_gmem_wready),
    .m_axi_gmem_wdata(m_axi_gmem_wdata), .m_axi_gmem_wstrb(m_axi_gmem_wstrb),
    .m_axi_gmem_wlast(m_axi_gmem_wlast),
    .m_axi_gmem_bvalid(m_axi_gmem_bvalid), .m_axi_gmem_bready(m_axi_gmem_bready),
    .m_axi_gmem_bresp(m_axi_gmem_bresp),
    .m_axi_gmem_arvalid(m_axi_gmem_arvalid), .m_axi_gmem_arready(m_axi_gmem_arready),
    .m_axi_gmem_araddr(m_axi_gmem_araddr), .m_axi_gmem_arlen(m_axi_gmem_arlen),
    .m_axi_gmem_arsize(m_axi_gmem_arsize), .m_axi_gmem_arburst(m_axi_gmem_arburst),
    .m_axi_gmem_arcache(m_axi_gmem_arcache), .m_axi_gmem_arprot(m_axi_gmem_arprot),
    .m_axi_gmem_rvalid(m_axi_gmem_rvalid), .m_axi_gmem_rready(m_axi_gmem_rready),
    .m_axi_gmem_rdata(m_axi_gmem_rdata), .m_axi_gmem_rresp(m_axi_gmem_rresp),
    .m_axi_gmem_rlast(m_axi_gmem_rlast)
  );

endmodule
