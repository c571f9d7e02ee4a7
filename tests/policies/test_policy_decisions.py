"""Decisions of the default policy: ratification, claims, messages and rule ids."""

from __future__ import annotations

import threading
from functools import cache
from typing import Any

import cedarpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhall.policies import engine, questions
from memhall.policies.engine import PolicySet
from memhall.policies.model import Action, PolicyRequest, ResourceType


def canon(principal: str, **facts: Any) -> PolicyRequest:
    values: dict[str, Any] = dict(
        principal=principal, action=Action.RATIFY, domain="company",
        resource_type=ResourceType.PROMOTION, layer="L3", target_layer="L4",
        promotion_path="canon", nominated_by="claude", reminder_sessions=3, dissent_recorded=True,
    )
    values.update(facts)
    return PolicyRequest(**values)


def test_the_ratify_owner_ratifies_canon_with_three_sessions_and_dissent(defaults: PolicySet) -> None:
    decision = defaults.decide(canon("maki"))

    assert decision.allowed
    assert decision.rule_id == "ratify-owner-decides-promotions"


def test_a_nominator_cannot_ratify_its_own_nomination(defaults: PolicySet) -> None:
    decision = defaults.decide(canon("maki", nominated_by="maki"))

    assert not decision.allowed
    assert decision.rule_id == "no-self-ratification"
    assert decision.message == "maki nominated this promotion and cannot ratify it"


@pytest.mark.parametrize("target", ["L3", "L4"])
@pytest.mark.parametrize("action", [Action.RATIFY, Action.REJECT])
def test_the_system_chair_can_never_ratify(defaults: PolicySet, target: str, action: Action) -> None:
    request = canon("claude", action=action, target_layer=target, nominated_by="maki")

    decision = defaults.decide(request)

    assert not decision.allowed
    assert "only-ratify-owners-decide" in decision.rule_ids
    assert "chairs-never-ratify" in decision.rule_ids


def test_canon_with_too_few_reminders_says_how_many(defaults: PolicySet) -> None:
    decision = defaults.decide(canon("maki", reminder_sessions=2, dissent_recorded=False))

    assert not decision.allowed
    assert decision.rule_id == "canon-needs-three-reminder-sessions"
    assert decision.rule_ids == ("canon-needs-three-reminder-sessions", "canon-needs-recorded-dissent")
    assert "2 of 3 reminders" in decision.message
    assert "no dissent recorded" in decision.message


@pytest.mark.parametrize(
    ("claim", "rule"),
    [
        ({"claimed_layer": "L4"}, "claimed-layer-must-be-the-stored-layer"),
        ({"claimed_principal": "maki"}, "claimed-principal-must-be-the-actor"),
        ({"claimed_domain": "family"}, "claimed-domain-must-be-the-domain"),
    ],
)
def test_a_payload_that_impersonates_is_refused(defaults: PolicySet, claim: dict[str, str], rule: str) -> None:
    request = PolicyRequest.model_validate({
        "principal": "codex", "action": Action.RETIRE, "domain": "company",
        "resource_type": ResourceType.ENTRY, "layer": "L2", **claim,
    })

    decision = defaults.decide(request)

    assert not decision.allowed
    assert decision.rule_id == rule


def test_claiming_l4_does_not_let_a_seat_ratify_or_write_canon(defaults: PolicySet) -> None:
    write = PolicyRequest(
        principal="gemini", action=Action.WRITE_L1, domain="company",
        resource_type=ResourceType.ENTRY, target_layer="L1", claimed_layer="L4",
    )

    assert not defaults.decide(write).allowed
    assert not defaults.decide(canon("gemini", claimed_layer="L4")).allowed


def test_nothing_permitted_names_no_rule_and_says_so(defaults: PolicySet) -> None:
    request = PolicyRequest(
        principal="gemini", action=Action.WRITE_L2, domain="company",
        resource_type=ResourceType.ENTRY, target_layer="L2",
    )

    decision = defaults.decide(request)

    assert not decision.allowed
    assert decision.rule_id == ""
    assert decision.message == "no rule permits write_l2 for gemini in company"


