"""Agents plug in here: the MCP server (one process per agent identity), later the session hooks."""
