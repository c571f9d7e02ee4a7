"""Session and memory commands: handoff, wrap-up, write, show, search, log."""

from __future__ import annotations

import json
from datetime import datetime
from typing import IO

import click

from memhall.cli import render
from memhall.cli.context import ID, App, decoded, emit, json_option, note, session_of, stdin_text
from memhall.cli.options import KINDS, LAYERS, MOMENT, SOURCES, as_of_option, limit_option
from memhall.cli.table import listing
from memhall.domains.entry import draft
from memhall.domains.errors import InvalidValueError, MemhallError, NotFoundError
from memhall.domains.values import clean_text
from memhall.governance import history, sessions
from memhall.governance.ids import IdKind

pass_app = click.make_pass_decorator(App, ensure=True)


@click.command("wrap-up")
@click.option("--summary", "-s", help="Short state summary (default: read from stdin).")
@click.option("--session", "session_id", envvar="MEMHALL_SESSION", help="The session to wrap up.")
@click.option("--pointer", "-p", "pointers", multiple=True, help="An entry id this state points to.")
@click.option("--closes", multiple=True, type=ID, help="An open loop this session closes.")
@click.option("--open", "opens", multiple=True, help="Text of an open loop this session leaves.")
@click.option("--thread", help="The thread this wraps up (default: your own, @NAME).")
@click.option("--max-chars", type=click.IntRange(1, 100_000),
              help=f"Longest summary accepted (default: wrap_up_chars in .memhall/config.toml, "
                   f"else {sessions.SUMMARY_CHARS}).")
@click.option("--checkpoint/--no-checkpoint", default=None,
              help="Append an audit checkpoint (default: yes for a store `init` made in a git work tree).")
@click.option("--idempotency-key", help="Retrying with the same key returns the first wrap-up.")
@json_option
@pass_app
def wrap_up(app: App, summary: str | None, session_id: str | None, pointers: tuple[str, ...],
            closes: tuple[str, ...], opens: tuple[str, ...], thread: str | None, max_chars: int | None,
            checkpoint: bool | None, idempotency_key: str | None) -> None:
    """Session end: a short summary plus pointers, loops opened and closed.

    It supersedes the previous wrap-up of its thread, and says which of the
    thread's open loops it does not mention and which pointers name closed or
    unknown entries (the drift between state and open loops)."""
    text = summary if summary is not None else stdin_text()
    limit = max_chars or app.defaults.wrap_up_chars or sessions.SUMMARY_CHARS
    result = sessions.wrap_up(app.hall, app.actor, app.domain, text,
                              session_id=session_of(app, session_id, open_only=True),
                              pointers=[_pointer(app, p) for p in pointers],
                              closes=[app.resolve(IdKind.ENTRY, c) for c in closes], opens=opens,
                              idempotency_key=idempotency_key, thread=thread, max_chars=limit)
    for loop in result.unmentioned_loops:
        note(f"drift: open loop {loop} of thread {result.thread} is not mentioned "
             "(point to it with --pointer, or close it with --closes)")
    for pointer in result.closed_pointers:
        note(f"drift: pointer {pointer} names an entry that is no longer active")
    for pointer in result.unknown_pointers:
        note(f"drift: pointer {pointer} names no entry of {result.domain}")
    if checkpoint is None:
        from memhall.governance.settings import checkpoints_on_wrap_up

        checkpoint = checkpoints_on_wrap_up(app.hall.store)
    if checkpoint:
        from memhall.cli.audit import write_checkpoint

        try:
            write_checkpoint(app, None)
        except MemhallError as error:  # the wrap-up is recorded; only its checkpoint is missing
            note(f"warning: no checkpoint taken: {error}")
    emit(app, result, lambda: (
        f"wrapped up session {result.session_id}: [L2] wrap-up {result.entry_id} in {result.thread}"
        + "".join(f"\n  superseded wrap-up {i}" for i in result.superseded)
        + "".join(f"\n  opened loop {i}" for i in result.opened_loops)
        + "".join(f"\n  closed loop {i}" for i in result.closed_loops)
    ))


@click.command()
@click.argument("text", required=False)
@click.option("--layer", type=LAYERS, default="L1", show_default=True,
              help="L1 (candidate) or L2 (the hall); L3 and L4 are reached only by promotion.")
@click.option("--kind", type=KINDS, default="episode", show_default=True, help="What the entry is.")
@click.option("--person", "people", multiple=True, help="A person this is about.")
@click.option("--place", "places", multiple=True, help="A place this is about.")
@click.option("--topic", "topics", multiple=True, help="A topic this is about.")
@click.option("--thread", help="The thread this continues (default: the first --topic, else your own, @NAME).")
@click.option("--to", "addressees", multiple=True, help="Who this was said or written to (they hold it).")
@click.option("--present", "participants", multiple=True, help="Who else was there (they hold it).")
@click.option("--source", "source_kind", type=SOURCES, default="firsthand", show_default=True,
              help="Where it came from.")
