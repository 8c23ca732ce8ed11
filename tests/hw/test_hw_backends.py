"""The GPIO backend choice (hw/gpio.py), lgpio's working directory, the lgpio group scan
(hw/lgmatrix.py) and the buttons on each backend (hw/buttons.py).

Backends fail at the outermost edge: stand-in ``lgpio`` and ``RPi.GPIO`` modules on
``sys.path`` that are missing, raise on import, or raise on initialisation, under gpiozero's
real pin factories; the group scan runs on :class:`hw.mock.matrix.SimulatedChip` (lgpio's interface
over the simulated diode matrix)."""

from __future__ import annotations

import os
import random
import sys
import textwrap
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from firmware.errors import HardwareError
from hw.buttons import ClockButtons, PolledButtons, StampedButton, kernel_time, open_buttons
from hw.config import ButtonsConfig, GpioConfig, MatrixConfig, default_config
from hw.gpio import (
    GPIO_GET_CHIPINFO_IOCTL,
    ChipFinder,
    GpioBackend,
    GpioChipMissing,
    NoGpioBackend,
    backend_order,
    import_lgpio,
    open_backend,
)
from hw.lgmatrix import GroupMatrix
from hw.matrix import ReedMatrix
from hw.mock.matrix import SimulatedBoard, SimulatedChip

PI4 = "Raspberry Pi 4 Model B Rev 1.4"
PI5 = "Raspberry Pi 5 Model B Rev 1.0"

WORKING_LGPIO = """
    import os
    # lgpio 0.2.2.0's values
    SET_PULL_UP, SET_PULL_DOWN, SET_PULL_NONE = 32, 64, 128
    SET_BIAS_PULL_UP, SET_BIAS_PULL_DOWN, SET_BIAS_DISABLE = 32, 64, 128
    RISING_EDGE, FALLING_EDGE, BOTH_EDGES = 1, 2, 3
    class error(Exception):
        pass
    def gpiochip_open(chip):
        if not os.path.exists(os.environ["FAKE_GPIOCHIP_DIR"] + f"/gpiochip{chip}"):
            raise error("'can not open gpiochip'")
        return 7
    def gpiochip_close(handle):
        return 0
"""


def labelling(label: str):  # type: ignore[no-untyped-def]
    """An ioctl that answers GPIO_GET_CHIPINFO for any file with ``label``."""
    def ioctl(fd: int, request: int, buf: bytearray, mutate: bool) -> int:
        assert request == GPIO_GET_CHIPINFO_IOCTL and len(buf) == 68 and mutate
        buf[32:32 + len(label)] = label.encode()
        return 0
    return ioctl


def finder(chips: Path, label: str = "pinctrl-bcm2711") -> ChipFinder:
    """The header chip looked for in the fake /dev, every chip labelled ``label``; no wait."""
    return ChipFinder(dev=chips, sys=chips.parent / "sys", wait_s=0.0, ioctl=labelling(label))


RPI_GPIO_OFF_A_PI = """
    raise RuntimeError("This module can only be run on a Raspberry Pi!")
"""
RPI_GPIO_WORKING = """
    # RPi.GPIO 0.7.1's values
    BCM, IN, OUT, PUD_OFF, PUD_DOWN, PUD_UP = 11, 1, 0, 20, 21, 22
    RISING, FALLING, BOTH, UNKNOWN = 31, 32, 33, -1
    SERIAL, SPI, I2C, HARD_PWM = 40, 41, 42, 43
    PWM = object
    def setmode(mode):
        pass
    def setwarnings(flag):
        pass
    def cleanup():
        pass
"""


