"""Projection as data: an event becomes a few row operations, and nothing else.

A handler is a pure function of one stored event — its topic, its state (the
JSON object the log holds) and its position — returning row operations. It
reads nothing and writes nothing itself, so the same handler serves a single
write, a batched import, a rebuild and the replay `audit verify` compares
with. Handlers register by topic string, never by class, so that this module
(and the fast handoff path) needs neither pydantic nor SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Union

from memhall.governance.projection.schema import iso

State = dict[str, Any]


class Insert(NamedTuple):
    """A new row; the projector owns `row` from here on (handlers build a fresh one)."""

    table: str
    row: dict[str, Any]


class Update(NamedTuple):
    """Set some columns of one row (by its key)."""

    table: str
    key: str
    values: dict[str, Any]


class Merge(NamedTuple):
    """Change one row as a function of its current values (read-modify-write);
    a missing row is left missing, or inserted as `default` when one is given.
    `change` returns the new values and never mutates the row it is given."""

    table: str
    key: str
    change: Callable[[dict[str, Any]], dict[str, Any]]
    default: dict[str, Any] | None = None


# Named tuples, not dataclasses: a rebuild makes several per event, and a tuple is the
# cheapest immutable record Python builds.
Op = Union[Insert, Update, Merge]

_new = tuple.__new__


def insert(table: str, row: dict[str, Any]) -> Insert:
    """`Insert(table, row)`, made without the named tuple's `__new__` (a Python function that
    C calls: a frame of its own, ~40 % of the cost of making one): for the rows of the events
    nearly every log is made of, a handful per event."""
    return _new(Insert, (table, row))


def merge(table: str, key: str, change: Callable[[dict[str, Any]], dict[str, Any]],
          default: dict[str, Any] | None = None) -> Merge:
    """`Merge(...)`, made as `insert` makes an Insert."""
    return _new(Merge, (table, key, change, default))

Handler = Callable[[State, int], Iterable[Op]]
Describe = Callable[[State], tuple[str, str]]

#: the read models only ever inserted into, a row or a few per event, never changed afterwards:
#: their rows are a function of each event alone, so `audit verify` can check them in the
#: process that walks the chains (see `logged_ops`) while the rest is replayed beside it
LOGGED = frozenset({"audit", "exposure", "encodings"})

_handlers: dict[str, list[Handler]] = {}
#: (topic, whether the handler writes only LOGGED tables) -> handlers, in registration order
_parts: dict[tuple[str, bool], list[Handler]] = {}
_describe: dict[str, Describe] = {}
_details: dict[str, Callable[[State], str]] = {}


def projects(*topics: str, logged: bool = False) -> Callable[[Handler], Handler]:
    """Register a handler for event topics; `logged`: it writes only LOGGED tables (a handler
    writes either only those or none of them)."""

    def register(handler: Handler) -> Handler:
        for topic in topics:
            _handlers.setdefault(topic, []).append(handler)
            _parts.setdefault((topic, logged), []).append(handler)
        return handler

    return register


def audits(*topics: str) -> Callable[[Describe], Describe]:
    """Register how events read in the audit log: (action, layer)."""

    def register(fn: Describe) -> Describe:
        for topic in topics:
            _describe[topic] = fn
        return fn

    return register


def details(*topics: str) -> Callable[[Callable[[State], str]], Callable[[State], str]]:
    """Register the detail an allowed event shows in the audit log (a refusal shows its reason)."""

    def register(fn: Callable[[State], str]) -> Callable[[State], str]:
        for topic in topics:
            _details[topic] = fn
        return fn

    return register


def fixed(action: str, *topics: str) -> None:
    """Events whose audit action is fixed and name no layer."""
    audits(*topics)(lambda state: (action, ""))


def ops_for(topic: str, state: State, position: int) -> list[Op]:
    """Every row operation one event implies, its audit row last."""
    return [*_run(_handlers.get(topic, ()), state, position), _audit_row(topic, state, position)]


def logged_ops(topic: str, state: State, position: int) -> list[Op]:
    """The part of `ops_for` that writes the LOGGED tables (its audit row last)."""
    return [*_run(_parts.get((topic, True), ()), state, position), _audit_row(topic, state, position)]


def replayed_ops(topic: str, state: State, position: int) -> list[Op]:
    """The rest of `ops_for`: every other read model."""
    return _run(_parts.get((topic, False), ()), state, position)


def _run(handlers: Iterable[Handler], state: State, position: int) -> list[Op]:
    ops: list[Op] = []
    for handler in handlers:
        ops.extend(handler(state, position))
    return ops


def _audit_row(topic: str, state: State, position: int) -> Insert:
    describe = _describe.get(topic)
    action, layer = describe(state) if describe else (topic.rsplit(".", 1)[-1].lower(), "")
    refused = topic == REFUSAL
    detail = _details.get(topic)
    return insert("audit", {
        "position": position, "at": iso(state["timestamp"]), "actor": state["actor"],
        "action": action, "decision": "refused" if refused else "allowed", "rule": state["rule"],
        "resource_id": state["resource_id"] if refused else state["originator_id"],
        "layer": layer, "topic": topic, "detail": state["reason"] if refused else detail(state) if detail else "",
    })


REFUSAL = "memhall.Refusal.Recorded"
