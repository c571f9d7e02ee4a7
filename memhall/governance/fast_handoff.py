"""The handoff on its fast path: stdlib sqlite3 over the read models, no SQLAlchemy,
pydantic, eventsourcing or Cedar (about half a second of imports a session start
cannot pay).

It answers only when it can show its answer is the main path's
(`sessions.handoff`), and otherwise returns None for the caller to take that path:

- the store is a SQLite file and the domain exists;
- the policy's answer to (actor, handoff, domain) is cached under the digest of
  the policy files in force, written by an earlier handoff the main path allowed
  (a denial is never cached: it must be recorded, by the main path), with the
  adopted policy it was decided under, and that is still the domain's adopted
  policy (the seal's check);
- nothing waits in the sections whose views need pydantic: no open nomination,
  no open memory request, nothing incubating.

The session it opens is the main path's event: the same `Session.Opened` state,
appended by the same journal (event, chain link, projections and audit row).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid4, uuid5

import orjson

from memhall.governance import threads
from memhall.governance.journal import Journal, NewEvent

#: a cached decision is valid for this cache format and the policy digest it was taken under
CACHE_FORMAT = "memhall-handoff-decisions/1"
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


def _decision_key(digest: str, actor: str, domain: str) -> str:
    return f"{digest}:{actor}:handoff:{domain}"


@dataclass(frozen=True)
class Cached:
    """An allowed handoff: the rule that allowed it, and the adopted policy it was decided under."""

    rule: str
    policy: str


def cached_decision(store: Path, digest: str, actor: str, domain: str) -> Cached | None:
    try:
        cached = orjson.loads(cache_file(store).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    found = cached.get(_decision_key(digest, actor, domain)) if isinstance(cached, dict) else None
    if not isinstance(found, dict) or not found.get("rule") or not found.get("policy"):
        return None
    return Cached(str(found["rule"]), str(found["policy"]))


def remember(store: Path, digest: str, actor: str, domain: str, decided: Cached) -> None:
    """Cache an allowed handoff decision (atomically: a reader sees the old file or the new)."""
    path = cache_file(store)
    try:
        cached = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        cached = {}
    cached = {k: v for k, v in cached.items() if k.startswith(digest)} if isinstance(cached, dict) else {}
    cached[_decision_key(digest, actor, domain)] = {"rule": decided.rule, "policy": decided.policy}
    scratch = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    scratch.write_bytes(orjson.dumps(cached))
    os.replace(scratch, path)


def json_time(moment: datetime | str) -> str:
    """A time as pydantic writes it in JSON (no fraction when there is none)."""
    text = moment if isinstance(moment, str) else moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return text[:-8] + "Z" if text.endswith(".000000Z") else text


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
    return NewEvent(UUID(ident), 1, "memhall.Session.Opened", state, orjson.dumps(state))


def adopted_policy(reader: threads.Reader, domain: str) -> str:
    """The digest the domain's charter adopted last (`seal.Seal.adopted`), read from its events."""
    charter = uuid5(NAMESPACE_URL, f"memhall:charter:{domain}")  # domains.charter.charter_id
    adopted = ""
    for topic, data in reader.rows(f"SELECT topic, state FROM {reader.prefix}events WHERE originator_id = ? "
                                   "ORDER BY originator_version", [charter.bytes]):
        if topic in ("memhall.Charter.Opened", "memhall.Policy.Adopted"):
            adopted = str(orjson.loads(data)["digest"])
    return adopted


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA synchronous = FULL")
    return conn


def _waiting(reader: threads.Reader, now: str) -> bool:
    """Whether a section the fast path cannot render holds anything."""
    p = reader.prefix
    if reader.rows(f"SELECT 1 FROM {p}promotions WHERE status = 'open' LIMIT 1"):
        return True
    if reader.rows(f"SELECT 1 FROM {p}requests WHERE status = 'open' AND expires_at > ? LIMIT 1", [now]):
        return True
    if reader.rows(f"SELECT 1 FROM {p}entries WHERE status = 'active' AND state IN ('doubtful', 'anomalous') "
                   "LIMIT 1"):
        return True
    questions = reader.rows(f"SELECT text FROM {p}entries WHERE kind = 'open-loop' AND status = 'active' "
                            "AND (text LIKE '%?%' OR text LIKE '%？%')")
    return any(str(text).rstrip().endswith(("?", "？")) for (text,) in questions)


@dataclass(frozen=True)
class Request:
    store: Path
    policy_dir: Path | None
    actor: str
    domain: str
    limit: int
    open_session: bool
    session_id: str | None = None
    loops: int = 20
    reuse: timedelta = timedelta(minutes=30)


def handoff(request: Request, now: datetime | None = None) -> dict[str, Any] | None:
    """The handoff as `HandoffView.model_dump(mode="json")`, or None: take the main path."""
    if not request.store.is_file():
        return None
    now = now or datetime.now(timezone.utc)
    decided = cached_decision(request.store, policy_digest(request.policy_dir), request.actor, request.domain)
    if decided is None:
        return None
    conn = connect(request.store)
    try:
        reader = threads.Reader(conn, f"mh_{request.domain}_")
        if not reader.rows("SELECT 1 FROM mh_domains WHERE name = ?", [request.domain]):
            return None
        if adopted_policy(reader, request.domain) != decided.policy:
            return None  # another policy was adopted since: the main path decides (and may refuse)
        stamp = json_time(now)
        if _waiting(reader, threads.iso(now)):
            return None
        name = request.domain
        latest = [entry_json(name, r) for r in threads.latest(reader, limit=request.limit)]
        candidates = [entry_json(name, r) for r in threads.candidates(reader, limit=request.limit)]
        loops = [entry_json(name, r) for r in threads.open_loops(reader, limit=request.loops)]
        session_id, reused = None, False
        if request.open_session:
            handed = tuple(dict.fromkeys(e["id"] for e in (*latest, *candidates, *loops)))
            session_id, reused = _open(conn, reader, request, decided, now, handed)
        return {"domain": name, "as_of": stamp, "session_id": session_id, "session_reused": reused,
                "latest": latest, "candidates": candidates, "open_loops": loops,
                "pending_nominations": [], "open_requests": [], "incubation": []}
    finally:
        conn.close()


def _open(conn: sqlite3.Connection, reader: threads.Reader, request: Request, decided: Cached,
          now: datetime, handed: tuple[str, ...]) -> tuple[str, bool]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        found = threads.reusable_session(reader, request.actor, threads.iso(now - request.reuse),
                                         request.session_id)
        if found is None:
            found = str(uuid4())
            Journal(request.domain, "sqlite").append(
                conn, [session_opened(found, request.domain, request.actor, decided.rule, now, handed,
                                      decided.policy)])
            conn.execute("COMMIT")
            return found, False
        conn.execute("COMMIT")
        return found, True
    except BaseException:
        conn.execute("ROLLBACK")
        raise
