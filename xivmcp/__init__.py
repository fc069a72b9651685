"""The `xivmcp` command line: starts and drives the bus, the host and the game."""
