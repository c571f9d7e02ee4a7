"""Adopting a policy, and handing over the system chair: the acts a domain's charter records.

Who may adopt is decided under the policy already adopted, read back from the
log, never under the new one: otherwise naming yourself owner in roles.yaml
would let you adopt it. The first adoption of a domain (or of the store) has
nothing before it and is trust on first use.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from uuid import UUID

import orjson
from sqlalchemy import Connection

from memhall.domains.charter import TRUST_ON_FIRST_USE, Charter
from memhall.domains.errors import InvalidValueError, RefusedError
from memhall.domains.records import Refusal
from memhall.domains.values import PrincipalType, principal_name
from memhall.governance.gate import Refused
from memhall.governance.hall import Hall
from memhall.governance.seal import ADOPT_ACTION, Seal, encoded_files, first_charter
from memhall.governance.store import raw
from memhall.governance.streams import DomainStream
from memhall.governance.tables import SYSTEM
from memhall.policies.digest import digest_summary, policy_digest
from memhall.policies.diff import PolicyDiff
from memhall.policies.engine import PolicySet
from memhall.policies.files import PolicySource, policy_source
from memhall.policies.model import Action, PolicyRequest, ResourceType
from memhall.policies.roles import Role

ADOPT_RULE = "owners-adopt-under-the-adopted-policy"
HANDOVER_RULE = "ratify-owner-hands-over-the-system-chair"
HANDOVER_ACTION = "chair_handover"
_SUMMARY_CHANGES = 5


@dataclass(frozen=True)
class Adoption:
    domain: str
    digest: str
    previous: str
    source: str
    summary: str
    rule: str
    changed: bool = True


@dataclass(frozen=True)
class Handover:
    domain: str
    to: str | None
    previous: str | None


def adopted_source(charter: Charter, digest: str | None = None) -> PolicySource:
    """The files of the policy adopted in `charter` (its latest, or the one with `digest`)."""
    chosen = digest or charter.digest
    files = charter.policies.get(chosen)
    if files is None:
        raise InvalidValueError(f"policy {digest_summary(chosen)} was never adopted in {charter.domain}")
    return policy_source(f"(adopted {digest_summary(chosen)})",
                         {path: base64.b64decode(blob) for path, blob in files.items()})


#: adopted policies loaded from the log, by digest (the digest names the files exactly)
_loaded: dict[str, PolicySet] = {}


def adopted_policy(charter: Charter, digest: str | None = None) -> PolicySet:
    """The adopted policy, loaded from the log."""
    chosen = digest or charter.digest
    if chosen not in _loaded:
        _loaded[chosen] = PolicySet.from_source(adopted_source(charter, chosen))
    return _loaded[chosen]


def _seal(hall: Hall) -> Seal:
    if hall.seal is None:
        raise InvalidValueError("this hall's policy has no files to adopt")
    return hall.seal


def first_adoption(hall: Hall, stream: DomainStream, actor: str) -> None:
    """Trust on first use: bind `stream` to the policy in force, if nothing binds it yet."""
    seal = _seal(hall)
    with hall.writing(stream) as session:
        if seal.charter(stream) is None:
            stream.save(session, first_charter(seal, stream.name, actor))


def adopt(hall: Hall, actor: str, domain: str | None) -> Adoption:
    """Bind `domain` (None: the store's system stream) to the policy in force."""
    actor = principal_name(actor)
    seal = _seal(hall)
    stream = hall.streams.system() if domain is None else hall.stream(domain, actor=actor, action=Action.READ)
    with hall.writing(stream) as session:
        charter = seal.charter(stream)
        if charter is None:
            stream.save(session, first_charter(seal, stream.name, actor))
            return Adoption(stream.name, seal.digest, "", seal.source.root, "first adoption: trust on first use",
                            TRUST_ON_FIRST_USE)
        if charter.digest == seal.digest:
            return Adoption(stream.name, seal.digest, charter.digest, charter.source,
                            f"nothing to adopt: {digest_summary(seal.digest)} is already adopted in "
                            f"{'the store' if stream.name == SYSTEM else stream.name}",
                            ADOPT_RULE, changed=False)
        previous = adopted_policy(charter)
        if not _owns(previous, actor, stream.name):
            _refuse(session, stream, actor, ADOPT_ACTION, str(charter.id), ADOPT_RULE, (
                f"{actor} is not a human ratify owner of {_named(stream.name)} under the adopted policy "
                f"{digest_summary(charter.digest)}: only its owners adopt a new one"))
        summary = change_summary(previous, _in_force(hall, seal))
        charter.adopt(seal.digest, seal.source.root, summary, encoded_files(seal.source), actor=actor,
                      rule=ADOPT_RULE)
        stream.save(session, charter)
    return Adoption(stream.name, seal.digest, previous_digest(charter), seal.source.root, summary, ADOPT_RULE)


def previous_digest(charter: Charter) -> str:
    digests = list(charter.policies)
    return digests[-2] if len(digests) > 1 else ""


def owned_domains(hall: Hall, actor: str) -> list[str]:
    """The domains `actor` owns under each one's adopted policy (for `policy adopt` without --domain)."""
    seal = _seal(hall)
    owned = []
    for name in hall.domain_names():
        charter = seal.charter(hall.streams.stream(name))
        policy = adopted_policy(charter) if charter is not None else _in_force(hall, seal)
        if _owns(policy, actor, name):
            owned.append(name)
    return owned


def hand_over(hall: Hall, actor: str, domain: str, to: str | None) -> Handover:
    """The ratify owner hands the system chair to a backup (`to`), or takes it back (None)."""
    actor = principal_name(actor)
    seal = _seal(hall)
    stream = hall.stream(domain, actor=actor, action=Action.READ)
    with hall.writing(stream) as session:
        hall.require_adopted(session, stream, PolicyRequest(
            principal=actor, action=Action.READ, domain=stream.name, resource_type=ResourceType.DOMAIN))
        policy = _in_force(hall, seal)
        charter = seal.charter(stream)
        target = charter.id if charter is not None else stream.name
        if not _owns(policy, actor, stream.name):
            _refuse(session, stream, actor, HANDOVER_ACTION, str(target), HANDOVER_RULE,
                    f"only a human ratify owner of {stream.name} hands over its system chair; {actor} is not one")
        if to is not None and principal_name(to) not in policy.roles.backups.get(stream.name, ()):
            named = ", ".join(policy.roles.backups.get(stream.name, ())) or "nobody"
            _refuse(session, stream, actor, HANDOVER_ACTION, str(target), HANDOVER_RULE,
                    f"{to} is not a backup system chair of {stream.name} (roles.yaml names: {named})")
        if charter is None:
            charter = first_charter(seal, stream.name, actor)
        previous = charter.chair_to
        if to is None:
            charter.hand_back(actor=actor, rule=HANDOVER_RULE)
        else:
            charter.hand_over(principal_name(to), actor=actor, rule=HANDOVER_RULE)
        stream.save(session, charter)
    return Handover(stream.name, to, previous)


def nomination_policy(stream: DomainStream, promotion_id: UUID) -> str:
    """The digest of the adopted policy a promotion was nominated under ("" before adoption)."""
    with stream.store.read() as conn:
        rows = stream.journal.load(raw(conn), promotion_id)
    if not rows:
        return ""
    return str(orjson.loads(rows[0][2]).get("policy", ""))


def council_policy(hall: Hall, stream: DomainStream, promotion_id: UUID) -> PolicySet | None:
    """The policy whose roles make up a nomination's council: the one adopted when it was made."""
    digest = nomination_policy(stream, promotion_id)
    if not digest or hall.seal is None:
        return None
    charter = hall.seal.charter(stream)
    if charter is None or digest not in charter.policies:
        return None
    return adopted_policy(charter, digest)


#: summaries already computed, by (previous digest, new digest): one command adopts in many domains
_summaries: dict[tuple[str, str], str] = {}


def change_summary(previous: PolicySet, current: PolicySet) -> str:
    """The `policy diff` of an adoption, in one line."""
    from memhall.policies.diff import diff_sets

    key = (policy_digest(previous.source), policy_digest(current.source))
    if key not in _summaries:
        _summaries[key] = _summary(diff_sets(previous, current))
    return _summaries[key]


def _summary(found: PolicyDiff) -> str:
    parts = [f"{len(found.changes)} permission change(s)"]
    edits = [f"{sign}{len(rules)} rule(s)" for sign, rules in
             (("+", found.rules_added), ("-", found.rules_removed), ("~", found.rules_changed)) if rules]
    if edits:
        parts.append(" ".join(edits))
    texts = [f"{change.principal} {change.text}" for change in found.changes[:_SUMMARY_CHANGES]]
    if len(found.changes) > _SUMMARY_CHANGES:
        texts.append(f"and {len(found.changes) - _SUMMARY_CHANGES} more")
    return "; ".join(parts + texts)


def _in_force(hall: Hall, seal: Seal) -> PolicySet:
    gate = hall.gate
    return gate if isinstance(gate, PolicySet) else PolicySet.from_source(seal.source)


def _owns(policy: PolicySet, actor: str, domain: str) -> bool:
    if policy.principal_type(actor) is not PrincipalType.HUMAN:
        return False
    domains = policy.domains if domain == SYSTEM else (domain,)
    return any(Role.RATIFY_OWNER.value in policy.roles_of(actor, name) for name in domains)


def _refuse(session: Connection, stream: DomainStream, actor: str, action: str, target: str, rule: str,
            reason: str) -> None:
    stream.save(session, Refusal(action=action, resource_type="domain", resource_id=target, layer="",
                                 reason=reason, actor=actor, rule=rule))
    raise Refused(RefusedError(f"refused: {reason}", rule=rule, domain="" if stream.name == SYSTEM else stream.name))


def _named(domain: str) -> str:
    return "any domain of the store" if domain == SYSTEM else domain