def test_an_action_on_the_wrong_resource_type_is_denied(defaults: PolicySet) -> None:
    request = PolicyRequest(
        principal="maki", action=Action.RATIFY, domain="company", resource_type=ResourceType.ENTRY,
    )

    decision = defaults.decide(request)

    assert not decision.allowed
    assert decision.message == "ratify does not apply to a entry"


def test_a_reused_decision_carries_the_request_it_answers(defaults: PolicySet) -> None:
    first = PolicyRequest(
        principal="codex", action=Action.READ, domain="company",
        resource_type=ResourceType.ENTRY, resource_id="a", layer="L2",
    )
    second = first.model_copy(update={"resource_id": "b"})

    defaults.decide(first)
    decision = defaults.decide(second)

    assert decision.allowed
    assert decision.request.resource_id == "b"


def test_batch_decisions_match_single_decisions(defaults: PolicySet) -> None:
    requests = [
        canon("maki"), canon("maki", nominated_by="maki"), canon("claude"),
        PolicyRequest(principal="gemini", action=Action.REQUEST, domain="family", resource_type=ResourceType.DOMAIN),
    ]

    batch = defaults.decide_many(requests)

    assert [(d.allowed, d.rule_ids) for d in batch] == [
        (d.allowed, d.rule_ids) for d in map(defaults.decide, requests)
    ]


def test_roles_and_principals_come_from_roles_yaml(defaults: PolicySet) -> None:
    assert defaults.principals == ("maki", "claude", "codex", "gemini")
    assert defaults.domains == ("company", "family")
    assert defaults.roles_of("codex", "company") == frozenset({"session_chair"})
    assert defaults.principal_type("maki").value == "human"
    assert defaults.principal_type("stranger").value == "agent"


@settings(max_examples=150, deadline=None)
@given(
    action=st.sampled_from(list(Action)),
    layer=st.sampled_from(["", "L1", "L2", "L3", "L4"]),
    target=st.sampled_from(["", "L1", "L2", "L3", "L4"]),
    reminders=st.integers(min_value=0, max_value=10),
    flags=st.tuples(st.booleans(), st.booleans()),
    principal=st.sampled_from(["maki", "claude", "codex", "gemini"]),
)
def test_someone_with_roles_elsewhere_is_denied_everything_in_an_unknown_domain(
    defaults: PolicySet, action: Action, layer: str, target: str, reminders: int,
    flags: tuple[bool, bool], principal: str,
) -> None:
    request = PolicyRequest(
        principal=principal, action=action, domain="elsewhere",
        resource_type=defaults.resource_types_for(action)[0], layer=layer, target_layer=target,
        reminder_sessions=reminders, has_evidence=flags[0], dissent_recorded=flags[1],
    )

    assert not defaults.decide(request).allowed


@settings(max_examples=150, deadline=None)
@given(
    action=st.sampled_from(list(Action)),
    stored=st.sampled_from(["", "L1", "L2", "L3"]),
    principal=st.sampled_from(["maki", "claude", "codex", "gemini"]),
)
def test_claiming_a_layer_other_than_the_stored_one_is_always_refused(
    defaults: PolicySet, action: Action, stored: str, principal: str
) -> None:
    request = PolicyRequest(
        principal=principal, action=action, domain="company",
        resource_type=defaults.resource_types_for(action)[0], layer=stored, claimed_layer="L4",
        has_evidence=True, reminder_sessions=3, dissent_recorded=True,
    )

    assert not defaults.decide(request).allowed


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(
    st.sampled_from(list(Action)),
    st.sampled_from(["maki", "claude", "codex", "gemini", "stranger"]),
    st.sampled_from(["", "L1", "L2", "L3", "L4"]),
    st.sampled_from(["claim", "episode", "quote"]),
    st.booleans(),
    st.sampled_from(["", "maki", "codex"]),
    st.sampled_from(["", "L2", "L4"]),
), min_size=1, max_size=12))
def test_a_batch_of_decisions_answers_as_each_decision_alone(
    facts: list[tuple[Action, str, str, str, bool, str, str]],
) -> None:
    # authors and claims vary apart from the principal: requests that differ only in what
    # no rule of their action reads are asked of Cedar once, and must still answer alike
    requests = [PolicyRequest(principal=p, action=a, domain="company", resource_type=ResourceType.ENTRY,
                              target_layer=layer, kind=kind, author=author or p, has_evidence=evidence,
                              claimed_layer=claimed)
                for a, p, layer, kind, evidence, author, claimed in facts]

    batching, alone = two_ways()  # (each deciding its own way only, across examples: a batch may
    batched = batching.decide_batch(requests)  # meet answers it remembers beside ones it asks)

    assert batched == [alone.decide(r) for r in requests]


