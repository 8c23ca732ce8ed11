"""Engine processes: the built-in engine served over Hub (server) and the Hub client."""
