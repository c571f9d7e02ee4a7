"""Bulk import and export: `memhall import FILE|FOLDER|-` and `memhall export [FILE|-]`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import click
import orjson

from memhall.cli.context import App, emit, json_option
from memhall.governance import transfer

pass_app = click.make_pass_decorator(App, ensure=True)


@contextmanager
def _progress(total: int | None) -> Iterator[Callable[[int], None] | None]:
    """A progress bar on stderr when it is a terminal; nothing on a pipe."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("importing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("import", total=total)
        yield lambda n: bar.advance(task, n)


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())


@click.command("import")
@click.argument("source", type=click.Path(exists=True, allow_dash=True, path_type=Path))
@click.option("--batch", type=click.IntRange(1, 100_000), default=transfer.BATCH, show_default=True,
              help="Lines per transaction.")
@json_option
@pass_app
def import_(app: App, source: Path, batch: int) -> None:
    """Import entries from a JSONL FILE ('-' for stdin) or a FOLDER of Markdown notes.

    A JSONL line holds: text, kind, layer, author, occurred_at, tags, source,
    evidence, thread, supersedes, key. You (--as) are the actor, asked about
    every line; a line's author is who said it (someone else's line is
    hearsay from them). A line's key (else a hash of the line) makes importing
    the same file again write nothing. A Markdown note is one entry: its front
    matter gives tags, date, kind, layer, thread; its body is the text."""
    handle: IO[bytes] | None = None
    if str(source) == "-":
        lines, total = transfer.jsonl(sys.stdin.buffer), None
    elif source.is_dir():
        lines, total = transfer.notes(source), None
    else:
        handle = source.open("rb")
        lines, total = transfer.jsonl(handle), (_count_lines(source) if sys.stderr.isatty() else None)
    try:
        with _progress(total) as advance:
            report = transfer.run_import(app.hall, app.actor, app.domain, lines, batch=batch, progress=advance)
    finally:
        if handle is not None:
            handle.close()
    summary = {"read": report.read, "written": report.written, "already_imported": report.already,
               "duplicates": report.duplicates}
    emit(app, summary, lambda: (f"imported {report.written} of {report.read} lines into {app.domain} "
                                f"({report.already} imported before, {report.duplicates} already stored)"))


@click.command()
@click.argument("target", required=False, default="-",
                type=click.Path(allow_dash=True, dir_okay=False, path_type=Path))
@json_option
@pass_app
def export(app: App, target: Path) -> None:
    """Write the domain's entries (all but retired, in log order) as JSONL to TARGET
    (default stdout), in the form `memhall import` reads. A file appears whole or
    not at all: it is written beside TARGET and renamed into place."""
    if str(target) == "-":
        _write_lines(app, sys.stdout.buffer)
        return
    if not target.parent.is_dir():
        raise click.UsageError(f"cannot write {target}: {target.parent} is not a folder")
    partial = target.with_name(f".{target.name}.partial")
    try:
        with partial.open("wb") as out:
            _write_lines(app, out)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


def _write_lines(app: App, out: IO[bytes]) -> None:
    for line in transfer.export(app.hall, app.actor, app.domain):
        out.write(orjson.dumps(line) + b"\n")
    out.flush()
