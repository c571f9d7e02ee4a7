"""The handoff on its fast path: stdlib sqlite3 over the read models, no SQLAlchemy,
pydantic, eventsourcing or Cedar (about half a second of imports a session start
cannot pay).

It answers only when it can show its answer is the main path's
(`sessions.handoff`), and otherwise returns None for the caller to take that path:

- the store is a SQLite file and the domain exists;
- the hall's answer to (actor, handoff, domain) is cached under the digest of
  the policy files in force, written after an earlier start the main path
  allowed (a denial is never cached: the main path decides it, and records it),
  with the adopted policy and the charter version it was decided under, and the
  domain's charter has not moved since (the seal's check; a chair handed over
  or back moves it too).

Its sections are the main path's: the same readers (`threads`, `waiting`) over
the same read models. The session it opens is the main path's event: the same
`Session.Opened` state, appended by the same journal (event, chain link,
projections and audit row).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NamedTuple, TYPE_CHECKING
from uuid import NAMESPACE_URL, UUID, uuid4, uuid5

from memhall.governance import logged, rebuilding, threads, waiting
from memhall.governance.projection import codec
from memhall.governance.projection.plans import SECURE_DELETE
from memhall.governance.waiting import json_time

__all__ = ["json_time"]
from memhall.governance.journal import Journal, NewEvent

if TYPE_CHECKING:
    from memhall.governance.hall import Hall

#: a cached decision is valid for this cache format and the policy digest it was taken under
CACHE_FORMAT = "memhall-handoff-decisions/2"
#: the actions whose allowed answers are cached (`policies.model.Action` values)
HANDOFF, READ = "handoff", "read"
#: not a policy action: a hook's main path found the principal no human of roles.yaml (a hook
#: never acts as one), so the hooks' fast path may serve it too
AGENT = "agent"
ENTRY_FIELDS = ("id", "domain", "layer", "kind", "text", "interpretation", "author", "session_id", "status",
                "state", "confidence", "source_kind", "source_agent_id", "claim_root_id", "evidence_refs",
                "people", "places", "topics", "pending_requests", "pointers", "superseded_by", "thread",
                "occurred_at", "created_at", "updated_at", "position")
_TIMES = ("occurred_at", "created_at", "updated_at")
#: the policy shipped with memhall (`policies.files.packaged_defaults`), found without importlib.resources
DEFAULTS = Path(__file__).resolve().parents[1] / "policies" / "defaults"


def sqlite_path(url: str) -> Path | None:
    if not url.startswith("sqlite:///"):
        return None
    path = url.removeprefix("sqlite:///")
    return Path(path) if path and path != ":memory:" else None


def policy_digest(directory: Path | None) -> str:
    """sha256 over every file of the policy folder in force (the packaged defaults when None)."""
    digest = hashlib.sha256(CACHE_FORMAT.encode())
    root = directory if directory is not None else DEFAULTS
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_file(store: Path) -> Path:
    return store.with_name(store.name + ".decisions.json")


def _decision_key(digest: str, actor: str, domain: str, action: str = HANDOFF) -> str:
    return f"{digest}:{actor}:{action}:{domain}"


class Cached(NamedTuple):
    """An allowed answer: the rule that allowed it, the adopted policy it was decided under,
    and the version of the domain's charter then (an adoption, or a chair handed over or
    back, which changes what a backup chair may do, moves it)."""

    rule: str
    policy: str
    charter: int


def cached_decision(store: Path, digest: str, actor: str, domain: str, action: str = HANDOFF) -> Cached | None:
    try:
        cached = codec.loads(cache_file(store).read_bytes())
    except (OSError, ValueError):
        return None
    found = cached.get(_decision_key(digest, actor, domain, action)) if isinstance(cached, dict) else None
    if (not isinstance(found, dict) or not found.get("rule") or not found.get("policy")
            or not isinstance(found.get("charter"), int)):
        return None
    return Cached(str(found["rule"]), str(found["policy"]), int(found["charter"]))


def remember(store: Path, digest: str, actor: str, domain: str, decided: Cached, action: str = HANDOFF) -> None:
    """Cache an allowed handoff decision (atomically: a reader sees the old file or the new)."""
    path = cache_file(store)
    try:
        cached = codec.loads(path.read_bytes())
    except (OSError, ValueError):
        cached = {}
    cached = {k: v for k, v in cached.items() if k.startswith(digest)} if isinstance(cached, dict) else {}
    cached[_decision_key(digest, actor, domain, action)] = {"rule": decided.rule, "policy": decided.policy,
                                                            "charter": decided.charter}
    scratch = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    scratch.write_bytes(codec.dumps(cached))
    os.replace(scratch, path)


def entry_json(domain: str, row: dict[str, Any]) -> dict[str, Any]:
    """An entries row as `EntryView.model_dump(mode="json")` gives it."""
    out = {name: row.get(name) for name in ENTRY_FIELDS}
    out["domain"] = domain
    for name in _TIMES:
        out[name] = json_time(row[name])
    return out


def session_opened(ident: str, domain: str, actor: str, rule: str, now: datetime,
                   handed: tuple[str, ...], policy: str = "") -> NewEvent:
    """`Session.Opened` with the state the pydantic mapper and the seal write, key for key."""
    state = {"originator_id": ident, "originator_version": 1, "timestamp": json_time(now),
             "originator_topic": "memhall.Session", "actor": actor, "rule": rule, "policy": policy,
             "signature": "", "domain": domain, "principal": actor, "handed": list(handed)}
    return NewEvent(UUID(ident), 1, "memhall.Session.Opened", state, codec.dumps(state))


class Charter(NamedTuple):
    """A domain's charter as its events say: the digest it adopted last, and its version."""

    adopted: str
    version: int


