"""The command line: click groups, one module per group; the composition root."""