@pytest.fixture
def fake_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Install stand-in modules: ``fake(lgpio=SOURCE, rpigpio=SOURCE)``; None leaves that
    library missing. gpiozero's factory modules are imported afresh over them."""
    root = tmp_path / "site"
    root.mkdir()
    chips = tmp_path / "dev"
    chips.mkdir()
    monkeypatch.setenv("FAKE_GPIOCHIP_DIR", str(chips))
    monkeypatch.syspath_prepend(str(root))
    names = ("lgpio", "RPi", "RPi.GPIO", "gpiozero.pins.lgpio", "gpiozero.pins.rpigpio")
    for name in names:  # set (to the real module or nothing) after the test: no fake stays
        monkeypatch.setitem(sys.modules, name, sys.modules.get(name))  # type: ignore[arg-type]
        del sys.modules[name]
    # Where a real one is installed, hide it: a module of None makes its import fail.
    def fake(lgpio: str | None = None, rpigpio: str | None = None) -> Path:
        if lgpio is None:
            monkeypatch.setitem(sys.modules, "lgpio", None)  # type: ignore[arg-type]
        else:
            (root / "lgpio.py").write_text(textwrap.dedent(lgpio))
        if rpigpio is None:
            monkeypatch.setitem(sys.modules, "RPi", None)  # type: ignore[arg-type]
        else:
            (root / "RPi").mkdir()
            (root / "RPi" / "__init__.py").write_text("")
            (root / "RPi" / "GPIO.py").write_text(textwrap.dedent(rpigpio))
        return chips

    yield fake
    for name in names:
        if sys.modules.get(name) is None:
            sys.modules.pop(name, None)


def test_neither_backend_installed_names_both_in_one_line(fake_modules) -> None:  # type: ignore[no-untyped-def]
    fake_modules()
    with pytest.raises(HardwareError) as err:
        open_backend(GpioConfig(), model="")
    text = str(err.value)
    assert "\n" not in text
    assert "lgpio: not installed" in text and "RPi.GPIO: not installed" in text
    assert "install.sh" in text and "--sim" in text


def test_lgpio_is_the_default_on_every_model(fake_modules) -> None:  # type: ignore[no-untyped-def]
    chips = fake_modules(lgpio=WORKING_LGPIO, rpigpio=RPI_GPIO_WORKING)
    (chips / "gpiochip0").touch()
    for model in (PI4, PI5, "Raspberry Pi Zero 2 W Rev 1.0"):
        backend = open_backend(GpioConfig(), model=model, finder=finder(chips))
        assert (backend.name, backend.chip, backend.edges) == ("lgpio", 0, True)
        assert type(backend.factory).__name__ == "LGPIOFactory"
        backend.factory.close()


def test_lgpio_import_error_of_any_kind_falls_back_to_polled_rpigpio(fake_modules) -> None:  # type: ignore[no-untyped-def]
    # What lgpio's import did under the unit before LG_WD: not an ImportError.
    fake_modules(lgpio='raise OSError(2, "No such file or directory", ".lgd-nfy-3")',
                 rpigpio=RPI_GPIO_WORKING)
    backend = open_backend(GpioConfig(), model=PI4)
    assert backend.name == "rpigpio" and backend.edges is False
    assert type(backend.factory).__name__ == "RPiGPIOFactory"


def test_initialisation_failures_are_reasons(fake_modules) -> None:  # type: ignore[no-untyped-def]
    chips = fake_modules(lgpio=WORKING_LGPIO, rpigpio=RPI_GPIO_OFF_A_PI)
    with pytest.raises(NoGpioBackend) as err:  # not a Pi, no chip: final
        open_backend(GpioConfig(), model="", finder=finder(chips))
    text = str(err.value)
    assert "lgpio: no header gpiochip (pinctrl-rp1 / pinctrl-bcm2711 / pinctrl-bcm2835); " \
        "chips: none" in text
    assert "RPi.GPIO: import failed: This module can only be run on a Raspberry Pi!" in text
    (chips / "gpiochip3").touch()  # a chip, but not the header's
    with pytest.raises(NoGpioBackend, match=r"lgpio: no /.*/dev/gpiochip0 \(\[gpio\] chip\)"):
        open_backend(GpioConfig(chip=0), model="", finder=finder(chips))
    with pytest.raises(NoGpioBackend, match=r"lgpio: no header gpiochip .*chips: gpiochip3 "
                       r"raspberrypi-exp-gpio"):
        open_backend(GpioConfig(), model="", finder=finder(chips, "raspberrypi-exp-gpio"))