def charter_of(reader: threads.Reader, domain: str) -> Charter:
    """The domain's charter (`seal.Seal.adopted`), read from its events."""
    charter = uuid5(NAMESPACE_URL, f"memhall:charter:{domain}")  # domains.charter.charter_id
    adopted, version = "", 0
    for topic, number, data in reader.rows(
            f"SELECT topic, originator_version, state FROM {reader.prefix}events WHERE originator_id = ? "
            "ORDER BY originator_version", [charter.bytes]):
        version = int(number)
        if topic in ("memhall.Charter.Opened", "memhall.Policy.Adopted"):
            adopted = str(codec.loads(data)["digest"])
    return Charter(adopted, version)


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute(f"PRAGMA {SECURE_DELETE}")
    return conn


class Request(NamedTuple):
    store: Path
    policy_dir: Path | None
    actor: str
    domain: str
    limit: int
    open_session: bool
    session_id: str | None = None
    loops: int = 20
    reuse: timedelta = timedelta(minutes=30)


class Allowed(NamedTuple):
    """The store opened for a principal the policy in force allows (by its cached answers)."""

    conn: sqlite3.Connection
    reader: threads.Reader
    decided: Cached


def allowed(store: Path, policy_dir: Path | None, actor: str, domain: str,
            actions: tuple[str, ...] = (HANDOFF,)) -> Allowed | None:
    """The domain's read models, when each of `actions` has a cached allowed answer
    decided under the policy the domain still has adopted; else None (the caller
    closes nothing: the main path decides, and records a refusal)."""
    if not store.is_file():
        return None
    digest = policy_digest(policy_dir)
    found = [cached_decision(store, digest, actor, domain, action) for action in actions]
    decided = found[0] if found and all(found) else None
    if decided is None or any(f is None or (f.policy, f.charter) != (decided.policy, decided.charter)
                              for f in found):
        return None
    conn = connect(store)
    try:
        reader = threads.Reader(conn, f"mh_{domain}_")
        if (not reader.rows("SELECT 1 FROM mh_domains WHERE name = ?", [domain])
                or charter_of(reader, domain) != Charter(decided.policy, decided.charter)
                or rebuilding.flagged(store, domain) is not None):
            conn.close()  # unknown domain, its charter moved since, or being rebuilt: the main path decides
            return None
    except BaseException:
        conn.close()
        raise
    return Allowed(conn, reader, decided)


def view(reader: threads.Reader, domain: str, now: datetime, limit: int, loops: int) -> dict[str, Any]:
    """`HandoffView.model_dump(mode="json")` of a handoff that opens nothing."""
    return {"domain": domain, "as_of": json_time(now), "session_id": None, "session_reused": False,
            "latest": [entry_json(domain, r) for r in threads.latest(reader, limit=limit)],
            "candidates": [entry_json(domain, r) for r in threads.candidates(reader, limit=limit)],
            "open_loops": [entry_json(domain, r) for r in threads.open_loops(reader, limit=loops)],
            **waiting.sections(reader, domain, now)}


