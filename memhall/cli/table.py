"""Listings as tables on a terminal (rich), as plain lines on a pipe.

rich is imported only when stdout is a terminal, so scripts, agents and the
handoff path never pay for it; NO_COLOR (no-color.org) turns colour off and
keeps the table.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import click

from memhall.cli.context import App, emit

Rows = Callable[[], Iterable[Sequence[object]]]


def on_terminal() -> bool:
    stream = sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)()) and os.environ.get("TERM") != "dumb"


def listing(app: App, payload: Any, plain: Callable[[], str], columns: Sequence[str], rows: Rows,
            *, empty: str, title: str = "", footer: str = "") -> None:
    """JSON under --json, a table on a terminal (between `title` and `footer`),
    else the plain lines."""
    if app.json or not on_terminal():
        emit(app, payload, plain)
        return
    found = [[("" if cell is None else str(cell)) for cell in row] for row in rows()]
    if title:
        click.echo(title)
    if not found:
        click.echo(empty)
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    no_color = bool(os.environ.get("NO_COLOR"))
    table = Table(header_style="" if no_color else "bold", highlight=False)
    for column in columns:
        table.add_column(column, overflow="fold")  # ids and rule names wrap, never cut short
    for row in found:
        table.add_row(*(Text(cell) for cell in row))  # Text: "[L2]" in an entry is not markup
    Console(no_color=no_color, highlight=False).print(table)
    if footer:
        click.echo(footer)
