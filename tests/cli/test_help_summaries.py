"""`memhall --help` lists every command with the help the command itself gives."""

from __future__ import annotations

import click

from memhall.cli.main import COMMANDS, cli
from memhall.cli.summaries import SUMMARIES


def test_the_help_summaries_are_the_commands_own() -> None:
    ctx = click.Context(cli)

    assert set(SUMMARIES) == set(COMMANDS)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        assert command is not None
        for limit in (45, 58, 120):
            summary = click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit)
            assert summary == command.get_short_help_str(limit), name


def test_the_version_is_the_installed_distributions() -> None:
    from importlib.metadata import version

    import memhall

    assert memhall.__version__ == version("memhall")
