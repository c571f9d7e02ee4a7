"""Canon's bar in words: how far a nomination to L4 has come (pure, for the aggregate and the read model)."""

from __future__ import annotations

from collections.abc import Sequence

#: reminders from distinct sessions that canon needs (SPEC §3)
CANON_REMINDERS = 3


def canon_progress(sessions: int, positions: int, missing: Sequence[str]) -> str:
    """A canon nomination's standing, in words, for the aggregate and the read model alike."""
    if not positions:
        dissent = "no dissent recorded" + (f" (missing {', '.join(missing)})" if missing else "")
    elif missing:
        dissent = f"dissent incomplete ({positions} positions; missing {', '.join(missing)})"
    else:
        dissent = f"dissent recorded ({positions} positions)"
    return f"{min(sessions, CANON_REMINDERS)} of {CANON_REMINDERS} reminders; {dissent}"
