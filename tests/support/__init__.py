"""What the tests share: real programs started and stopped (a Mosquitto broker, Chromium,
nginx, service processes, the lidraughts stand-in), game logs and records, helpers."""
