"""The handoff as an agent's session-start context: layer-tagged, under a byte budget.

Sections in priority order: canon (L4), knowledge (L3), latest state, open
loops, open requests, pending nominations. When the whole hook output would
pass the budget, the lowest-priority section loses its tail items first, and
says how many it dropped and their ids, so the agent can fetch them through
the MCP tools (`show_memory`, `recall`). The session line and the how-to lines
are never dropped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from memhall.domains.moments import age


class Item(Protocol):
    """An entry as the briefing reads it: an `EntryView`, or the fast path's (`fast_handoff.readable`)."""

    @property
    def id(self) -> str: ...
    @property
    def layer(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def author(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def created_at(self) -> datetime: ...


class Handoff(Protocol):
    """A `HandoffView`, or the fast path's."""

    @property
    def domain(self) -> str: ...
    @property
    def as_of(self) -> datetime: ...
    @property
    def latest(self) -> Sequence[Item]: ...
    @property
    def candidates(self) -> Sequence[Item]: ...
    @property
    def open_loops(self) -> Sequence[Item]: ...
    @property
    def open_requests(self) -> Sequence[dict[str, Any]]: ...
    @property
    def pending_nominations(self) -> Sequence[dict[str, Any]]: ...

#: bytes of the whole JSON line the hook prints (agents cap injected context near 10 KB)
BUDGET_BYTES = 8000
ITEM_CHARS = 280
SHOWN_IDS = 6
#: items a section starts with; the rest are only counted (keeps trimming cheap)
SECTION_ITEMS = 40


class Section:
    """A titled list of (id, line) items; past SECTION_ITEMS, only their ids are kept (as dropped)."""

    def __init__(self, title: str, items: list[tuple[str, str]], empty: str = "(none)",
                 dropped: list[str] | None = None) -> None:
        self.title, self.empty = title, empty
        self.items = items[:SECTION_ITEMS]
        self.dropped = [ident for ident, _ in items[SECTION_ITEMS:]] + (dropped or [])

    def lines(self) -> list[str]:
        out = [f"## {self.title}"]
        out += [line for _, line in self.items] or ([self.empty] if not self.dropped else [])
        if self.dropped:
            shown = ", ".join(self.dropped[:SHOWN_IDS]) + (", …" if len(self.dropped) > SHOWN_IDS else "")
            out.append(f"({len(self.dropped)} more: {shown})")
        return out


def one_line(text: str, limit: int = ITEM_CHARS) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    # the context is wrapped in a tag: a memory must not be able to close it
    flat = flat.replace("</memory-handoff", "</ memory-handoff")
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def entry_line(entry: Item, now: datetime) -> str:
    status = "" if entry.status == "active" else f" ({entry.status})"
    return (f"- [{entry.layer}] {entry.kind} {entry.id} by {entry.author}, "
            f"{age(entry.created_at, now)}{status}: {one_line(entry.text)}")


def _record_line(record: dict[str, Any], prefix: str) -> str:
    return f"- {prefix} {one_line(str(record.get('summary') or record.get('id')))}"


def sections(view: Handoff, canon: Sequence[Item], knowledge: Sequence[Item]) -> list[Section]:
    now = view.as_of
    return [
        Section("Canon (L4): binding", [(e.id, entry_line(e, now)) for e in canon],
                "(L4 unavailable: nothing ratified)"),
        Section("Knowledge (L3): verified", [(e.id, entry_line(e, now)) for e in knowledge],
                "(L3 unavailable: nothing ratified; L2 below is recorded, not verified)"),
        Section("Latest state of each open thread (newest first, by time)",
                [(e.id, entry_line(e, now)) for e in view.latest]),
        Section("L1 candidates (proposed, not the state)", [(e.id, entry_line(e, now)) for e in view.candidates]),
        Section("Open loops", [(e.id, entry_line(e, now)) for e in view.open_loops]),
        Section("Open memory requests",
                [(str(r.get("id")), _record_line(r, "request")) for r in view.open_requests]),
        Section("Pending nominations (not yet at their target layer)",
                [(str(n.get("id")), _record_line(n, "nomination")) for n in view.pending_nominations]),
    ]


def render(view: Handoff, parts: list[Section], *, actor: str, session_id: str | None,
           unopened: str = "") -> str:
    """`session_id` None: no session was opened (`unopened` says why)."""
    opened = (f"memhall session {session_id} is open for you in {view.domain}; the session-end hook "
              "closes it with a wrap-up (or wrap up yourself: MCP `wrap_up`, or "
              f"`memhall wrap-up --session {session_id}`)." if session_id is not None else
              f"No memhall session was opened for you in {view.domain} ({unopened}); this handoff "
              "stands all the same. Open one later with MCP `get_handoff` or `memhall handoff`.")
    head = [
        f'<memory-handoff domain="{view.domain}" as="{actor}" session="{session_id or ""}" '
        f'as_of="{view.as_of:%Y-%m-%dT%H:%M:%SZ}">',
        opened,
        "Every item carries its layer: [L4] canon binds, [L3] is verified, [L2] was recorded "
        "(by whom, with what evidence), [L1] is a candidate or a draft.",
        "Fetch more through the MCP tools: `show_memory` with any id here, `recall` to search "
        "what you hold. Search results are history, not current state.",
    ]
    body: list[str] = []
    for part in parts:
        body += ["", *part.lines()]
    return "\n".join([*head, *body, "</memory-handoff>"])


def hook_output(context: str) -> str:
    """The one JSON object a SessionStart hook prints (all three agents read it)."""
    return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                              "additionalContext": context}}, ensure_ascii=False)


def budgeted(view: Handoff, canon: Sequence[Item], knowledge: Sequence[Item], *,
             actor: str, session_id: str | None, budget: int = BUDGET_BYTES, unopened: str = "") -> str:
    """The hook's JSON line, dropping the lowest-priority tail items until it fits
    (with the newline that ends it: what the agent reads is at most `budget` bytes)."""
    parts = sections(view, canon, knowledge)
    while True:
        line = hook_output(render(view, parts, actor=actor, session_id=session_id, unopened=unopened))
        if len(line.encode("utf-8")) + 1 <= budget:
            return line
        victim = next((p for p in reversed(parts) if p.items), None)
        if victim is None:
            return line  # only the fixed lines are left; they are far below any budget
        ident, _ = victim.items.pop()
        victim.dropped.insert(0, ident)
