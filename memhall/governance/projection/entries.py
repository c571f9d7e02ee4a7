"""Entries: the L1–L4 read model, its full-text rows, and what each entry event means there
(an entry's Written event is projected in `written`, with every other read model it touches)."""

from __future__ import annotations

from collections.abc import Iterable

from memhall.governance.projection.ops import Op, State, Update, audits, fixed, projects
from memhall.governance.projection.schema import iso

WRITTEN = "memhall.Entry.Written"


def thread_of(state: State) -> str:
    """`--thread` if given, else the first topic tag, else the author's own thread."""
    topics = state["tags"]["topics"]
    return str(state.get("thread") or (topics[0] if topics else f"@{state['actor']}"))


def search_body(state: State) -> str:
    tags = state["tags"]
    return " ".join([state["text"], state.get("interpretation") or "",
                     *tags["people"], *tags["places"], *tags["topics"]])


def touch(e: State, position: int, **values: object) -> Update:
    return Update("entries", e["originator_id"],
                  {"updated_at": iso(e["timestamp"]), "position": position, **values})


@projects("memhall.Entry.Superseded")
def _superseded(e: State, position: int) -> Iterable[Op]:
    yield touch(e, position, status="superseded", superseded_by=e["by_entry"])


@projects("memhall.Entry.Retired")
def _retired(e: State, position: int) -> Iterable[Op]:
    yield touch(e, position, status="retired")


@projects("memhall.Entry.OpenLoopClosed")
def _loop_closed(e: State, position: int) -> Iterable[Op]:
    yield touch(e, position, status="closed")


@projects("memhall.Entry.Promoted", "memhall.Entry.Demoted")
def _layer_changed(e: State, position: int) -> Iterable[Op]:
    yield touch(e, position, layer=e["to_layer"])


@audits(WRITTEN)
def _written_action(e: State) -> tuple[str, str]:
    return (f"write_{e['layer'].lower()}", e["layer"])


@audits("memhall.Entry.Promoted")
def _promoted_action(e: State) -> tuple[str, str]:
    return ("promote", e["to_layer"])


@audits("memhall.Entry.Demoted")
def _demoted_action(e: State) -> tuple[str, str]:
    return ("demote", e["to_layer"])


fixed("retire", "memhall.Entry.Retired")
fixed("close_loop", "memhall.Entry.OpenLoopClosed")
fixed("supersede", "memhall.Entry.Superseded")