@click.option("--source-agent", help="Who said it (hearsay only).")
@click.option("--evidence", "evidence_refs", multiple=True, help="An evidence reference.")
@click.option("--claim-root", help="The claim this is evidence for.")
@click.option("--contradicts", is_flag=True,
              help="With --claim-root: this contradicts the claim (default: supports it).")
@click.option("--at", "at", type=MOMENT, help="When it happened or was said (default: now).")
@click.option("--confidence", type=click.IntRange(0, 100), help="0-100 (default by provenance: 78 / 58).")
@click.option("--interpretation", help="What you infer, kept apart from what you observed.")
@click.option("--supersedes", type=ID, help="An entry this one replaces (needs --reason or --evidence).")
@click.option("--reason", default="", help="Why the superseded entry no longer holds.")
@click.option("--pending", "pending", multiple=True, type=ID, help="An open MEMORY REQUEST this depends on.")
@click.option("--session", "session_id", envvar="MEMHALL_SESSION", help="The session writing.")
@click.option("--idempotency-key", help="Retrying with the same key writes nothing new.")
@click.option("--payload", type=click.File("rb"),
              help="Read the entry as JSON from a file ('-' for stdin).")
@json_option
@pass_app
def write(app: App, text: str | None, layer: str, kind: str, people: tuple[str, ...],
          places: tuple[str, ...], topics: tuple[str, ...], thread: str | None, addressees: tuple[str, ...],
          participants: tuple[str, ...], source_kind: str, source_agent: str | None,
          evidence_refs: tuple[str, ...], claim_root: str | None, contradicts: bool,
          at: datetime | None, confidence: int | None,
          interpretation: str | None, supersedes: str | None, reason: str, pending: tuple[str, ...],
          session_id: str | None, idempotency_key: str | None, payload: IO[bytes] | None) -> None:
    """Write an L1 or L2 entry (TEXT, or --payload JSON)."""
    claimed: dict[str, str] = {}
    if payload is not None:
        # A payload may claim who wrote it or where it belongs; the hall refuses
        # any claim that differs from the acting principal and domain.
        fields = _payload(decoded(payload.read(), "the payload"))
        for key in ("author", "principal", "actor"):
            if key in fields:
                claimed["claimed_principal"] = clean_text(str(fields.pop(key)), key)
        if "domain" in fields:
            claimed["claimed_domain"] = clean_text(str(fields.pop("domain")), "domain")
        entry = draft(**fields)
    else:
        if text is None:
            text = stdin_text()
        entry = draft(
            layer=layer, kind=kind, text=text or "", interpretation=interpretation,
            tags={"people": people, "places": places, "topics": topics}, thread=thread,
            addressees=addressees, participants=participants,
            provenance={"source_kind": source_kind, "source_agent_id": source_agent,
                        "evidence_refs": evidence_refs, "claim_root_id": claim_root},
            confidence=confidence, session_id=session_of(app, session_id),
            contradicts=contradicts, occurred_at=at,
            pending_requests=[str(app.resolve(IdKind.REQUEST, p, must_exist=False)) for p in pending],
            idempotency_key=idempotency_key,
        )
    replaced = app.resolve(IdKind.ENTRY, supersedes) if supersedes else None
    result = app.hall.write(app.actor, app.domain, entry, supersedes=replaced, reason=reason, **claimed)
    if result.replayed:
        note(f"replayed: idempotency key already written as {result.entry_id}; nothing new written")
    elif result.corroborated:
        note(f"corroborated: the same memory is stored as {result.duplicate_of}; "
             "recorded as supporting evidence on it")
    elif result.duplicate:
        note(f"duplicate: the same memory is already stored as {result.duplicate_of}; nothing new written")
    emit(app, result, lambda: f"[{result.layer}] {result.entry_id}")


def _payload(raw: str) -> dict[str, object]:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as error:
        raise InvalidValueError(f"payload is not JSON: {error.msg} at line {error.lineno}") from None
    if not isinstance(data, dict):
        raise InvalidValueError("payload must be a JSON object")
    return data


def _pointer(app: App, text: str) -> str:
    """A pointer as a whole entry id when it names one; any other text is kept
    as given (wrap-up reports pointers that name nothing)."""
    try:
        return str(app.resolve(IdKind.ENTRY, text, must_exist=False))
    except (InvalidValueError, NotFoundError):
        return text


