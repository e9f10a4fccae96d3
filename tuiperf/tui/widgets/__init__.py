"""One widget per module, each named for what it shows."""