def test_a_pi_without_its_header_chip_is_told_to_try_again(fake_modules) -> None:  # type: ignore[no-untyped-def]
    """On a Pi the header chip is waited for (the injected clock), then the error is one
    systemd restarts on, not the final NoGpioBackend."""
    chips = fake_modules(lgpio=WORKING_LGPIO)
    now = [0.0]
    naps: list[float] = []

    def sleep(seconds: float) -> None:
        naps.append(seconds)
        now[0] += seconds
        if now[0] >= 2.0:  # the chip appears after two seconds
            (chips / "gpiochip0").touch()

    waiting = ChipFinder(dev=chips, sys=chips.parent / "sys", wait_s=15.0,
                         ioctl=labelling("pinctrl-rp1"), sleep=sleep, clock=lambda: now[0])
    backend = open_backend(GpioConfig(), model=PI5, finder=waiting)
    assert backend.chip == 0 and now[0] == 2.0 and set(naps) == {0.25}
    backend.factory.close()
    (chips / "gpiochip0").unlink()
    now[0] = 0.0
    with pytest.raises(GpioChipMissing) as err:
        open_backend(GpioConfig(), model=PI5,
                     finder=ChipFinder(dev=chips, sys=chips.parent / "sys", wait_s=15.0,
                                       sleep=lambda s: now.__setitem__(0, now[0] + s),
                                       clock=lambda: now[0]))
    assert not isinstance(err.value, NoGpioBackend)
    assert now[0] == 15.0 and "after 15 s" in str(err.value)
    assert "systemd starts the service again" in str(err.value)


def test_a_gpiozero_that_overwrites_the_chip_is_refused(  # type: ignore[no-untyped-def]
        fake_modules, monkeypatch: pytest.MonkeyPatch) -> None:
    """gpiozero before 2.0.1.post1 replaced ``chip=`` with its own guess: the buttons and
    the buzzer would then be on another chip than the matrix. Refused, with the reason."""
    import types

    chips = fake_modules(lgpio=WORKING_LGPIO)
    (chips / "gpiochip11").touch()
    old = types.ModuleType("gpiozero.pins.lgpio")

    class LGPIOFactory:  # gpiozero 2.0.1's constructor, in short
        def __init__(self, chip: int | None = None) -> None:
            self._chip = 0
            self.closed = False

        def close(self) -> None:
            self.closed = True

    old.LGPIOFactory = LGPIOFactory  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", old)
    with pytest.raises(NoGpioBackend, match=r"lgpio: this gpiozero opens gpiochip0 whatever "
                       r"it is asked; gpiochip11 needs gpiozero 2.0.1.post1 or later"):
        open_backend(GpioConfig(backend="lgpio"), model="", finder=finder(chips, "pinctrl-rp1"))


def test_rpigpio_initialisation_failure(fake_modules) -> None:  # type: ignore[no-untyped-def]
    fake_modules(rpigpio=RPI_GPIO_WORKING.replace("pass", "raise RuntimeError('no access')", 1))
    with pytest.raises(HardwareError, match=r"RPi\.GPIO: cannot start: no access"):
        open_backend(GpioConfig(backend="rpigpio"), model=PI4)


def test_pi5_and_chip_settings(fake_modules) -> None:  # type: ignore[no-untyped-def]
    chips = fake_modules(lgpio=WORKING_LGPIO, rpigpio=RPI_GPIO_WORKING)
    with pytest.raises(HardwareError, match="RPi.GPIO: cannot drive a Raspberry Pi 5"):
        open_backend(GpioConfig(backend="rpigpio"), model=PI5)
    with pytest.raises(GpioChipMissing, match="gpiochip4"):
        open_backend(GpioConfig(chip=4), model=PI5, finder=finder(chips))
    (chips / "gpiochip4").touch()
    assert open_backend(GpioConfig(chip=4), model=PI5, finder=finder(chips)).chip == 4
    assert backend_order(GpioConfig(chip=4)) == ("lgpio",)
    assert backend_order(GpioConfig(backend="gpiozero")) == ("lgpio", "rpigpio")


