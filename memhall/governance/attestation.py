"""`audit verify`'s check of what events attest: each decision names the adopted policy, each human act its signature.

Walked from the log alone: the adoptions in it carry the policy files, so the
allowed_signers a signature is checked against are the ones adopted when the
act was made, whatever the policy folder says today.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

import orjson
from pydantic import BaseModel
from sqlalchemy import Connection, text

from memhall.domains.errors import MemhallError, PolicyConfigError
from memhall.domains.moments import from_iso
from memhall.governance.seal import ADOPTED, OPENED, SIGNED_TOPICS
from memhall.governance.tables import tables_for
from memhall.policies.acts import event_act
from memhall.policies.digest import digest_summary, policy_digest
from memhall.policies.files import PolicySource, policy_source
from memhall.policies.signers import AllowedSigners
from memhall.policies.signing import verify

_BATCH = 2000


class ActsReport(BaseModel):
    domain: str
    ok: bool
    #: events written before adoption existed: they name no policy (reported, not failed)
    pre_adoption: int
    adoptions: int
    signatures: int
    problem: str | None = None
    position: int | None = None


@dataclass
class _Walk:
    domain: str
    current: str = ""
    signers: dict[str, AllowedSigners] = field(default_factory=dict)
    pending: list[tuple[int, str]] = field(default_factory=list)
    pre_adoption: int = 0
    adoptions: int = 0
    signatures: int = 0
    problem: str | None = None
    position: int | None = None

    def fail(self, position: int, problem: str) -> None:
        if self.problem is None:
            self.position, self.problem = position, problem

    def event(self, position: int, topic: str, state: dict[str, object]) -> None:
        named = str(state.get("policy", ""))
        if not self.current:
            if topic != OPENED:
                if named:
                    self.pending.append((position, named))
                else:
                    self.pre_adoption += 1
                return
            digest = str(state["digest"])
            for at, earlier in self.pending:
                if earlier != digest:
                    self.fail(at, f"event {at} names policy {digest_summary(earlier)}, which was never adopted")
            self.pending.clear()
            if named not in ("", digest):
                self.fail(position, f"the first adoption at {position} names policy {digest_summary(named)}")
            self._adopt(position, state)
            return
        if named != self.current:
            what = f"policy {digest_summary(named)}" if named else "no policy"
            self.fail(position, f"event {position} names {what}, but {digest_summary(self.current)} was "
                                "the adopted policy then")
        if topic in SIGNED_TOPICS:
            self._signature(position, topic, state)
        if topic == ADOPTED:
            self._adopt(position, state)

    def _adopt(self, position: int, state: dict[str, object]) -> None:
        digest = str(state["digest"])
        try:
            source = _adopted_source(state)
            self.signers[digest] = AllowedSigners.of(source)
            if policy_digest(source) != digest:
                self.fail(position, f"the files adopted at {position} do not hash to the digest it names")
        except (PolicyConfigError, ValueError) as error:
            self.fail(position, f"the policy adopted at {position} cannot be read back: {error}")
        self.current = digest
        self.adoptions += 1

    def _signature(self, position: int, topic: str, state: dict[str, object]) -> None:
        signers = self.signers.get(self.current)
        actor = str(state["actor"])
        signature = str(state.get("signature", ""))
        if signers is None or not signers.has_key(actor):
            return
        if not signature:
            self.fail(position, f"event {position} ({topic.rsplit('.', 1)[-1].lower()} by {actor}) carries no "
                                "signature, but the adopted allowed_signers lists a key for them")
            return
        try:
            verify(event_act(self.domain, topic, state), signature, signers, actor,
                   at=from_iso(str(state["timestamp"])))
        except MemhallError as error:
            self.fail(position, f"the signature of event {position} does not verify: {error}")
            return
        self.signatures += 1

    def report(self) -> ActsReport:
        for at, _ in self.pending[:1]:
            self.fail(at, f"event {at} names a policy, but nothing was ever adopted in {self.domain}")
        return ActsReport(domain=self.domain, ok=self.problem is None, pre_adoption=self.pre_adoption,
                          adoptions=self.adoptions, signatures=self.signatures, problem=self.problem,
                          position=self.position)


def _adopted_source(state: dict[str, object]) -> PolicySource:
    """The policy files an adoption (or a charter's opening) carries, as a policy source."""
    files = state.get("files")
    blobs = files if isinstance(files, dict) else {}
    return policy_source(f"(adopted {digest_summary(str(state['digest']))})", {
        str(path): base64.b64decode(str(blob)) for path, blob in blobs.items()})


def adopted_signers(conn: Connection, domain: str, position: int) -> AllowedSigners | None:
    """The allowed_signers of the policy `domain` had adopted at `position`, read from its last
    adoption at or before it in the log (never from the policy folder on disk, which whoever
    holds the files can edit); None if nothing was adopted by then."""
    found = conn.execute(text(
        f"SELECT state FROM {tables_for(domain).events_name} WHERE topic IN (:opened, :adopted) "
        "AND id <= :position ORDER BY id DESC LIMIT 1"), {"opened": OPENED, "adopted": ADOPTED,
                                                         "position": position}).scalar()
    if found is None:
        return None
    try:
        return AllowedSigners.of(_adopted_source(orjson.loads(bytes(found))))
    except (PolicyConfigError, ValueError):
        return None  # the acts check reports an adoption that cannot be read back


class ActsWalk:
    """`verify_acts` fed one stored event at a time, in log order, by a walk that reads them
    anyway (`audit verify`'s chain walk): the log is read once, not twice."""

    def __init__(self, domain: str) -> None:
        self._walk = _Walk(domain)

    def event(self, position: int, topic: str, state: bytes) -> None:
        self._walk.event(position, topic, orjson.loads(state))

    def seen(self, position: int, topic: str, state: dict[str, object]) -> None:
        """`event` with the state already parsed (by a walk that reads it for more than this)."""
        self._walk.event(position, topic, state)

    def report(self) -> ActsReport:
        return self._walk.report()


def verify_acts(conn: Connection, domain: str) -> ActsReport:
    """Every event of `domain`, in log order: its policy digest, and a human act's signature."""
    walk = _Walk(domain)
    query = text(f"SELECT id, topic, state FROM {tables_for(domain).events_name} "
                 "WHERE id > :after ORDER BY id LIMIT :n")
    after = 0
    while True:
        rows = conn.execute(query, {"after": after, "n": _BATCH}).all()
        for position, topic, state in rows:
            walk.event(int(position), str(topic), orjson.loads(bytes(state)))
        if len(rows) < _BATCH:
            break
        after = int(rows[-1][0])
    return walk.report()
