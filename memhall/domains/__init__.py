"""The model: aggregates, events, value objects and errors. Pure: no I/O."""
