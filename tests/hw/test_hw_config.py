"""The configuration file: the example loads to the defaults, and every kind of mistake is a
ConfigError naming the key, through the one entry that reads the file
(boardctl.settings.load_config) and hands the hardware's tables to hw.config."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.settings import SERVICE_KEYS, Settings, default_settings, load_config
from firmware.errors import ConfigError
from hw.config import HARDWARE_KEYS, BoardConfig, default_config, parse_config

EXAMPLE = Path(__file__).resolve().parents[2] / "hw" / "config.example.toml"


def _fields(config: BoardConfig | Settings) -> dict[str, object]:
    return {name: _fields(value) if isinstance(value, BoardConfig) else value
            for name in config.__slots__ if name != "source"
            for value in [getattr(config, name)]}


def test_example_file_is_the_defaults() -> None:
    settings = load_config(EXAMPLE)
    config = settings.hardware
    assert _fields(settings) == _fields(default_settings(10))
    assert _fields(config) == _fields(default_config(10))
    assert settings.source == config.source == str(EXAMPLE)
    assert config.matrix.rows == (4, 5, 6, 12, 13, 16, 17, 19, 20, 21)
    assert config.faces.black_address == 0x71


def test_small_board_and_settings(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('size = 8\n[matrix]\nscan_hz = 500\n[leds]\nbackend = "spi"\n'
                    '[leds.colours]\nwrong = [1, 2, 3]\nrestore = "#0A0B0C"\n'
                    '[serial]\nport = "/dev/serial0"\n[gpio]\nchip = 4\n'
                    '[buttons]\nwhite = 20\nblack = 21\npause = 27\n')  # off the UART
    config = load_config(path).hardware
    assert config.size == 8 and len(config.matrix.rows) == 8 and len(config.matrix.columns) == 4
    assert config.matrix.scan_hz == 500.0
    assert config.leds.colours["wrong"] == (1, 2, 3)
    assert config.leds.colours["restore"] == (10, 11, 12)
    assert config.leds.colours["remove"] == (255, 0, 0)
    assert config.serial.port == "/dev/serial0" and config.gpio.chip == 4
    claims = dict(config.gpio_claims())
    assert claims[10] == "leds (SPI MOSI)" and claims[4] == "matrix.rows[0]"
    # SPI0 holds MISO, SCLK and both chip selects too ("GPIO busy" for anyone else)
    assert {pin: claims[pin] for pin in (7, 8, 9, 11)} == {
        7: "leds (SPI CE1)", 8: "leds (SPI CE0)", 9: "leds (SPI MISO)", 11: "leds (SPI SCLK)"}
    assert claims[14] == "serial.port (/dev/serial0: UART TX)"
    assert len(claims) == len(config.gpio_claims()) == 2 + 5 + 2 + 8 + 4 + 3


@pytest.mark.parametrize(("text", "message"), [
    ("sise = 10", "sise: unknown key; did you mean 'size'?"),
    ("size = 12", "size: 12 is not a board size"),
    ("state_dir = 'var/lib'", "state_dir: 'var/lib' is not an absolute path"),
    ("state_dir = 5", "state_dir: expected a non-empty string, got int 5"),
    ("[matrix]\nrows = [4, 5]", "matrix.rows: expected 10 GPIO numbers, got 2"),
    ("[matrix]\nrows = [4, 5, 6, 12, 13, 16, 17, 19, 20, 40]",
     "matrix.rows[9]: GPIO40 is not a usable header GPIO"),
    ("[matrix]\ncolumns = 'abc'", "matrix.columns: expected a list of GPIO numbers"),
    ("[matrix]\nwiring = 'dakr'", "matrix.wiring: 'dakr' is not one of dark, full; "
                                  "did you mean 'dark'?"),
    ("[matrix]\nwiring = 'full'", "matrix.columns: full wiring needs 10 column GPIOs"),
    ("[matrix]\nscan_hz = 5", "matrix.scan_hz: 5 is out of range 10..2000"),
    ("[matrix]\ndebounce_samples = true", "matrix.debounce_samples: expected an integer"),
    ("[matrix]\nscan_rate = 100", "matrix.scan_rate: unknown key; did you mean 'scan_hz'?"),
    ("[leds]\nbackend = 'pwm'\npin = 17", "leds.pin: GPIO17 cannot drive a NeoPixel strip"),
    ("[leds]\nbrightness = 2", "leds.brightness: 2 is out of range 0..1"),
    ("[leds.colours]\nrestroe = '#ffffff'", "leds.colours.restroe: unknown LED meaning; "
                                            "did you mean 'restore'?"),
    ("[leds.colours]\nwrong = '#fff'", "leds.colours.wrong: expected a colour"),
    ("[leds.layout]\nrotation = 45", "leds.layout.rotation: 45 is not 0, 90, 180 or 270"),
    ("[leds.layout]\norigin = 'h1'", "leds.layout.origin: 'h1' is not one of"),
    ("[faces]\nblack_address = 0x70", "faces.black_address: 0x70 is also faces.white_address"),
    ("[faces]\nwhite_address = 0x20", "faces.white_address: 32 is out of range 112..119"),
    ("[buttons]\nwhite = 4", "buttons.white: GPIO4 is already used by matrix.rows[0]"),
    ("[buttons]\nblack = 2", "buttons.black: GPIO2 is already used by faces (I2C SDA)"),
    ("[buttons]\npause = 0\nblack = 25", None),
    # SPI0's pins with the strip on SPI: the buzzer on CE1 (the old suggestion) is refused
    ("[leds]\nbackend = 'spi'\n[buzzer]\npin = 7", "buzzer.pin: GPIO7 is already used by "
                                                   "leds (SPI CE1)"),
    ("[leds]\nbackend = 'spi'\n[buttons]\nwhite = 11", "buttons.white: GPIO11 is already "
                                                     "used by leds (SPI SCLK)"),
    # ... unless config.txt frees the chip selects (dtoverlay=spi0-0cs): the UART setup
    ("[leds]\nbackend = 'spi'\nfree_chip_selects = true\n[buttons]\nwhite = 7\nblack = 8\n"
     "pause = 0", None),
    ("[leds]\nbackend = 'none'\n[buzzer]\npin = 7\n[buttons]\npause = 0", None),
    # a frame longer than one SPI transfer would latch mid-frame
    ("[leds]\nbackend = 'spi'\n[leds.layout]\nfirst_pixel = 66",
     "leds.layout: 166 GRB pixels take 4112 bytes a frame over SPI, more than the 4096 "
     "Blinka's SPI sends in one transfer: the strip would latch mid-frame; at most 165 pixels"),
    ("[leds]\nbackend = 'spi'\npixel_order = 'GRBW'\n[leds.layout]\nfirst_pixel = 25",
     "leds.layout: 125 GRBW pixels take 4128 bytes"),
    ("[leds]\nbackend = 'spi'\n[leds.layout]\nfirst_pixel = 65\n[buttons]\npause = 0", None),
    # the feed on the header UART takes GPIO 14/15 from the default buttons
    ("[serial]\nport = '/dev/serial0'", "buttons.white: GPIO14 is already used by serial.port "
                                        "(/dev/serial0: UART TX)"),
    ("[serial]\nport = '/dev/ttyAMA0'\n[buttons]\nwhite = 25\nblack = 15\npause = 0",
     "buttons.black: GPIO15 is already used by serial.port (/dev/ttyAMA0: UART RX)"),
    ("[serial]\nport = '/dev/ttyAMA0'\n[buttons]\nwhite = 7\nblack = 8\npause = 0", None),
    ("[serial]\nport = '/dev/ttyUSB0'\n[buttons]\npause = 0", None),
    ("serial = 3", "serial: expected a table ([serial]), got int 3"),
    ("[serial]\nport = ''", "serial.port: expected a non-empty string"),
    ('state_dir = "/tmp/a\\u0000b"', "state_dir: expected one line of text"),
    ("[gpio]\nbackend = 'pigpio'", "gpio.backend: 'pigpio' is not one of auto, rpigpio, lgpio"),
    ("[gpio]\nbackend = 'rpigpio'\nchip = 4", "gpio.chip: a gpiochip is an lgpio setting"),
    ("[gpio]\nchip = 64", "gpio.chip: 64 is out of range -1..63"),
    ("[serial]\nwrite_timeout = 'soon'", "serial.write_timeout: expected a number"),
])
def test_mistakes_name_the_key(tmp_path: Path, text: str, message: str | None) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text + "\n")
    if message is None:
        assert load_config(path).hardware.buttons.pause == 0
        return
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value).startswith(f"{path}: {message}")
    assert "\n" not in str(err.value)


def test_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[matrix\nrows = 1\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"size = \xff\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(binary)


def test_parse_config_takes_a_document() -> None:
    assert parse_config({"size": 8}).size == 8
    with pytest.raises(ConfigError, match="<config>: leds.layout: expected a table"):
        parse_config({"leds": {"layout": 3}})


@pytest.mark.parametrize(("target", "refused"), [("ttyS0", True), ("ttyAMA0", True),
                                                 ("ttyAMA10", False)])
def test_serial0_is_the_header_uart_by_the_device_it_names(
        tmp_path: Path, target: str, refused: bool) -> None:
    """``serial0`` is a link: to the header's UART on a Pi 0-4 (ttyS0, or ttyAMA0 with
    Bluetooth moved), to the debug connector on a Pi 5 (ttyAMA10), where the buttons may stay
    on GPIO 14/15. Before, the feed on the header UART and a button on its pin were both
    accepted: the button took the pin and every feed line went nowhere, without an error."""
    (tmp_path / target).touch()
    (tmp_path / "serial0").symlink_to(target)
    path = tmp_path / "config.toml"
    path.write_text(f"[serial]\nport = '{tmp_path / 'serial0'}'\n")
    if not refused:
        assert load_config(path).hardware.buttons.white == 14
        return
    with pytest.raises(ConfigError, match=r"buttons.white: GPIO14 is already used by "
                       r"serial.port \(.*serial0: UART TX\)"):
        load_config(path)


def test_every_top_level_key_has_one_owner() -> None:
    """The file's keys are the hardware's (hw.config) or the service's (boardctl.settings),
    never both; a key of neither is refused, naming it."""
    assert set(HARDWARE_KEYS).isdisjoint(SERVICE_KEYS)
    assert {"size", "matrix", "leds", "buzzer"} <= set(HARDWARE_KEYS)
    assert {"state_dir", "touch_min", "broker", "engine"} <= set(SERVICE_KEYS)
    with pytest.raises(ConfigError, match="state_dir: unknown key"):
        parse_config({"state_dir": "/var/lib/boardctl"})  # not the hardware's
