#!/bin/sh
# Install (or upgrade) the board service on a Raspberry Pi: Raspberry Pi OS bookworm or later
# (64- or 32-bit), or Debian with systemd. From a checkout:
#
#   sudo ./systemd/install.sh              install everything, start boardctl.service
#   sudo ./systemd/install.sh --no-start   install everything, do not start the service
#   ./systemd/install.sh --dry-run         print the commands it would run, change nothing
#   sudo ./systemd/install.sh --voice      also espeak-ng and alsa-utils (the spoken game,
#                                          docs/VOICE.md); added anyway when the config
#                                          file's [voice] says enabled = true
#   sudo ./systemd/install.sh --hall-broker=192.168.1.10
#                                          also the hall mode (docs/HALL.md): the drop-in
#                                          systemd/hall/hall.conf, opening the network to
#                                          that broker address only
#   sudo ./systemd/install.sh --page       also the board's own page (docs/PAGE.md): the
#                                          drop-in systemd/page/page.conf, opening the
#                                          network to the home network's private addresses
#
# In order: system packages (apt: python3-venv, python3-dev and gcc for what pip builds,
# python3-lgpio where the archive has it: Raspberry Pi OS); a venv in $VENV that sees those
# system packages (--system-site-packages);
# elsewhere lgpio from its wheel on PyPI, or for a Python it has no wheel for (3.13: Debian
# trixie) built from its source with swig; the package (distribution "kabelaud") with
# its Pi extras, built from a copy of the checkout in a temporary directory (nothing
# root-owned is left in the checkout); /usr/local/bin/boardctl, on every user's PATH; the
# "boardctl" user and group (boardctl.sysusers) in gpio, spi, i2c and dialout; the udev rule;
# /etc/boardctl/config.toml unless one exists; boardctl.service enabled (and started); a
# warning if ModemManager is enabled (it probes serial ports: the feed's).
# Run it again to upgrade: every step is idempotent.
#
# The hall drop-in, once installed, stays through upgrades; --hall-broker=ADDRESS installs or
# updates it (ADDRESS: an IPv4 or IPv6 address or prefix; put the [broker] section in the
# config file too). So does the page's; --page installs or updates it (put the [http]
# section in the config file too).
#
# Exit status: 0 installed (and running, unless --no-start); 1 an install step failed;
# 2 bad usage; 3 installed, but the service does not run (its reason is printed: on a
# machine without the board's hardware, the sensor matrix it cannot start without).
set -eu

VENV=${BOARDCTL_VENV:-/opt/boardctl}
BIN=/usr/local/bin/boardctl
CONFIG=${BOARDCTL_CONFIG:-/etc/boardctl/config.toml}
UNIT=/etc/systemd/system/boardctl.service
# Blinka's SPI and I2C are Adafruit_PureIO (pure Python, from PyPI): no spidev, no smbus2.
APT_PACKAGES="python3 python3-venv python3-pip python3-dev gcc"

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
start=yes
dry=no
voice=no
hall=""
page=no
for arg in "$@"; do
    case $arg in
        --no-start) start=no ;;
        --voice) voice=yes ;;
        --dry-run) dry=yes ;;
        --hall-broker=*) hall=${arg#--hall-broker=} ;;
        --page) page=yes ;;
        -h|--help) sed -n '2,/^set -eu$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option $arg (use --no-start, --dry-run, --voice," \
                "--hall-broker=ADDRESS, --page)" >&2; exit 2 ;;
    esac
done
if [ -n "$hall" ] && ! printf '%s' "$hall" | grep -Eq '^[0-9A-Fa-f:.]+(/[0-9]{1,3})?$'; then
    echo "install.sh: --hall-broker=$hall: give the broker's IP address (or prefix)," \
         "e.g. --hall-broker=192.168.1.10" >&2
    exit 2
fi

say() { echo "install.sh: $*"; }
# run CMD...: run it, or with --dry-run print it.
run() {
    if [ "$dry" = yes ]; then
        echo "+ $*"
    else
        "$@"
    fi
}

