"""`memhall handoff` on its fast path, without click: the answer and the text it prints.

The click command (`cli.handoff`) and the click-free start (`memhall.console`) both
serve the fast handoff from here, so its answer and its rendering are written once.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any


def fast_store(store_arg: str | None) -> Path | None:
    """The SQLite file the fast path reads (--store / MEMHALL_STORE, else the project's), or None."""
    from memhall.governance import fast_handoff
    from memhall.governance.location import locate

    if os.environ.get("MEMHALL_FAST_HANDOFF") == "0":
        return None  # the main path asked for (benchmarks)
    return fast_handoff.sqlite_path(locate(store_arg))


def fast_answer(store: Path, policy_dir: Path | None, actor: str, domain: str, limit: int, open_session: bool,
                session_id: str | None) -> dict[str, Any] | None:
    """`fast_handoff.handoff` for the command's options, or None: take the main path."""
    from memhall.domains.values import domain_name, principal_name
    from memhall.governance import fast_handoff

    request = fast_handoff.Request(store=store, policy_dir=policy_dir, actor=principal_name(actor),
                                   domain=domain_name(domain), limit=limit, open_session=open_session,
                                   session_id=session_id)
    try:
        return fast_handoff.handoff(request)
    except sqlite3.Error:
        return None  # a store the fast path does not understand: the main path says why


def text(fast: dict[str, Any], as_json: bool) -> str:
    """What the command prints for a fast answer (`context.emit` of the main path's view)."""
    if as_json:
        return json.dumps(fast, indent=2, ensure_ascii=False)
    from memhall.cli import render
    from memhall.governance import fast_handoff

    return render.handoff(fast_handoff.readable(fast))
