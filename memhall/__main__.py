"""`python -m memhall` runs the CLI (session starts without click: `memhall.console`)."""

from memhall.console import main

main()
