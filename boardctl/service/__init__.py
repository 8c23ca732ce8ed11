"""The board's daemon: sensing thread, referee loop, outputs, journal file, control server,
arbiter commands, hardware."""