@click.command()
@click.argument("entry_id", type=ID)
@click.option("--holders", is_flag=True, help="Also who holds its belief, at what confidence and state.")
@as_of_option()
@json_option
@pass_app
def show(app: App, entry_id: str, holders: bool, as_of: datetime | int | None) -> None:
    """Show ENTRY_ID (the id or its first characters), its belief and its event history."""
    from memhall.governance import beliefs

    ident = app.resolve(IdKind.ENTRY, entry_id)
    view = history.show(app.hall, app.actor, app.domain, ident)
    belief = beliefs.belief_of(app.hall, app.actor, app.domain, ident, as_of=as_of,
                               missing_ok=True)
    if as_of is not None:
        cut = beliefs.cut_of(app.hall, app.domain, as_of)
        view = view.model_copy(update={"history": [
            e for e in view.history if cut.counts(e.at, e.position)]})
    spread = beliefs.holders_of(app.hall, app.actor, app.domain, ident, as_of=as_of) if holders else None
    payload = {**view.model_dump(mode="json"),
               "belief": belief.model_dump(mode="json") if belief else None,
               **({"holders": [h.model_dump(mode="json") for h in spread]} if spread is not None else {})}
    emit(app, payload, lambda: render.show(view) + render.belief(belief, spread))


@click.command()
@click.argument("query")
@limit_option(20, 1000, "How many matches, best first.")
@json_option
@pass_app
def search(app: App, query: str, limit: int) -> None:
    """Search history (never current state: use handoff for that)."""
    view = history.search(app.hall, app.actor, app.domain, query, limit)
    listing(app, view, lambda: render.search(view),
            ("layer", "date", "kind", "id", "author", "status", "text"),
            lambda: ((f"[{e.layer}]", f"{e.created_at:%Y-%m-%d}", e.kind, e.id, e.author, e.status, e.text)
                     for e in view.results),
            empty="(no matches)", title=f"# Search in {view.domain}: {view.query!r}\nNOTE: {view.notice}.")


@click.command()
@limit_option(20, 10_000, "Events per page.")
@click.option("--before", type=click.IntRange(1, 2**63 - 1),
              help="Show events before this position (next page).")
@json_option
@pass_app
def log(app: App, limit: int, before: int | None) -> None:
    """The domain's events, newest first."""
    events = history.log(app.hall, app.actor, app.domain, limit=limit, before=before)

    more = f"-- more: memhall log --before {events[-1].position}" if len(events) == limit else ""

    def human() -> str:
        lines = [render.event_line(e) for e in events] or ["(no events)"]
        return "\n".join(lines + ([more] if more else []))

    listing(app, events, human, ("#", "at", "event", "actor", "rule", "detail"),
            lambda: ((e.position, f"{e.at:%Y-%m-%d %H:%M:%S}", e.topic.removeprefix("memhall."), e.actor,
                      e.rule, render.event_detail(e)) for e in events),
            empty="(no events)", footer=more)


@click.command()
@click.argument("entry_id", type=ID)
@click.option("--reason", required=True, help="Why it is retired (it is never deleted).")
@json_option
@pass_app
def retire(app: App, entry_id: str, reason: str) -> None:
    """Retire ENTRY_ID: it stays in history, out of current state."""
    entry = app.hall.retire(app.actor, app.domain, app.resolve(IdKind.ENTRY, entry_id), reason)
    emit(app, {"entry_id": str(entry.id), "status": entry.status.value},
         lambda: f"retired [{entry.layer.value}] {entry.id}")


@click.command()
@click.argument("loop_id", type=ID)
@click.option("--note", "note_", default="", help="How it was closed.")
@json_option
@pass_app
def close(app: App, loop_id: str, note_: str) -> None:
    """Close the open loop LOOP_ID."""
    entry = app.hall.close_loop(app.actor, app.domain, app.resolve(IdKind.ENTRY, loop_id), note_)
    emit(app, {"entry_id": str(entry.id), "status": entry.status.value},
         lambda: f"closed open loop {entry.id}")


@click.command()
@click.option("--topic", help="One topic (its thread); default: every topic.")
@limit_option(sessions.STATE_LIMIT, 10_000, "How many topics, most recently changed first.")
@json_option
@pass_app
def state(app: App, topic: str | None, limit: int) -> None:
    """The current value of each topic: its thread's latest L2+ state entry.

    A topic's thread holds the entries tagged with it first (or written with
    --thread); a newer L1 candidate is shown beside the value, never as it."""
    view = sessions.current_state(app.hall, app.actor, app.domain, topic=topic, limit=limit)

    def plain() -> str:
        if not view.values:
            return f"(no state{' for ' + topic if topic else ''} in {view.domain})"
        lines = []
        for value in view.values:
            e = value.entry
            lines.append(f"{value.topic}: [{e.layer}] {e.text}  ({e.kind} {e.id} by {e.author}, "
                         f"{e.created_at:%Y-%m-%d %H:%M})")
            if value.candidate is not None:
                c = value.candidate
                lines.append(f"  candidate: [{c.layer}] {c.text}  ({c.id} by {c.author})")
        return "\n".join(lines)

    listing(app, view, plain, ("topic", "layer", "value", "by", "at", "id", "candidate"),
            lambda: ((v.topic, v.entry.layer, v.entry.text, v.entry.author, f"{v.entry.created_at:%Y-%m-%d %H:%M}",
                      v.entry.id, f"[L1] {v.candidate.text} ({v.candidate.id})" if v.candidate else "")
                     for v in view.values),
            empty=f"(no state in {view.domain})")