@cache
def two_ways() -> tuple[PolicySet, PolicySet]:
    """Two loads of the default policy: one that only decides in batches, one that only decides
    alone (loaded once for every example: a load takes ~0.2 s)."""
    return PolicySet.load(None), PolicySet.load(None)


def test_a_batch_asks_cedar_once_per_question_it_can_tell_apart_and_answers_each_as_alone() -> None:
    requests = [PolicyRequest(principal=p, action=a, domain="company", resource_type=ResourceType.ENTRY,
                              target_layer="L2", kind="claim", author=author, claimed_layer=claimed)
                for a in Action for p in ("maki", "codex", "stranger") for author in ("maki", "codex", "x")
                for claimed in ("", "L2", "L4")]

    batched = PolicySet.load(None).decide_batch(requests)

    alone = PolicySet.load(None)
    assert batched == [alone.decide(r) for r in requests]


def test_resources_whose_read_facts_line_up_under_different_actions_stay_apart() -> None:
    # nominate reads (domain, layer, target_layer), withdraw (domain, layer, nominated_by):
    # the same values in the same places are still two resources to Cedar
    facts: dict[str, Any] = dict(domain="company", resource_type=ResourceType.PROMOTION, layer="L2")
    requests = [
        PolicyRequest(principal="claude", action=Action.NOMINATE, target_layer="claude", **facts),
        PolicyRequest(principal="claude", action=Action.WITHDRAW, nominated_by="claude", **facts),
        PolicyRequest(principal="claude", action=Action.WITHDRAW, target_layer="claude", **facts),
    ]

    batched = PolicySet.load(None).decide_batch(requests)

    alone = PolicySet.load(None)
    assert batched == [alone.decide(r) for r in requests]
    assert [d.allowed for d in batched] == [False, True, False]


def test_a_large_batch_is_answered_chunk_by_chunk_with_entities_parsed_aside_as_each_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(engine, "_BATCH", 7)
    monkeypatch.setattr(engine, "_PIPELINED", 14)
    parsed_in: list[str] = []
    parse = questions._parse

    def parse_noting_the_thread(text: str) -> cedarpy.Entities:
        parsed_in.append(threading.current_thread().name)
        return parse(text)

    monkeypatch.setattr(questions, "_parse", parse_noting_the_thread)
    requests = [PolicyRequest(principal=p, action=a, domain=d, resource_type=ResourceType.ENTRY,
                              target_layer="L2", kind=kind, claimed_layer=claimed)
                for a in (Action.WRITE_L2, Action.READ, Action.DEMOTE) for p in ("maki", "codex", "stranger")
                for d in ("company", "family", "elsewhere") for kind in ("claim", "decision")
                for claimed in ("", "L4")]

    batched = PolicySet.load(None).decide_batch(requests)

    alone = PolicySet.load(None)
    assert batched == [alone.decide(r) for r in requests]
    assert len(parsed_in) > 2  # one entity set per chunk, not one for the batch
    assert any(name.startswith("memhall-policy-entities") for name in parsed_in)
