// The board top on a ULX3S with the 85k ECP5 (LFE5U-85F-6BG381C): its 25 MHz oscillator
// multiplied to the 100 MHz core clock by the ECP5's PLL, the FT231X's UART (1 Mbaud), the
// power button as reset (low when pressed), the eight LEDs. Pins: ulx3s.lpf.
`default_nettype none

module ibcc_board_ulx3s (
  input  logic       clk_25mhz,
  input  logic [0:0] btn,         // btn[0]: PWR, low when pressed
  input  logic       ftdi_txd,    // the FT231X transmits: the board receives
  output logic       ftdi_rxd,
  output logic [7:0] led,
  output logic       wifi_gpio0   // held high: the ESP32 then leaves the FPGA alone
);

  logic clk, locked;
  // VCO = 25 MHz * 4 * 6 = 600 MHz, CLKOP = 600 / 6 = 100 MHz (feedback from CLKOP).
  EHXPLLL #(
    .PLLRST_ENA("DISABLED"), .INTFB_WAKE("DISABLED"), .STDBY_ENABLE("DISABLED"),
    .DPHASE_SOURCE("DISABLED"), .OUTDIVIDER_MUXA("DIVA"), .OUTDIVIDER_MUXB("DIVB"),
    .OUTDIVIDER_MUXC("DIVC"), .OUTDIVIDER_MUXD("DIVD"), .CLKI_DIV(1), .CLKOP_ENABLE("ENABLED"),
    .CLKOP_DIV(6), .CLKOP_CPHASE(2), .CLKOP_FPHASE(0), .FEEDBK_PATH("CLKOP"), .CLKFB_DIV(4)
  ) u_pll (
    .RST(1'b0), .STDBY(1'b0), .CLKI(clk_25mhz), .CLKOP(clk), .CLKFB(clk), .CLKINTFB(),
    .PHASESEL0(1'b0), .PHASESEL1(1'b0), .PHASEDIR(1'b1), .PHASESTEP(1'b1),
    .PHASELOADREG(1'b1), .PLLWAKESYNC(1'b0), .ENCLKOP(1'b0), .LOCK(locked));

  ibcc_board_top #(.ClksPerBit(100), .LedActiveLow(1'b0)) u_top (
    .clk_i(clk), .rst_ni(btn[0] && locked), .uart_rx_i(ftdi_txd), .uart_tx_o(ftdi_rxd), .led_o(led));

  assign wifi_gpio0 = 1'b1;

endmodule : ibcc_board_ulx3s
