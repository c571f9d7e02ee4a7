"""memhall: event-sourced multi-agent memory governance."""
