"""How agents plug into the hall: the MCP server (one process per agent identity), session hooks and their installer."""
