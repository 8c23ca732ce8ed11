"""The unit, the udev rule, the sysusers file and install.sh: checked with systemd's and
shellcheck's own tools where this machine has them (skipped otherwise, failing under CI=true),
and install.sh's plan read from its --dry-run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYSTEMD = ROOT / "systemd"
UNIT = SYSTEMD / "boardctl.service"
INSTALL = SYSTEMD / "install.sh"
#: What `systemd-analyze security` rated the unit before the Pi work (systemd/README.md).
EXPOSURE_BEFORE = 1.0


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is missing (apt install {name.replace('-analyze', '')})")
        pytest.skip(f"{name} is not installed")
    return path


def _unit_copy(tmp_path: Path) -> Path:
    """The unit with ExecStart on an executable that exists here (verify checks it)."""
    boardctl = shutil.which("boardctl") or "/bin/true"
    copy = tmp_path / "boardctl.service"
    copy.write_text(UNIT.read_text().replace("/usr/local/bin/boardctl", boardctl))
    return copy


def test_unit_verifies(tmp_path: Path) -> None:
    analyze = _tool("systemd-analyze")
    # --man=no: whether this machine has the man pages the unit names is not the unit's fault
    proc = subprocess.run([analyze, "verify", "--man=no", str(_unit_copy(tmp_path))],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "boardctl.service" not in proc.stderr, proc.stderr


def test_unit_security_no_worse(tmp_path: Path) -> None:
    analyze = _tool("systemd-analyze")
    proc = subprocess.run([analyze, "security", "--offline=true", "--no-pager",
                           str(_unit_copy(tmp_path))], capture_output=True, text=True,
                          timeout=60)
    found = re.search(r"Overall exposure level for boardctl\.service: ([0-9.]+)", proc.stdout)
    assert found, proc.stdout + proc.stderr
    assert float(found.group(1)) <= EXPOSURE_BEFORE


def _unit_values(key: str) -> list[str]:
    return [line.split("=", 1)[1] for line in UNIT.read_text().splitlines()
            if line.startswith(f"{key}=")]


def test_unit_waits_for_no_chip_number_and_sets_lg_wd() -> None:
    """The header chip's number moves with the kernel: the unit waits for no device unit
    (dev-gpiochip0.device never appears where the chip is gpiochip11-15); boardctl finds the
    chip by label and waits for it itself, within the start timeout; a Pi without it yet
    exits with a status systemd restarts on, only "no GPIO library / not a Pi" with 69."""
    text = UNIT.read_text()
    assert "gpiochip0.device" not in text and "systemd-udev-settle" not in text
    from hw.gpio import CHIP_WAIT_S, EXIT_NO_GPIO

    assert _unit_values("RestartPreventExitStatus") == [str(EXIT_NO_GPIO)]
    assert _unit_values("Restart") == ["on-failure"]
    assert float(_unit_values("TimeoutStartSec")[0]) >= CHIP_WAIT_S + 10
    # restarts of a chip-less Pi (each one waits CHIP_WAIT_S) stay under the start limit
    burst, interval = int(_unit_values("StartLimitBurst")[0]), \
        float(_unit_values("StartLimitIntervalSec")[0])
    assert interval / (CHIP_WAIT_S + float(_unit_values("RestartSec")[0])) < burst
    env = " ".join(_unit_values("Environment"))
    assert "LG_WD=%t/boardctl" in env
    assert _unit_values("RuntimeDirectory") == ["boardctl"]  # %t/boardctl is made for it
    rules = (SYSTEMD / "99-boardctl.rules").read_text()
    assert re.search(r'SUBSYSTEM=="gpio", KERNEL=="gpiochip\*", GROUP="gpio"', rules)
    # ... applied at install to the chips there already, where udev runs at all
    script = INSTALL.read_text()
    reload, trigger = script.index("udevadm control --reload"), script.index("udevadm trigger")
    assert script.index("command -v udevadm") < reload < trigger
    assert trigger < script.index("systemctl restart boardctl")
    assert "--subsystem-match=gpio" in script[trigger:trigger + 200]


#: The kernel module that registers each device group (/proc/devices) the unit allows, where
#: Raspberry Pi OS's kernel builds it as a module (its defconfigs: CONFIG_SPI_SPIDEV,
#: CONFIG_I2C_CHARDEV, CONFIG_USB_SERIAL, CONFIG_USB_ACM =m): spidev.c registers "spi",
#: i2c-dev.c "i2c", usb-serial.c's tty driver "ttyUSB", cdc-acm.c "ttyACM".
MODULE_OF_GROUP = {"spi": "spidev", "i2c": "i2c_dev", "ttyUSB": "usbserial",
                   "ttyACM": "cdc_acm"}
#: Built into those kernels (=y): gpiolib, the 8250 mini UART, the PL011 UART.
BUILT_IN_GROUPS = {"gpiochip", "ttyS", "ttyAMA"}


def test_device_groups_exist_when_the_unit_starts() -> None:
    """systemd resolves DeviceAllow=char-NAME once, at the unit's start, from /proc/devices
    (systemd PR #14504, systemd.resource-control(5)): a group whose module is loaded later
    (spidev by udev during boot, a USB serial adapter plugged in later) was denied until a
    restart (EPERM: the strip, the faces or the feed "missing"). Each allowed group is built
    in, or its module is loaded first (Wants= and After= modprobe@MODULE.service); ttyGS's
    u_serial comes with g_serial from /etc/modules-load.d (hw/README.md step 4), loaded
    before any service (systemd-modules-load.service, sysinit.target)."""
    groups = [value.split()[0].removeprefix("char-") for value in _unit_values("DeviceAllow")
              if value.startswith("char-")]
    assert set(groups) >= {"gpiochip", "spi", "i2c", "ttyGS", "ttyUSB", "ttyACM"}
    wants = " ".join(_unit_values("Wants")).split()
    after = " ".join(_unit_values("After")).split()
    for group in groups:
        if group in BUILT_IN_GROUPS:
            continue
        if group == "ttyGS":
            readme = (ROOT / "hw" / "README.md").read_text()
            assert "/etc/modules-load.d/boardctl-gadget.conf" in readme and "g_serial" in readme
            continue
        unit = f"modprobe@{MODULE_OF_GROUP[group]}.service"
        assert unit in wants and unit in after, f"char-{group}: {unit} not before the unit"


def test_user_and_groups_agree() -> None:
    sysusers = (SYSTEMD / "boardctl.sysusers").read_text().splitlines()
    members = {line.split()[2] for line in sysusers if line.startswith("m boardctl ")}
    assert members == set(_unit_values("SupplementaryGroups")[0].split())
    assert _unit_values("User") == ["boardctl"] and _unit_values("Group") == ["boardctl"]
    script = INSTALL.read_text()
    assert re.search(r"for group in " + " ".join(sorted(members, key=["gpio", "spi", "i2c",
                                                                      "dialout"].index)),
                     script)
    assert "useradd" not in script  # the one definition of the user is boardctl.sysusers


def test_install_script_passes_shellcheck() -> None:
    shellcheck = _tool("shellcheck")
    proc = subprocess.run([shellcheck, str(INSTALL)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stdout


def _listing(top: Path) -> set[str]:
    """The checkout's top level and systemd/ (where pip's build/, dist/ and *.egg-info, or a
    stray file of the script, would appear); hidden caches of concurrent tests left out."""
    return {str(p.relative_to(top)) for d in (top, top / "systemd") for p in d.iterdir()
            if not p.name.startswith(".")}


def test_install_dry_run_plan(tmp_path: Path) -> None:
    before = _listing(ROOT)
    # a venv of its own: a machine where install.sh ran already has /opt/boardctl, and the
    # plan then (rightly) makes no venv
    venv_dir = tmp_path / "venv"
    proc = subprocess.run(["sh", str(INSTALL), "--dry-run", "--no-start"], capture_output=True,
                          text=True, timeout=60,
                          env=dict(os.environ, SUDO_USER="pi", BOARDCTL_VENV=str(venv_dir)))
    v = re.escape(str(venv_dir))
    assert proc.returncode == 0, proc.stderr
    plan = [line[2:] for line in proc.stdout.splitlines() if line.startswith("+ ")]

    def step(pattern: str) -> int:
        hits = [i for i, cmd in enumerate(plan) if re.search(pattern, cmd)]
        assert hits, f"no step matches {pattern!r} in:\n" + "\n".join(plan)
        return hits[0]

    # without apt-get (not Debian) the script says so and goes on with the venv
    apt = step(r"^apt-get install .*python3-dev gcc$") if shutil.which("apt-get") \
        else -1
    venv = step(rf"^python3 -m venv .*--system-site-packages {v}$")
    pip = step(rf"^{v}/bin/pip install .*--upgrade /tmp/boardctl-install\.\w+\[pi\]$")
    link = step(rf"^ln -sfn {v}/bin/boardctl /usr/local/bin/boardctl$")
    users = step(r"^systemd-sysusers /usr/lib/sysusers\.d/boardctl\.conf$")
    member = step(r"^usermod -aG boardctl pi$")
    enable = step(r"^systemctl enable boardctl\.service$")
    assert apt < venv < pip < link < users < member < enable
    assert not any(str(ROOT) + "[pi]" in cmd or "pip install -e" in cmd for cmd in plan)
    assert "not started (--no-start)" in proc.stdout
    assert _listing(ROOT) == before  # nothing written into the checkout
    # Blinka's SPI and I2C are Adafruit_PureIO: no spidev or smbus2 from apt or PyPI
    assert not [cmd for cmd in plan if "spidev" in cmd.split() or "smbus" in cmd]


def test_install_warns_of_an_enabled_modem_manager(tmp_path: Path) -> None:
    """The service cannot see ModemManager (ProtectProc=invisible): the installer asks
    systemd (a stand-in systemctl on PATH saying it is enabled) and warns."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "systemctl"
    fake.write_text('#!/bin/sh\n[ "$1 $3" = "is-enabled ModemManager.service" ] && exit 0\n'
                    'exit 1\n')
    fake.chmod(0o755)
    env = dict(os.environ, BOARDCTL_VENV=str(tmp_path / "venv"))
    runs = {}
    for name, path in (("enabled", f"{bin_dir}:{env['PATH']}"), ("absent", env["PATH"])):
        runs[name] = subprocess.run(["sh", str(INSTALL), "--dry-run", "--no-start"],
                                    capture_output=True, text=True, timeout=60,
                                    env=dict(env, PATH=path))
        assert runs[name].returncode == 0, runs[name].stderr
    assert "WARNING: ModemManager is enabled" in runs["enabled"].stdout
    assert "sudo systemctl disable --now ModemManager" in runs["enabled"].stdout
    assert "ModemManager" not in runs["absent"].stdout or shutil.which("ModemManager")


