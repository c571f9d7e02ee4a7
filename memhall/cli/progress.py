"""A progress bar on stderr for long replays (rebuild, import), only on a terminal.

rich is imported only when stderr is a terminal; on a pipe, in scripts and under
--json the callback is None and nothing is printed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: (label, done, total)
Callback = Callable[[str, int, int], None]


@contextmanager
def progress_bar(enabled: bool = True) -> Iterator[Callback | None]:
    """A callback that draws one bar per label (a domain), or None off a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bars: dict[str, Any] = {}
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("events"), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=False) as shown:

        def update(label: str, done: int, total: int) -> None:
            if label not in bars:
                bars[label] = shown.add_task(label, total=max(total, 1))
            shown.update(bars[label], completed=done, total=max(total, done, 1))

        yield update
