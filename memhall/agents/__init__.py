"""How coding agents plug into the hall: session hooks and their installer."""