def handed_as_logged(reader: threads.Reader, domain: str, shown: dict[str, Any], at: int) -> bool:
    """Whether every entry `view` hands over is what its events say (`logged`); `at`: the
    log's newest position read before the view."""
    return logged.first_unlike(reader.db, Journal(domain, "sqlite"),
                               (*shown["latest"], *shown["candidates"], *shown["open_loops"]), at=at) is None


def newest(reader: threads.Reader, domain: str) -> int:
    """The log's newest position, read before a view (`handed_as_logged`)."""
    return logged.newest(reader.db, Journal(domain, "sqlite"))


def handoff(request: Request, now: datetime | None = None) -> dict[str, Any] | None:
    """The handoff as `HandoffView.model_dump(mode="json")`, or None: take the main path."""
    now = now or datetime.now(timezone.utc)
    found = allowed(request.store, request.policy_dir, request.actor, request.domain)
    if found is None:
        return None
    try:
        at = newest(found.reader, request.domain)
        shown = view(found.reader, request.domain, now, request.limit, request.loops)
        if not handed_as_logged(found.reader, request.domain, shown, at):
            return None  # the main path says which row and serves nothing
        if not request.open_session:
            return shown
        handed = tuple(dict.fromkeys(e["id"] for e in (*shown["latest"], *shown["candidates"], *shown["open_loops"])))
        session_id, reused = _open(found, request, now, handed)
        return {**shown, "session_id": session_id, "session_reused": reused}
    finally:
        found.conn.close()


def _open(found: Allowed, request: Request, now: datetime, handed: tuple[str, ...]) -> tuple[str, bool]:
    conn, decided = found.conn, found.decided
    conn.execute("BEGIN IMMEDIATE")
    try:
        ident = threads.reusable_session(found.reader, request.actor, threads.iso(now - request.reuse),
                                         request.session_id)
        if ident is not None:
            conn.execute("COMMIT")
            return ident, True
        ident = str(uuid4())
        Journal(request.domain, "sqlite").append(
            conn, [session_opened(ident, request.domain, request.actor, decided.rule, now, handed, decided.policy)])
        conn.execute("COMMIT")
        return ident, False
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def remember_allowed(hall: Hall, actor: str, domain: str, policy_dir: Path | None,
                     actions: tuple[str, ...] = (HANDOFF,), marks: tuple[str, ...] = ()) -> None:
    """After the main path answered: cache the hall's own allowed answers to (actor,
    action, domain) under the adopted policy, for the fast path of the next start.
    Never a denial: the main path decides those, and records them. `marks`: what the
    main path checked besides (`AGENT`), kept beside the answers under the same charter."""
    from memhall.policies.model import Action, PolicyRequest, ResourceType

    store = sqlite_path(hall.store.url)
    seal = hall.seal
    if store is None or seal is None:
        return
    conn = connect(store)
    try:
        # read first: a charter event landing after it only makes the cache miss
        charter = charter_of(threads.Reader(conn, f"mh_{domain}_"), domain)
    finally:
        conn.close()
    stream = hall.streams.stream(domain)
    if not charter.adopted or seal.adopted(stream) != charter.adopted or seal.differs(stream):
        return
    digest = policy_digest(policy_dir)
    rule = ""
    for action in actions:
        decision = hall.decide(stream, PolicyRequest(principal=actor, action=Action(action), domain=domain,
                                                     resource_type=ResourceType.DOMAIN))
        if not decision.allowed:
            return
        rule = rule or decision.rule_id
        try:
            remember(store, digest, actor, domain, Cached(decision.rule_id, charter.adopted, charter.version), action)
        except OSError:
            return  # a read-only folder: the next start takes the main path again
    for mark in marks:
        try:
            remember(store, digest, actor, domain, Cached(rule, charter.adopted, charter.version), mark)
        except OSError:
            return


def readable(view: dict[str, Any]) -> Any:
    """A fast view as the attributes `render.handoff` and the hook's briefing read."""
    lists = {k: [readable_entry(e) for e in view[k]] for k in ("latest", "candidates", "open_loops")}
    empty = not any(view[k] for k in ("latest", "candidates", "open_loops", "pending_nominations",
                                       "open_requests", "incubation"))
    return SimpleNamespace(**{**view, **lists, "as_of": datetime.fromisoformat(view["as_of"]), "empty": empty})


def readable_entry(entry: dict[str, Any]) -> Any:
    return SimpleNamespace(**{**entry, "created_at": datetime.fromisoformat(entry["created_at"])})
