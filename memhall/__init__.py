"""memhall: event-sourced multi-agent memory governance."""

#: the distribution's version, kept equal to pyproject.toml's by a test (reading the installed
#: metadata costs `--version` about as much as the rest of the start-up)
__version__ = "0.1.0"
