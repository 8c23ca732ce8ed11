"""The Raspberry Pi's 40-pin header: the GPIOs a device may use, the ones its buses take (I2C,
SPI0, the UART) and the ones that can drive a NeoPixel strip by PWM, and whether a serial port
is the header's UART. Facts of the Pi (Broadcom numbering, as gpiozero takes pins), the same on
every model with the header; ``hw.config`` checks a board's configuration against them
(``BoardConfig.gpio_claims``: no GPIO claimed twice)."""

from __future__ import annotations

from pathlib import Path

#: GPIOs of the 40-pin header that a device may use (BCM 2..27; 0 and 1 hold the HAT EEPROM).
USABLE_GPIOS = range(2, 28)
#: The I2C bus 1 (the clock faces).
I2C_GPIOS = {2: "I2C SDA", 3: "I2C SCL"}
#: SPI0's data out (a NeoPixel strip on SPI).
SPI_MOSI = 10
#: What the kernel holds with SPI0 on (dtparam=spi=on), besides MOSI: "GPIO busy" for another
#: user. The chip selects are free with dtoverlay=spi0-0cs (``[leds] free_chip_selects``).
SPI_HELD = {9: "SPI MISO", 11: "SPI SCLK"}
SPI_CHIP_SELECTS = {8: "SPI CE0", 7: "SPI CE1"}
#: The header's UART (GPIO 14 TX, 15 RX). A button claimed there by lgpio takes the pin from
#: the UART without an error (the Pi's pin controller lets a GPIO request through), and the
#: feed then goes nowhere: refused while the feed is on that UART.
UART_GPIOS = {14: "UART TX", 15: "UART RX"}
#: The header UART's devices: ttyS0 (Pi 0-4's mini UART) and ttyAMA0 (a Pi 0-4's PL011 with
#: Bluetooth moved, a Pi 5's UART0 with dtparam=uart0=on). ``serial0`` is the link to one of
#: them on a Pi 0-4; on a Pi 5 it names the debug connector (ttyAMA10), off the header.
HEADER_UARTS = ("ttyS0", "ttyAMA0")
#: The pins rpi_ws281x drives a strip from by PWM (18 usual).
PWM_GPIOS = (10, 12, 13, 18, 19, 21)


def uart_on_header(port: str) -> bool:
    """Whether the feed ``port`` is the header's UART on GPIO 14/15 (``serial0`` by the device
    its link names; without the link, the UART off or not a Pi, as on a Pi 0-4)."""
    name = port.rstrip("/").rsplit("/", 1)[-1]
    if name == "serial0" and "://" not in port:
        try:
            name = Path(port).resolve(strict=True).name
        except (OSError, RuntimeError):
            return True
    return name in HEADER_UARTS and "://" not in port
