"""Human renderings of the hall's views. Every item carries its layer tag."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING

from memhall.domains.moments import age

if TYPE_CHECKING:
    # annotations only: the fast handoff renders without importing pydantic
    from memhall.governance.views import EntryView, EventView, HandoffView, SearchView, ShowView
    from memhall.governance.beliefs import BeliefView, HolderBelief


def _now() -> datetime:
    return datetime.now(timezone.utc)


#: belief states labelled wherever an item appears (issue 11 §9)
LABELLED = ("doubtful", "anomalous", "past", "corrected")


def state_label(state: str, confidence: int | None = None) -> str:
    """` [DOUBTFUL 38]` for a belief that is not simply influencing, else nothing."""
    if state not in LABELLED:
        return ""
    return f" [{state.upper()}{'' if confidence is None else f' {confidence}'}]"


def entry_line(entry: EntryView, now: datetime | None = None) -> str:
    status = "" if entry.status == "active" else f" ({entry.status})"
    return (
        f"- [{entry.layer}] {entry.kind} {entry.id} by {entry.author}, "
        f"{age(entry.created_at, now or _now())}{status}"
        f"{state_label(entry.state, entry.confidence)}: {entry.text}"
    )


def handoff(view: HandoffView) -> str:
    now = view.as_of
    lines = [f"# Handoff: {view.domain}", ""]
    if view.session_id:
        opened = "continued (your open session)" if view.session_reused else "opened"
        lines += [f"session {view.session_id} {opened} "
                  f"(export MEMHALL_SESSION={view.session_id} so wrap-up closes it)", ""]
    if view.empty:
        lines.append(
            f"Nothing to hand over in {view.domain} yet: no state, wrap-up or handoff entries, "
            "no open loops (any other entries are history: `memhall log`, `memhall search`). Start fresh."
        )
        return "\n".join(lines)
    lines.append("## Latest state of each open thread (newest first, by time, never by similarity)")
    lines += [_threaded(e, now) + _pointers(e) for e in view.latest] or ["(none)"]
    if view.candidates:
        lines += ["", "## L1 candidates (proposed, not the state)"]
        lines += [_threaded(e, now) for e in view.candidates]
    lines += ["", "## Open loops"]
    lines += [entry_line(e, now) for e in view.open_loops] or ["(none)"]
    if view.pending_nominations:
        lines += ["", "## Pending nominations (not yet at their target layer)"]
        lines += [f"- {n.get('summary', n)}" for n in view.pending_nominations]
    if view.open_requests:
        lines += ["", "## Open memory requests"]
        lines += [f"- {r.get('summary', r)}" for r in view.open_requests]
    if view.incubation:
        lines += ["", "## Incubating (unresolved contradictions and open questions)"]
        lines += [f"- {i.get('summary', i)}" for i in view.incubation]
    return "\n".join(lines)


def _threaded(entry: EntryView, now: datetime) -> str:
    return f"{entry_line(entry, now)}\n    thread: {entry.thread}"


def _pointers(entry: EntryView) -> str:
    return f"\n    pointers: {', '.join(entry.pointers)}" if entry.pointers else ""


def search(view: SearchView) -> str:
    lines = [f"# Search in {view.domain}: {view.query!r}",
             f"NOTE: {view.notice}.", ""]
    if not view.results:
        lines.append("(no matches)")
    for e in view.results:
        status = "" if e.status == "active" else f", {e.status}"
        lines.append(f"- [{e.layer}] {e.created_at:%Y-%m-%d} {e.kind} {e.id} by {e.author}{status}"
                     f"{state_label(e.state, e.confidence)}: {e.text}")
    return "\n".join(lines)


def show(view: ShowView) -> str:
    e = view.entry
    lines = [
        f"[{e.layer}] {e.kind} {e.id}",
        f"  text:        {e.text}",
        f"  author:      {e.author}  (session {e.session_id or '-'})",
        f"  status:      {e.status}, belief {e.state}, confidence {e.confidence}",
        f"  provenance:  {e.source_kind}"
        + (f" from {e.source_agent_id}" if e.source_agent_id else "")
        + (f"; evidence {', '.join(e.evidence_refs)}" if e.evidence_refs else ""),
    ]
    tags = [*(f"person:{p}" for p in e.people), *(f"place:{p}" for p in e.places),
            *(f"topic:{t}" for t in e.topics)]
    if tags:
        lines.append(f"  tags:        {' '.join(tags)}")
    if e.pointers:
        lines.append(f"  pointers:    {', '.join(e.pointers)}")
    lines += ["", "history:"]
    lines += [event_line(ev) for ev in view.history]
    return "\n".join(lines)


def event_detail(ev: EventView) -> str:
    return str(ev.data.get("reason") or ev.data.get("text") or ev.data.get("to_layer") or "")


def event_line(ev: EventView) -> str:
    name = ev.topic.removeprefix("memhall.")
    return f"  #{ev.position} {ev.at:%Y-%m-%d %H:%M:%S} {name} by {ev.actor} [{ev.rule}] {event_detail(ev)}".rstrip()


def belief(view: BeliefView | None, holders: list[HolderBelief] | None) -> str:
    """The belief section of `show`: the hall's belief as of the cut, what it used to be,
    who corroborated it, and (with --holders) how it is spread across agents."""
    if view is None:
        return ""
    b = view.belief
    cut = f" @{view.as_of_position}" if view.as_of_position is not None else ""
    mark = state_label(b["state"])
    lines = ["", f"belief (hall, as of {view.as_of:%Y-%m-%d %H:%M}{cut}): "
                 f"{b['state']} {b['confidence']}{mark}: {b['subject']}"]
    if b["interpretation"]:
        lines.append(f"  interpretation: {b['interpretation']}")
    lines += [f"  I used to think: {text}" for text in view.used_to_think]
    lines += [f"  corroborated by {c['principal']} at {c['at'][:16]} (@{c['position']})"
              for c in view.corroborated_by]
    if holders is not None:
        lines.append("holders:")
        lines += [f"  {h.holder:<12} {h.state:<11} {h.confidence:>3}  {h.subject}" for h in holders]
    return "\n".join(lines)