def test_pigpio_is_never_tried(fake_modules, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    fake_modules()
    with pytest.raises(HardwareError) as err:
        open_backend(GpioConfig(backend="gpiozero"), model=PI4)
    assert "pigpio" not in str(err.value)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


# --- lgpio's working directory ----------------------------------------------------------------

RECORDING_LGPIO = """
    import os
    WD = os.environ.get("LG_WD")
    if WD:
        os.chdir(WD)  # what the C library does with LG_WD
    # Like lgpio's notification thread: a pipe file opened relative to the working directory.
    open(".lgd-nfy0", "w").close()
"""


def test_lgpio_is_imported_with_lg_wd_set(fake_modules, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    fake_modules(lgpio=RECORDING_LGPIO)
    runtime = tmp_path / "run"
    runtime.mkdir()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("LG_WD", raising=False)
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(runtime))
    module = import_lgpio()
    assert module.WD == str(runtime)
    assert (runtime / ".lgd-nfy0").exists()
    assert os.getcwd() == str(cwd) and not list(cwd.iterdir())


def test_an_explicit_lg_wd_is_kept(fake_modules, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    fake_modules(lgpio=RECORDING_LGPIO)
    mine = tmp_path / "mine"
    mine.mkdir()
    monkeypatch.setenv("LG_WD", str(mine))
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(tmp_path))
    assert import_lgpio().WD == str(mine)


def test_the_real_lgpio_keeps_its_pipe_in_the_runtime_directory(tmp_path: Path) -> None:
    """The real lgpio module (the test extra installs its wheel): imported through
    import_lgpio from a working directory it must not touch, its notification pipe lands in
    the runtime directory; off a Pi, opening the chip is a reason, not a crash."""
    import importlib.util
    import subprocess

    if importlib.util.find_spec("lgpio") is None:
        pytest.skip("lgpio is not installed (pip install -e '.[test]' installs it)")
    runtime, cwd = tmp_path / "run", tmp_path / "cwd"
    runtime.mkdir()
    cwd.mkdir()
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k not in ("LG_WD", "XDG_RUNTIME_DIR")}
    env.update(RUNTIME_DIRECTORY=str(runtime), PYTHONPATH=str(root))
    code = ("import os\n"
            "from hw.gpio import import_lgpio, open_backend\n"
            "from hw.config import GpioConfig\n"
            "import_lgpio()\n"
            "print(os.getcwd())\n"
            "try:\n"
            "    open_backend(GpioConfig(backend='lgpio'), model='')\n"
            "except Exception as exc:\n"
            "    print(exc)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[0] == str(cwd)
    assert [p.name for p in runtime.iterdir()] == [".lgd-nfy0"]
    assert list(cwd.iterdir()) == []
    if not list(Path("/dev").glob("gpiochip*")):
        assert "lgpio: no header gpiochip" in out[1] and "chips: none" in out[1]


# --- the lgpio group scan ---------------------------------------------------------------------


@pytest.mark.parametrize(("size", "wiring"), [(10, "dark"), (8, "dark"), (8, "full")])
def test_group_scan_reads_what_the_pin_scan_reads(size: int, wiring: str) -> None:
    base = default_config(size).matrix
    config = MatrixConfig(wiring=wiring, rows=base.rows, columns=base.columns) \
        if wiring == "dark" else MatrixConfig(wiring="full", rows=base.rows,
                                              columns=(7, 8, 9, 10, 11, 22, 23, 24))
    board = SimulatedBoard.from_config(size, config)
    chip = SimulatedChip(board)
    group = GroupMatrix.from_config(size, config, lgpio=chip)
    pins = board.scanner()
    squares = [sq for sq in group.layout.squares if sq is not None]
    rng = random.Random(size)
    for _ in range(30):
        board.set_pieces(rng.sample(squares, rng.randrange(len(squares))))
        before = chip.calls
        mask = group.scan()
        assert chip.calls - before == 2 * group.layout.rows + 1  # one write + one read a row
        assert group.layout.occupied(mask) == set(board.pieces)
        assert mask == pins.scan()
    pins.close()
    group.close()
    assert chip._handles == {} and chip._claimed == set()


@pytest.mark.parametrize("diodes", [True, False], ids=["diodes", "no-diodes"])
def test_group_scan_follows_the_pin_scan_through_faults_and_bounce(diodes: bool) -> None:
    """Two boards handled alike, one scanned pin by pin, one by lgpio's groups over the
    simulated chip (its cached answers): every scan reads the same, through pieces moved,
    switches stuck and repaired, columns shorted and contacts bouncing reading by reading."""
    config = default_config(10).matrix
    by_pins = SimulatedBoard.from_config(10, config, diodes=diodes)
    by_groups = SimulatedBoard.from_config(10, config, diodes=diodes)
    pins = by_pins.scanner()
    chip = SimulatedChip(by_groups)
    group = GroupMatrix.from_config(10, config, lgpio=chip)
    squares = [sq for sq in group.layout.squares if sq is not None]
    rng = random.Random(7)
    changes = 0
    for step in range(400):
        op = rng.randrange(6)
        sq = rng.choice(squares)
        for board in (by_pins, by_groups):
            if op == 0:
                board.place(sq)
            elif op == 1:
                board.lift(sq)
            elif op == 2:
                board.stick(sq, [True, False, None][step % 3])
            elif op == 3:
                board.short_column(step % 5, step % 2 == 0)
            elif op == 4:
                board.bounce(sq, [bool(step >> k & 1) for k in range(step % 4 + 1)])
        for _ in range(rng.randrange(1, 4)):
            expected = pins.scan()
            assert group.scan() == expected, f"step {step}"
        changes += expected != 0
    assert changes > 100  # the boards were not empty all along
    pins.close()
    group.close()
    # Freed, the row pins hold the levels last written: every row released (high).
    assert all(pin.state for pin in by_groups._rows)
    assert by_groups._driven_mask == 0


def test_a_group_of_some_rows_goes_pin_by_pin() -> None:
    """Only the group of all the board's rows is written as the board's driven rows; any
    other group (here the first five rows alone) sets its pins one by one and still reads
    right."""
    config = default_config(10).matrix
    board = SimulatedBoard.from_config(10, config)
    chip = SimulatedChip(board)
    handle = chip.gpiochip_open(0)
    rows, cols = list(config.rows), list(config.columns)
    chip.group_claim_output(handle, rows[:5], [1] * 5)
    chip.group_claim_output(handle, rows[5:], [1] * 5)
    chip.group_claim_input(handle, cols, chip.SET_PULL_UP)
    board.place("c1")  # row 0, column 1
    assert chip.group_read(handle, cols[0]) == [5, 0b11111]  # no row driven
    chip.group_write(handle, rows[0], 0b11110, 0b11111)  # row 0 driven low
    assert board._rows[0].state is False and board._driven_mask == 1
    assert chip.group_read(handle, cols[0]) == [5, 0b11101]
    chip.group_write(handle, rows[0], 0b11111, 0b11111)
    assert chip.group_read(handle, cols[0]) == [5, 0b11111]


def test_group_matrix_faults_and_claim_errors() -> None:
    from hw.diagnose import find_faults

    config = default_config(10).matrix
    board = SimulatedBoard.from_config(10, config)
    chip = SimulatedChip(board)
    group = GroupMatrix.from_config(10, config, lgpio=chip)
    board.short_column(3)
    board.stick("a1", True)
    faults = {f.kind: f for f in find_faults(group, expected=set())}
    assert "column 3 (GPIO26)" in faults["column-short"].message
    assert faults["stuck-closed"].squares == ("a1",)
    with pytest.raises(HardwareError, match="cannot claim the sensor matrix pins.*busy"):
        GroupMatrix.from_config(10, config, lgpio=chip)  # the lines are taken
    group.close()
    with pytest.raises(HardwareError, match="/dev/gpiochip4.*can not open gpiochip"):
        GroupMatrix.from_config(10, config, chip=4, lgpio=chip)
    assert chip._handles == {}


def _raising(*args: object) -> None:
    raise AssertionError("the scan called lgpio's wrappers")


def test_the_scan_calls_lgpios_extension_when_it_answers_as_the_wrappers() -> None:
    """lgpio's module functions wrap the C functions of ``lgpio._lgpio``: the scan calls these
    itself (a third of the Python per scan), having tried that they answer as the wrappers
    do; any other extension (missing, answering otherwise, raising) leaves it the wrappers."""
    config = default_config(10).matrix
    for variant in ("c", "none", "different", "raising"):
        board = SimulatedBoard.from_config(10, config)
        chip = SimulatedChip(board)
        if variant == "none":
            del chip._lgpio
        elif variant == "different":  # a status other than the group's size
            chip._lgpio._group_write = lambda *a: 0
        elif variant == "raising":
            chip._lgpio._group_read = _raising
        group = GroupMatrix.from_config(10, config, lgpio=chip)
        assert group.direct is (variant == "c"), variant
        if variant == "c":
            chip.group_write = chip.group_read = _raising  # type: ignore[method-assign]
        board.set_pieces(["a1", "e5", "j10"])
        before = chip.calls
        assert group.layout.occupied(group.scan()) == {"a1", "e5", "j10"}, variant
        assert chip.calls - before == 21 or variant == "different"
        group.close()


@pytest.mark.parametrize("direct", [True, False], ids=["extension", "wrappers"])
def test_a_failing_lgpio_call_is_a_hardware_error_naming_it(direct: bool) -> None:
    """A call failing mid-scan (a status from the extension, lgpio.error from a wrapper) is a
    HardwareError with lgpio's reason, never a reading."""
    config = default_config(10).matrix
    board = SimulatedBoard.from_config(10, config)
    chip = SimulatedChip(board)
    if not direct:
        del chip._lgpio
    group = GroupMatrix.from_config(10, config, lgpio=chip)
    assert group.direct is direct
    chip.gpiochip_close(group._handle)  # closed behind the scanner's back
    with pytest.raises(HardwareError) as err:
        group.scan()
    message = str(err.value)
    assert "sensor matrix on /dev/gpiochip0" in message and "unknown handle" in message
    if direct:
        assert "lgpio cannot select a row: unknown handle (-5)" in message


def test_the_real_lgpio_extension_answers_with_statuses() -> None:
    """What the scan's direct calls rely on, asked of the real lgpio (its wheel, no chip
    needed): ``lgpio._lgpio`` has the group write and read, a failure is a negative status
    (the read's first item), never an exception, and ``error_text`` names it."""
    import importlib.util
    import subprocess

    if importlib.util.find_spec("lgpio") is None:
        pytest.skip("lgpio is not installed (pip install -e '.[test]' installs it)")
    root = Path(__file__).resolve().parents[2]
    code = ("from hw.gpio import import_lgpio\n"
            "lg = import_lgpio()\n"
            "c = lg._lgpio\n"
            "w = c._group_write(0xFFFF, 4, 0, 1)\n"
            "r = c._group_read(0xFFFF, 4)\n"
            "print(w, type(r).__name__, len(r), r[0], lg.error_text(w))\n")
    env = dict(os.environ, PYTHONPATH=str(root), RUNTIME_DIRECTORY=str(root / ".pytest_cache"))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=60, cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split(maxsplit=5) == ["-5", "list", "2", "-5", "unknown", "handle\n"]


def test_open_matrix_on_lgpio_scans_by_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    from hw.assemble import open_matrix

    config = default_config(10)
    board = SimulatedBoard.from_config(10, config.matrix)
    chip = SimulatedChip(board)
    monkeypatch.setitem(sys.modules, "lgpio", chip)  # type: ignore[arg-type]
    backend = GpioBackend("lgpio", board.factory, chip=0)
    matrix, sim = open_matrix(config, backend=backend)
    assert isinstance(matrix, GroupMatrix) and sim is None and matrix.backend is backend
    board.place("e5")
    assert matrix.layout.occupied(matrix.scan()) == {"e5"}
    matrix.close()


# --- buttons ------------------------------------------------------------------------------------

S = 1_000_000_000


def test_kernel_time_recognises_the_stamp_clock() -> None:
    now, wall = 500 * S, 1_700_000_000 * S
    assert kernel_time((now - 2_000_000) / 1e9, now, wall) == now - 2_000_000  # since boot
    assert kernel_time((wall - 3_000_000) / 1e9, now, wall) == pytest.approx(
        now - 3_000_000, abs=1_000)  # since the Epoch (early kernels), float precision
    assert kernel_time((now - 5 * S) / 1e9, now, wall) == now  # stale: the handler's time
    assert kernel_time((now + S) / 1e9, now, wall) == now  # from the future: never trusted


def test_lgpio_buttons_take_the_kernel_stamp() -> None:
    factory = MockFactory()
    now = [100 * S]
    presses: list[int] = []
    button = StampedButton(14, clock=lambda: now[0], on_press=presses.append,
                           pin_factory=factory, kernel_stamps=True, wall=lambda: 0)
    # lgpio's alert, as gpiozero's LGPIOPin passes it on: ticks in seconds, level low
    button._pin_changed((now[0] - 7_000_000) / 1e9, False)
    assert presses == [now[0] - 7_000_000]
    button.close()


def test_polled_buttons(mock_factory: MockFactory) -> None:
    now = [10 * S]
    buttons = PolledButtons({"white": 14, "black": 15, "pause": 0}, clock=lambda: now[0],
                            pin_factory=mock_factory, start=False)
    white = mock_factory.pin(14)
    white.drive_low()
    buttons.sample()
    now[0] += 5_000_000
    white.drive_high()  # bounce within the lockout: not a second press
    buttons.sample()
    now[0] += 5_000_000
    white.drive_low()
    buttons.sample()
    now[0] += S
    white.drive_high()
    buttons.sample()
    mock_factory.pin(15).drive_low()
    now[0] += S
    buttons.sample()
    assert [(p.name, p.at) for p in buttons.poll()] == [("white", 10 * S),
                                                         ("black", 10 * S + 2 * S + 10_000_000)]
    assert buttons.poll() == []
    buttons.close()


def test_open_buttons_follows_the_backend(mock_factory: MockFactory) -> None:
    polled = open_buttons(ButtonsConfig(), GpioBackend("rpigpio", mock_factory, edges=False))
    assert isinstance(polled, PolledButtons)
    polled.close()
    edged = open_buttons(ButtonsConfig(), GpioBackend("lgpio", mock_factory, chip=0))
    assert isinstance(edged, ClockButtons)
    assert all(b._kernel_stamps for b in edged.buttons.values())
    edged.close()


@pytest.mark.parametrize(("backend", "scanner"), [("auto", GroupMatrix), ("lgpio", GroupMatrix),
                                                  ("rpigpio", ReedMatrix)])
def test_the_simulated_board_scans_as_the_configured_pi_would(backend: str,
                                                               scanner: type) -> None:
    """``--sim`` runs the scanner the config's backend order starts with: lgpio's group scan
    (a Pi's default) or the gpiozero pin scan (RPi.GPIO); both read the simulated board."""
    import dataclasses

    from boardctl.service.hardware import sim_hardware
    from hw.assemble import open_matrix

    config = default_config(10)
    config = dataclasses.replace(config, gpio=dataclasses.replace(config.gpio, backend=backend))
    hw = sim_hardware(10, config)
    try:
        assert isinstance(hw.scanner.matrix, scanner)
        hw.sim.place("e5")
        assert hw.scanner.matrix.layout.occupied(hw.scanner.matrix.scan()) == {"e5"}
    finally:
        hw.close()
    matrix, board = open_matrix(config, sim=True)
    assert isinstance(matrix, scanner) and matrix.backend.name == "mock"
    board.place("a1")
    assert matrix.layout.occupied(matrix.scan()) == {"a1"}
    matrix.close()


def test_a_busy_matrix_pin_is_named_with_its_fix() -> None:
    """hwtest while the service runs, or a line a kernel driver holds (a 1-wire overlay on
    GPIO 4, rank 1): lgpio's group claim says only "GPIO busy". Each pin is then tried alone
    and the held ones named, with what to do; nothing stays claimed by the attempt."""
    config = default_config(10).matrix
    board = SimulatedBoard.from_config(10, config)
    chip = SimulatedChip(board)
    driver = chip.gpiochip_open(0)
    chip.gpio_claim_input(driver, 4)  # what w1-gpio's request of GPIO 4 is to lgpio
    with pytest.raises(HardwareError) as err:
        GroupMatrix.from_config(10, config, lgpio=chip)
    assert str(err.value) == (
        "cannot claim the sensor matrix pins on /dev/gpiochip0 with lgpio: GPIO busy (GPIO4 "
        "held by another program or a kernel driver: boardctl.service, if it runs, holds them "
        "all (sudo systemctl stop boardctl); `gpioinfo` names each line's holder)")
    assert chip._claimed == {4} and set(chip._handles) == {driver}
    chip.gpio_free(driver, 4)
    service = GroupMatrix.from_config(10, config, lgpio=chip)  # the service's scanner
    with pytest.raises(HardwareError) as err:
        GroupMatrix.from_config(10, config, lgpio=chip)  # hwtest beside it
    every = ", ".join(f"GPIO{p}" for p in (*config.rows, *config.columns))
    assert f"GPIO busy ({every} held by another program" in str(err.value)
    assert "\n" not in str(err.value)
    service.close()
    chip.gpiochip_close(driver)
    assert chip._handles == {} and chip._claimed == set()