if [ "$dry" = no ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run as root: sudo $0 $*" >&2
    exit 2
fi
if [ ! -f "$top/pyproject.toml" ] || [ ! -f "$top/hw/config.example.toml" ]; then
    echo "install.sh: $top is not a boardctl checkout" >&2
    exit 2
fi

# The spoken game's programs when the config turns the voice on ([voice] enabled = true).
if [ -f "$CONFIG" ] && awk '/^[[:space:]]*\[/ { s = ($0 ~ /^[[:space:]]*\[voice\][[:space:]]*(#.*)?$/) }
        s && /^[[:space:]]*enabled[[:space:]]*=[[:space:]]*true/ { f = 1 }
        END { exit !f }' "$CONFIG"; then
    voice=yes
fi
[ "$voice" = yes ] && APT_PACKAGES="$APT_PACKAGES espeak-ng alsa-utils"

# 1. System packages.
if command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086  # the package list is split on purpose
    if ! run apt-get install -y --no-install-recommends $APT_PACKAGES; then
        say "apt-get install failed; updating the package lists and trying again"
        run apt-get update
        # shellcheck disable=SC2086
        run apt-get install -y --no-install-recommends $APT_PACKAGES
    fi
    if apt-cache show python3-lgpio >/dev/null 2>&1; then
        run apt-get install -y --no-install-recommends python3-lgpio
    else
        say "python3-lgpio is not in this system's archive (it is Raspberry Pi OS's): lgpio" \
            "comes from PyPI instead (its wheel, or its source built where no wheel fits)"
    fi
else
    say "no apt-get: install Python 3.11+ with venv and headers (python3-dev) yourself"
fi
run python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "install.sh: boardctl needs Python 3.11 or later ($(python3 --version 2>&1))" >&2
    exit 1
}

# 2. The venv, seeing apt's python3-* packages. A venv made without them is made again.
if [ -f "$VENV/pyvenv.cfg" ] && ! grep -q '^include-system-site-packages = true' "$VENV/pyvenv.cfg"; then
    say "$VENV was made without --system-site-packages: making it again"
    run python3 -m venv --clear --system-site-packages "$VENV"
elif [ ! -x "$VENV/bin/python" ]; then
    run python3 -m venv --system-site-packages "$VENV"
fi

# 3. lgpio, the GPIO backend, where the Pi extras want it (armv7l, aarch64): apt's
# python3-lgpio (Raspberry Pi OS), which the venv sees, else its wheel on PyPI. PyPI has wheels
# for Python 3.9-3.12 only; for a later Python (Debian trixie's 3.13) lgpio's source is built
# with its C library inside (PYPI=1 is lgpio's setup.py switch for that; it needs swig).
case $(uname -m) in
    aarch64|armv7l)
        if ! "$VENV/bin/python" -c 'import importlib.metadata as m; m.version("lgpio")' \
                >/dev/null 2>&1; then
            if command -v apt-get >/dev/null 2>&1 && ! command -v swig >/dev/null 2>&1 \
                    && ! "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info >= (3, 13))' \
                    2>/dev/null; then
                run apt-get install -y --no-install-recommends swig
            fi
            run env PYPI=1 "$VENV/bin/pip" install --disable-pip-version-check --no-input \
                --use-pep517 "lgpio>=0.2.2.0"
        fi ;;
esac

# 4. The package with its Pi extras, built from a copy: pip's build/ and *.egg-info stay there.
# --use-pep517: sources without a pyproject.toml (RPi.GPIO, lgpio) are built with setuptools
# fetched for the build, not with whatever the system has (a venv of Python 3.12 or later has
# none of its own).
build=$(mktemp -d /tmp/boardctl-install.XXXXXX)
trap 'rm -rf "$build"' EXIT
tar -C "$top" --exclude=./.git --exclude=./.venv --exclude='*.egg-info' --exclude=./build \
    --exclude=./dist --exclude='__pycache__' -cf - . | tar -C "$build" -xf -
run "$VENV/bin/pip" install --disable-pip-version-check --no-input --use-pep517 --upgrade \
    "${build}[pi]"
run ln -sfn "$VENV/bin/boardctl" "$BIN"

# 5. The service's user and group, device access, configuration, unit.
for group in gpio spi i2c dialout audio; do
    getent group "$group" >/dev/null || run groupadd --system "$group"
