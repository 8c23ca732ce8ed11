"""A hall of boards: the broker link, MQTT, the board side, round setups, tournament files, the
crosstable over HTTP."""
