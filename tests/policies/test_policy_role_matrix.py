"""Every role x action x layer move: forbidden ones are refused, allowed ones allowed."""

from __future__ import annotations

from pathlib import Path

from memhall.policies import grid
from memhall.policies.engine import PolicySet
from memhall.policies.model import Action, PolicyRequest, ResourceType

A = Action
READERS = {A.READ, A.SEARCH, A.HANDOFF}
HOLDERS = {"codex": "session_chair", "gemini": "seat", "claude": "system_chair", "maki": "ratify_owner"}


WRITES = {A.WRITE_L1: "L1", A.WRITE_L2: "L2"}  # a write action names the layer it writes
WRITTEN = ("L1", "L2")


def supersedes(layer: str, target: str, writes: tuple[str, ...]) -> bool:
    """Within the layers one writes, never from below, never onto L3/L4."""
    return layer in writes and target in writes and not (layer == "L2" and target == "L1")


def may(role: str, action: Action, layer: str, target: str) -> bool:
    """SPEC §1-§3, written out independently of the Cedar rules."""
    if action in WRITES and target != WRITES[action]:
        return False
    if action in READERS:
        return True
    if action is A.REBUILD:
        return role != "seat"
    if role == "session_chair":
        if action in (A.WRITE_L1, A.WRITE_L2):
            return target in ("L1", "L2")
        if action is A.PROMOTE:
            return (layer, target) == ("L1", "L2")
        if action is A.RETIRE:
            return layer in ("L1", "L2")
        if action is A.SUPERSEDE:
            return supersedes(layer, target, WRITTEN)
        return action in {A.WRAP_UP, A.CLOSE_LOOP, A.REMIND, A.REQUEST, A.DISSENT}
    if role == "seat":
        if action is A.SUPERSEDE:
            return supersedes(layer, target, ("L1",))
        return (action is A.WRITE_L1 and target == "L1") or action in (A.REQUEST, A.DISSENT)
    if role == "system_chair":
        if action is A.NOMINATE:
            return (layer, target) in {("L2", "L3"), ("L3", "L4")}
        return action in {A.DISSENT, A.REMIND, A.MATERIALIZE, A.ANSWER, A.AUDIT_REVIEW, A.WITHDRAW}
    if role == "ratify_owner":
        if action in (A.RATIFY, A.REJECT):
            return True
        if action is A.DEMOTE:
            return (layer, target) in {("L4", "L3"), ("L3", "L2")}
        if action in (A.WRITE_L1, A.WRITE_L2):
            return target in ("L1", "L2")
        if action is A.SUPERSEDE:
            return supersedes(layer, target, WRITTEN)
        return action in {A.AUDIT_REVIEW, A.DOMAIN_CREATE, A.RETIRE}
    return False


def matrix(policy_set: PolicySet, principals: list[str]) -> list[PolicyRequest]:
    """Every principal x domain x action x resource type x layer move, with the
    facts that make an allowed action pass (evidence, 3 reminders, dissent)."""
    requests = []
    for principal in principals:
        for domain in policy_set.domains:
            for action in Action:
                for rtype in policy_set.resource_types_for(action):
                    for layer, target in grid.moves(action, rtype):
                        requests.append(PolicyRequest(
                            principal=principal, action=action, domain=domain,
                            resource_type=rtype, layer=layer, target_layer=target,
                            has_evidence=True, reminder_sessions=3, dissent_recorded=True,
                            nominated_by=principal if action is A.WITHDRAW else "someone-else",
                            seat=principal if action is A.REQUEST else "",
                        ))
    return requests


def test_no_role_is_granted_an_action_the_spec_forbids_it(defaults: PolicySet) -> None:
    requests = matrix(defaults, list(HOLDERS))

    accepted = [
        r for r in requests
        if not may(HOLDERS[r.principal], r.action, r.layer, r.target_layer) and defaults.decide(r).allowed
    ]

    assert len(requests) > 300
    assert accepted == []


def test_every_action_the_spec_grants_a_role_is_allowed(defaults: PolicySet) -> None:
    requests = matrix(defaults, list(HOLDERS))

    refused = [
        (r, defaults.decide(r).message) for r in requests
        if may(HOLDERS[r.principal], r.action, r.layer, r.target_layer) and not defaults.decide(r).allowed
    ]

    assert refused == []


def test_a_principal_with_no_role_in_a_domain_can_do_nothing_there(defaults: PolicySet) -> None:
    requests = matrix(defaults, ["stranger"])

    accepted = [r for r in requests if defaults.decide(r).allowed]

    assert accepted == []


def test_roles_in_one_domain_grant_nothing_in_another(policy_dir: Path) -> None:
    roles = policy_dir / "roles.yaml"
    roles.write_text(roles.read_text().replace(
        "  family:\n    ratify_owner: [maki]\n    system_chair: [claude]\n"
        "    session_chair: [codex]\n    seat: [gemini]\n    backup_system_chair: [codex]\n", ""
    ))
    policy_set = PolicySet.load(policy_dir)
    family = [r for r in matrix(policy_set, list(HOLDERS)) if r.domain == "family"]

    accepted = [r for r in family if policy_set.decide(r).allowed]

    assert policy_set.roles_of("codex", "family") == frozenset()
    assert accepted == []


def test_the_grid_reaches_every_resource_type(defaults: PolicySet) -> None:
    types = {rtype for types in defaults.applies.values() for rtype in types}

    assert types == set(ResourceType)