done
run install -D -m 0644 "$here/boardctl.sysusers" /usr/lib/sysusers.d/boardctl.conf
run systemd-sysusers /usr/lib/sysusers.d/boardctl.conf
if [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
    # The installing user may use the control socket (boardctl status) from the next login.
    run usermod -aG boardctl "$SUDO_USER"
fi
run install -D -m 0644 "$here/99-boardctl.rules" /etc/udev/rules.d/99-boardctl.rules
if [ ! -e "$CONFIG" ]; then
    run install -D -m 0644 "$top/hw/config.example.toml" "$CONFIG"
    say "edit $CONFIG for your board's pins, LEDs and feed port (hw/README.md)"
fi
run install -D -m 0644 "$here/boardctl.service" "$UNIT"
run install -D -m 0644 "$here/README.md" /usr/local/share/doc/boardctl/systemd/README.md
if [ -n "$hall" ]; then
    # The hall mode: the drop-in with the broker's address in place of the example's.
    dropin=/etc/systemd/system/boardctl.service.d/hall.conf
    content=$(sed "s|^IPAddressAllow=192\.168\.1\.10\$|IPAddressAllow=$hall|" \
              "$here/hall/hall.conf")
    if [ "$dry" = yes ]; then
        echo "+ install -D -m 0644 /dev/stdin $dropin  <<" \
             "$(printf '%s\n' "$content" | grep '^IPAddressAllow=' | tr '\n' ' ')"
    else
        printf '%s\n' "$content" | install -D -m 0644 /dev/stdin "$dropin"
    fi
    say "hall mode: the network is open to $hall only; put [broker] url, hall and board in $CONFIG"
fi
if [ "$page" = yes ]; then
    # The board's own page: the drop-in as it is (the home network's private addresses).
    run install -D -m 0644 "$here/page/page.conf" /etc/systemd/system/boardctl.service.d/page.conf
    say "the board's page: the network is open to private addresses only; put [http] listen" \
        "(and password_file) in $CONFIG, then boardctl status prints the page's address"
fi
run systemctl enable boardctl.service

# 6. Start, and say plainly whether it runs.
booted=no
[ -d /run/systemd/system ] && booted=yes
if [ "$booted" = yes ] && command -v udevadm >/dev/null 2>&1; then
    run udevadm control --reload || true
    # The new rules for the devices there now, not only from the next boot: the device
    # groups of a plain Debian (the service's user reaches the GPIO chip through "gpio").
    run udevadm trigger --action=change --subsystem-match=gpio --subsystem-match=spidev \
        --subsystem-match=i2c-dev || true
    run udevadm settle --timeout=10 || true
elif [ "$booted" = yes ]; then
    say "no udevadm here (no udev: a container?): the device rules apply where udev runs"
fi
[ "$booted" = yes ] && run systemctl daemon-reload
# ModemManager sends AT commands to serial ports as they appear (USB gadget and USB serial
# above all): the feed's readers would see them. The service cannot see it (ProtectProc).
if systemctl is-enabled --quiet ModemManager.service 2>/dev/null \
        || systemctl is-active --quiet ModemManager.service 2>/dev/null; then
    say "WARNING: ModemManager is enabled and probes serial ports (the feed's): disable it" \
        "with: sudo systemctl disable --now ModemManager"
fi
if [ "$start" = no ]; then
    say "installed; not started (--no-start). Start it: sudo systemctl start boardctl"
    exit 0
fi
if [ "$booted" = no ]; then
    say "installed; systemd is not running here, so boardctl.service starts at the next boot"
    exit 0
fi
run systemctl restart boardctl.service || true
[ "$dry" = yes ] && exit 0
sleep 3
if systemctl is-active --quiet boardctl.service; then
    say "boardctl.service is running. Arbiters: sudo usermod -aG boardctl USER, then" \
        "'boardctl status'."
    exit 0
fi
reason=$(journalctl -u boardctl.service -b -n 20 -o cat --no-pager 2>/dev/null \
         | grep 'boardctl: error:' | tail -n 1)
say "installed, but boardctl.service does not run: ${reason:-see journalctl -u boardctl}"
say "check the board with 'boardctl hwtest' (hw/README.md, first power-on)"
exit 3
