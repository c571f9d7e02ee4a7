"""`python -m memhall` runs the CLI."""

from memhall.cli.main import main

main()
