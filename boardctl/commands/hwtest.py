"""`boardctl hwtest`: check a board as it is built or repaired.

In order: the sensor matrix is scanned with the board still and every stuck, shorted or
flickering sensor is named (by square, and by GPIO for a shorted line); the LEDs light each
square in turn; both clock faces show 88:88 (every segment lit); then a live view of the
matrix runs, printing each debounced lift and place and each button press, until Ctrl-C, for
--seconds, or not at all (--once). --sim runs it all on the simulated board (--sim-stuck and
--sim-short-column show what faults look like). Exit 0 when no fault was found, 1 when one
was.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from hw.config import BoardConfig
    from hw.gpio import GpioBackend

NS = 1_000_000_000


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``hwtest`` to the subcommands."""
    p = sub.add_parser(
        "hwtest",
        help="test the board's sensors, LEDs, clock faces and buttons",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("--config", help="configuration file (default /etc/boardctl/config.toml)")
    p.add_argument("--sim", action="store_true", help="run on the simulated board")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--once", action="store_true", help="one pass, no live view")
    mode.add_argument("--seconds", type=_seconds, help="live view for this long, then stop")
    p.add_argument("--expect", choices=("empty", "start", "any"), default="empty",
                   help="what stands on the board during the check (default: empty)")
    p.add_argument("--skip", action="append", default=[],
                   choices=("leds", "faces", "buttons", "buzzer"),
                   help="leave out a part (repeatable)")
    p.add_argument("--led-step", type=_seconds, default=0.15, metavar="SECONDS",
                   help="time each square stays lit in the LED walk (default 0.15)")
    p.add_argument("--sim-stuck", action="append", default=[], metavar="SQUARE",
                   help="simulated board: this square's switch is stuck closed")
    p.add_argument("--sim-short-column", type=int, action="append", default=[],
                   metavar="N", help="simulated board: column N is shorted to ground")
    p.set_defaults(func=run)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value < 1e6:
        raise argparse.ArgumentTypeError(f"{text} seconds is out of range")
    return value


def _start_squares(size: int) -> set[str]:
    from firmware.rules.geometry import geometry

    g = geometry(size)
    rows = 4 if size == 10 else 3
    black = range(1, g.half * rows + 1)
    white = range(g.count - g.half * rows + 1, g.count + 1)
    return {g.algebraic(n) for n in (*black, *white)}


def render(layout: Any, occupied: set[str]) -> str:
    """The board from White's side: ``o`` a closed sensor, ``.`` an open one."""
    size = layout.size
    lines = []
    for rank in range(size, 0, -1):
        cells = []
        for f in range(size):
            name = f"{chr(ord('a') + f)}{rank}"
            cells.append(" " if (f + rank - 1) % 2 else ("o" if name in occupied else "."))
        lines.append(f"{rank:>2} {' '.join(cells)}")
    lines.append("   " + " ".join(chr(ord("a") + f) for f in range(size)))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from boardctl.settings import load_config
    from firmware.errors import BoardError
    from hw.assemble import open_matrix
    from hw.debounce import Debouncer
    from hw.diagnose import find_faults

    config = load_config(args.config).hardware
    out = sys.stdout
    m = config.matrix
    print(f"board {config.size}x{config.size}, {m.wiring} wiring: rows (rank 1 up) GPIO "
          f"{', '.join(map(str, m.rows))}; columns GPIO {', '.join(map(str, m.columns))}",
          file=out)
    expected = {"empty": set(), "start": _start_squares(config.size), "any": None}[args.expect]
    matrix, board = open_matrix(config, sim=args.sim)
    backend = matrix.backend
    if board is not None:
        _simulated_faults(board, args, expected, matrix.layout.columns)
    faults_found = 0
    closers: list[Any] = [matrix]
    try:
        period = 1.0 / m.scan_hz
        faults = find_faults(matrix, expected, samples=max(20, m.debounce_samples * 4),
                             on_scan=None if args.sim else (lambda: time.sleep(period)))
        for fault in faults:
            print(f"FAULT {fault.kind}: {fault.message}", file=out)
        faults_found = len(faults)
        if not faults:
            sensors = sum(sq is not None for sq in matrix.layout.squares)
            print(f"sensors: no faults ({sensors} sensors, board {args.expect})", file=out)
        print(f"gpio: {backend.name}" + ("" if backend.edges else
                                         " (buttons polled: no edge detection)"), file=out)
        print(f"sensor scan: {_scan_path(matrix)}", file=out)
        from hw.serialport import modem_manager_warning  # the unit cannot see it: here it can
        if warning := modem_manager_warning(config.serial.port):
            print(f"feed: WARNING: {warning}", file=out)
        parts: dict[str, Any] = {}
        for name, test in (("leds", _led_walk), ("faces", _face_test), ("buzzer", _buzzer_test),
                           ("buttons", _buttons)):
            if name in args.skip:
                continue
            try:
                parts[name] = test(config, args, out, backend)
            except BoardError as exc:  # a missing part: named, counted, the rest goes on
                print(f"{name}: MISSING: {exc}", file=out)
                faults_found += 1
            if parts.get(name) is not None:
                closers.append(parts[name])
        buttons = parts.get("buttons")
        debouncer = Debouncer(matrix.layout.squares, m.debounce_samples)
        for _ in range(m.debounce_samples):
            debouncer.feed(matrix.scan(), time.monotonic_ns())
        print(render(matrix.layout, debouncer.occupied()), file=out)
        if not args.once:
            _live(matrix, debouncer, buttons, args.seconds, m.scan_hz, out)
    finally:
        for c in reversed(closers):
            c.close()
    return 1 if faults_found else 0


def _simulated_faults(board: Any, args: argparse.Namespace, expected: set[str] | None,
                      columns: int) -> None:
    """``--sim``: the pieces the test expects, and the faults asked for (``--sim-stuck``,
    ``--sim-short-column``) on the simulated board."""
    from firmware.errors import BoardError, ConfigError

    board.set_pieces(expected or set())
    for sq in args.sim_stuck:
        try:
            board.stick(sq, True)
        except BoardError as exc:
            raise ConfigError(f"--sim-stuck: {exc}") from None
    for c in args.sim_short_column:
        if not 0 <= c < columns:
            raise ConfigError(f"--sim-short-column: no column {c} (0..{columns - 1})")
        board.short_column(c)


def _buttons(config: BoardConfig, args: argparse.Namespace, out: TextIO,
             backend: GpioBackend) -> Any:
    from hw.buttons import open_buttons

    buttons = open_buttons(config.buttons, backend)
    pins = {"white": config.buttons.white, "black": config.buttons.black,
            "pause": config.buttons.pause}
    print("buttons: " + ", ".join(f"{n} GPIO{p}" for n, p in pins.items() if p)
          + (" (press each one)" if not args.once else ""), file=out)
    return buttons


def _spi_clock_check(out: TextIO) -> bool:
    """On a Pi 0-4, say whether config.txt fixes the core clock for SPI LEDs."""
    from pathlib import Path

    from hw.gpio import board_model
    from hw.leds import spi_clock_advice

    model = board_model()
    text = ""
    for path in (Path("/boot/firmware/config.txt"), Path("/boot/config.txt")):
        try:
            text = path.read_text(errors="replace")
            break
        except OSError:
            continue
    advice = spi_clock_advice(model, text)
    if advice:
        print(f"leds: WARNING: {advice}", file=out)
    return advice is None


def _led_walk(config: BoardConfig, args: argparse.Namespace, out: TextIO,
              backend: GpioBackend) -> None:
    from dataclasses import replace

    from hw.assemble import open_strip

    leds = config.leds
    if leds.backend == "none" and not args.sim:
        print("leds: none configured", file=out)
        return
    if leds.backend == "spi" and not args.sim:
        _spi_clock_check(out)
    if args.sim:
        leds = replace(leds, backend="sim")
    strip = open_strip(config.size, leds)
    try:
        count = 0
        for _square in strip.walk():
            count += 1
            if not args.sim and not args.once:
                time.sleep(args.led_step)
        # Nothing answers on a WS2812's data line: a strip that is not connected (or not
        # powered) takes the walk as silently as one that lights. Only the builder can tell.
        print(f"leds: walked {count} squares on {strip.map.count} pixels ({leds.backend}): "
              "did each light in turn, from a1? (an unconnected strip cannot be detected: "
              "look)", file=out)
    finally:
        strip.close()


def _buzzer_test(config: BoardConfig, args: argparse.Namespace, out: TextIO,
                 backend: GpioBackend) -> Any:
    """The buzzer (hw/buzzer.py) sounds its test pattern: two beeps (the buzzer, to close)."""
    from hw.buzzer import GpioBuzzer

    z = getattr(config, "buzzer", None)
    if z is None or not z.pin:
        print("buzzer: none fitted (buzzer.pin = 0)", file=out)
        return None
    factory = backend.factory
    buzzer = GpioBuzzer(z.pin, z.tonal, pin_factory=factory)
    buzzer.sound("test")
    if type(factory).__name__ != "MockFactory":
        time.sleep(0.6)  # let a real buzzer finish before it is closed
    kind = "passive, TonalBuzzer" if z.tonal else "active, Buzzer"
    print(f"buzzer: GPIO{z.pin} ({kind}) beeped twice (heard?)", file=out)
    return buzzer


def _face_test(config: BoardConfig, args: argparse.Namespace, out: TextIO,
               backend: GpioBackend) -> Any:
    from firmware.clock.face import FaceText
    from firmware.rules.sets import Side
    from hw.faces import ClockFaces
    from hw.mock.faces import simulated_faces

    f = config.faces
    if not f.enabled and not args.sim:
        print("faces: disabled in the configuration", file=out)
        return None
    if args.sim:
        faces = simulated_faces(f.white_address, f.black_address, f.brightness)
    else:
        faces = ClockFaces.real(f.i2c_bus, f.white_address, f.black_address, f.brightness)
    for side in (Side.WHITE, Side.BLACK):
        faces.show(side, FaceText("88:88"))
    shown = [f"{side.value} 0x{faces.addresses[side]:02x} {faces.shown(side).text}"
             for side in (Side.WHITE, Side.BLACK)]
    print(f"faces: {'; '.join(shown)} (all segments lit?)", file=out)
    return faces


def _live(matrix: Any, debouncer: Any, buttons: Any, seconds: float | None, hz: float,
          out: Any) -> None:
    """Scan at ``hz`` until Ctrl-C or ``seconds``: on a terminal, the board redrawn in place
    with the latest events under it; otherwise one line per event."""
    from collections import deque

    tty = bool(getattr(out, "isatty", lambda: False)())
    start = time.monotonic_ns()
    end = None if seconds is None else start + int(seconds * NS)
    period = int(NS / hz)
    next_at = start
    recent: deque[str] = deque(maxlen=8)
    title = "live view: lift and put down pieces, press the buttons" + (
        ", Ctrl-C to stop" if end is None else "")
    print(title, file=out)
    try:
        while end is None or time.monotonic_ns() < end:
            lines = [f"{(e.at - start) / NS:8.3f}s {e.kind:5} {e.square}"
                     for e in debouncer.feed(matrix.scan(), time.monotonic_ns())]
            if buttons is not None:
                lines += [f"{(p.at - start) / NS:8.3f}s press {p.name}" for p in buttons.poll()]
            if lines and tty:
                recent.extend(lines)
                out.write("\x1b[H\x1b[J" + title + "\n"
                          + render(matrix.layout, debouncer.occupied()) + "\n"
                          + "\n".join(recent) + "\n")
                out.flush()
            elif lines:
                print("\n".join(lines), file=out, flush=True)
            next_at += period
            delay = next_at - time.monotonic_ns()
            if delay > 0:
                time.sleep(delay / NS)
            else:
                next_at = time.monotonic_ns()
    except KeyboardInterrupt:
        pass
    if not tty:
        print(render(matrix.layout, debouncer.occupied()), file=out)


def _scan_path(matrix: Any) -> str:
    """How the matrix is scanned (hw/README.md, Timing)."""
    direct = getattr(matrix, "direct", None)
    if direct is None:
        return "pin by pin through gpiozero"
    how = "to its C extension" if direct else "through its module's wrappers"
    simulated = type(getattr(matrix, "_lg", None)).__name__ == "SimulatedChip"
    return f"lgpio group calls, {how}" + (" (a simulated chip's)" if simulated else "")