def test_install_refuses_bad_usage() -> None:
    proc = subprocess.run(["sh", str(INSTALL), "--dry-run", "--bogus"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and "unknown option --bogus" in proc.stderr
    if os.geteuid() != 0:
        proc = subprocess.run(["sh", str(INSTALL), "--no-start"], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 2 and "run as root" in proc.stderr


def test_install_hall_mode_opens_the_network_to_the_broker_only() -> None:
    # docs/HALL.md: the hall drop-in, with the broker's address in place of the example's.
    proc = subprocess.run(["sh", str(INSTALL), "--dry-run", "--no-start",
                           "--hall-broker=10.20.30.40"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    (line,) = [x for x in proc.stdout.splitlines() if "boardctl.service.d/hall.conf" in x]
    allowed = re.findall(r"IPAddressAllow=(\S+)", line)
    assert allowed == ["10.20.30.40", "localhost"]  # the example's 192.168.1.10 is gone
    assert "IPAddressAllow=192.168.1.10" in (SYSTEMD / "hall" / "hall.conf").read_text()
    plain = subprocess.run(["sh", str(INSTALL), "--dry-run", "--no-start"],
                           capture_output=True, text=True, timeout=60)
    assert "hall.conf" not in plain.stdout  # the serial-only install stays locked down


@pytest.mark.parametrize("bad", ["relay-pc.local", "10.0.0.1; rm -rf /", ""])
def test_install_hall_broker_must_be_an_address(bad: str) -> None:
    proc = subprocess.run(["sh", str(INSTALL), "--dry-run", f"--hall-broker={bad}"],
                          capture_output=True, text=True, timeout=60)
    if bad:
        assert proc.returncode == 2 and "broker's IP address" in proc.stderr
    else:  # an empty value is no hall mode, as without the option
        assert proc.returncode == 0 and "hall.conf" not in proc.stdout


def test_install_plan_on_a_pi_builds_lgpio_where_pypi_has_no_wheel(tmp_path: Path) -> None:
    """On a Pi (``uname -m``: aarch64) whose venv has no lgpio yet (no python3-lgpio from
    the Raspberry Pi archive), lgpio is installed before the package, with PYPI=1: its wheel
    where PyPI has one, else (Python 3.13, Debian trixie) its source built with its C library
    inside, which needs swig."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "uname").write_text("#!/bin/sh\necho aarch64\n")
    (fake / "uname").chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}",
               BOARDCTL_VENV=str(tmp_path / "venv"))
    proc = subprocess.run(["sh", str(INSTALL), "--dry-run", "--no-start"], capture_output=True,
                          text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    plan = [line[2:] for line in proc.stdout.splitlines() if line.startswith("+ ")]
    venv = tmp_path / "venv"
    lgpio = plan.index(f"env PYPI=1 {venv}/bin/pip install --disable-pip-version-check "
                       "--no-input --use-pep517 lgpio>=0.2.2.0")
    package = next(i for i, cmd in enumerate(plan) if cmd.endswith("[pi]"))
    assert lgpio < package
    if shutil.which("apt-get") and not shutil.which("swig"):
        assert plan.index("apt-get install -y --no-install-recommends swig") < lgpio
    # off a Pi (this machine, unless it is one) no such step
    plain = subprocess.run(["sh", str(INSTALL), "--dry-run", "--no-start"], capture_output=True,
                           text=True, timeout=60, env=dict(os.environ, PATH=os.environ["PATH"]))
    if os.uname().machine not in ("aarch64", "armv7l"):
        assert "PYPI=1" not in plain.stdout
