#!/bin/sh
# Install the board service on a Raspberry Pi (Raspberry Pi OS / Debian with systemd).
#
#   sudo systemd/install.sh            install boardctl, its user and unit; start it
#   sudo systemd/install.sh --no-start install only
#
# What it does, in order: installs the package with its Pi extras into /opt/boardctl (a venv)
# and links /usr/local/bin/boardctl; creates the "boardctl" user and group (systemd-sysusers)
# and puts it in gpio, spi, i2c and dialout; copies the example configuration to
# /etc/boardctl/config.toml unless one exists; installs and enables boardctl.service.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
start=yes
[ "${1:-}" = "--no-start" ] && start=no

if [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run as root (sudo $0)" >&2
    exit 2
fi
for group in gpio spi i2c dialout; do
    getent group "$group" >/dev/null || groupadd --system "$group"
done

python3 -m venv /opt/boardctl
/opt/boardctl/bin/pip install --upgrade "$top[pi]"
ln -sf /opt/boardctl/bin/boardctl /usr/local/bin/boardctl

install -D -m 0644 "$here/boardctl.sysusers" /usr/lib/sysusers.d/boardctl.conf
systemd-sysusers /usr/lib/sysusers.d/boardctl.conf

if [ ! -e /etc/boardctl/config.toml ]; then
    install -D -m 0644 "$top/hw/config.example.toml" /etc/boardctl/config.toml
    echo "install.sh: edit /etc/boardctl/config.toml for your board's pins and LEDs"
fi
install -D -m 0644 "$here/boardctl.service" /etc/systemd/system/boardctl.service
install -D -m 0644 "$here/README.md" /usr/local/share/doc/boardctl/systemd/README.md
systemctl daemon-reload
systemctl enable boardctl.service
if [ "$start" = yes ]; then
    systemctl restart boardctl.service
    systemctl --no-pager status boardctl.service || true
fi
echo "install.sh: done. Arbiters: sudo usermod -aG boardctl USER, then 'boardctl status'."
