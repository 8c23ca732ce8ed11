#!/bin/sh
# The system programs the test suite drives for real: a Mosquitto broker (MQTT tests, with
# mosquitto_passwd; openssl makes the TLS test's certificates) and
# Debian's Chromium with its ChromeDriver (tests of the live page); nginx-light (the relay
# behind a reverse proxy); shellcheck and
# systemd-analyze check install.sh and the units; tmux runs boardctl watch and play in a real
# terminal (tests/terminal). Installs only what is
# missing, so it is quick to run again; needs root or sudo (Debian or Raspberry Pi OS).
set -eu
need=""
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || need="$need mosquitto"
command -v openssl >/dev/null 2>&1 || need="$need openssl"  # a CA for the TLS broker test
command -v chromium >/dev/null 2>&1 || need="$need chromium"
command -v chromedriver >/dev/null 2>&1 || need="$need chromium-driver"
command -v shellcheck >/dev/null 2>&1 || need="$need shellcheck"
command -v systemd-analyze >/dev/null 2>&1 || need="$need systemd"
# nginx in front of the relay (tests/relay: the shipped docs/examples/nginx configuration)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need="$need nginx-light"
command -v tmux >/dev/null 2>&1 || need="$need tmux"
command -v espeak-ng >/dev/null 2>&1 || need="$need espeak-ng"  # the spoken game (tests/voice)
command -v sox >/dev/null 2>&1 || need="$need sox"  # checks the voice's WAV files are not silent
[ -z "$need" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
echo "installing:$need"
$sudo apt-get update -qq
# shellcheck disable=SC2086  # one word per package
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $need >/dev/null
# The Debian package starts a broker on port 1883; the tests start their own on free ports.
# Only one this script has just installed is stopped: a broker the machine had stays as it was.
case " $need " in
    *" mosquitto "*)
        if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
            $sudo systemctl disable --now mosquitto >/dev/null 2>&1 || true
        fi ;;
esac
# Likewise nginx's own server on port 80: the tests start theirs on free ports.
case " $need " in
    *" nginx-light "*)
        if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
            $sudo systemctl disable --now nginx >/dev/null 2>&1 || true
        fi ;;
esac
