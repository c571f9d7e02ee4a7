""""Why do you believe X?" is answered from the evidence graph, drawn four ways, deterministically."""

from __future__ import annotations

import json

from memhall.domains.belief import AsOf, EdgeKind, EvidenceKind, why
from memhall.domains.belief.drawing import as_dict, as_dot, as_mermaid, as_text
from memhall.domains.belief.records import BeliefEvent
from memhall.domains.belief.why import EvidenceGraph
from memhall.domains.values import SourceKind

from .examples import claim, day, evidence

CON, SUP = EvidenceKind.CONTRADICTS, EvidenceKind.SUPPORTS
RUMOUR = claim(refs=("chat:42",))
EVENTS: list[BeliefEvent] = [
    evidence(SUP, SourceKind.HEARSAY, from_agent="grok", actor="gemini", at=day(1), position=2),
    evidence(CON, at=day(3), position=3, actor="maki", ref="photo:1"),
    evidence(CON, at=day(4), position=4, actor="claude", text='the "NAS" is up'),
]


def edges(graph: EvidenceGraph) -> list[tuple[str, str, str, int, str]]:
    return [(e.kind.value, e.source, e.target, e.position, e.principal) for e in graph.edges]


def test_the_graph_has_every_edge_kind_with_its_event_and_principal() -> None:
    graph = why(RUMOUR, EVENTS[:2], day(3))

    assert edges(graph) == [
        ("heard_from", "claim:nas-down", "principal:codex", 1, "gemini"),
        ("inferred_from", "claim:nas-down", "ref:chat:42", 1, "gemini"),
        ("supports", "evidence:@2", "claim:nas-down", 2, "gemini"),
        ("heard_from", "evidence:@2", "principal:grok", 2, "gemini"),
        ("corroborated_by", "claim:nas-down", "principal:grok", 2, "gemini"),
        ("contradicts", "evidence:@3", "claim:nas-down", 3, "maki"),
        ("witnessed", "principal:maki", "evidence:@3", 3, "maki"),
        ("inferred_from", "evidence:@3", "ref:photo:1", 3, "maki"),
    ]
    assert graph.edges[2].at == day(1)


def test_a_correction_is_drawn_as_corrected_by_the_firsthand_evidence() -> None:
    graph = why(RUMOUR, EVENTS, day(5))

    assert ("corrected_by", "claim:nas-down", "evidence:@4", 4, "claude") in edges(graph)
    assert EdgeKind.CORROBORATED_BY not in {e.kind for e in graph.edges}


def test_as_of_before_the_correction_the_graph_is_as_it_was() -> None:
    graph = why(RUMOUR, EVENTS, AsOf(day(30), position=3))

    assert "evidence:@4" not in {n.id for n in graph.nodes}
    assert graph.belief.subject == "the NAS is down"


def test_the_text_gives_edges_and_the_history_of_states_and_confidences() -> None:
    text = as_text(why(RUMOUR, EVENTS, day(5)))

    assert text.splitlines()[:2] == [
        "why nas-down as of 2025-03-06T09:00:00+00:00",
        'belief: corrected 72 L2: the "NAS" is up',
    ]
    assert text.endswith(
        "history:\n"
        "  influencing 58: the NAS is down  until 2025-03-02T09:00:00+00:00 (reinforce @2 grok)\n"
        "  influencing 66: the NAS is down  until 2025-03-04T09:00:00+00:00 (doubt @3 maki)\n"
        "  doubtful 46: the NAS is down  until 2025-03-05T09:00:00+00:00 (correct @4 claude)\n"
        '  now corrected 72: the "NAS" is up\n'
    )


def test_every_rendering_is_the_same_whatever_order_the_events_come_in() -> None:
    one = why(RUMOUR, EVENTS, day(5))
    other = why(RUMOUR, list(reversed(EVENTS)) + EVENTS, day(5))

    for draw in (as_text, as_mermaid, as_dot):
        assert draw(one) == draw(other)
    assert as_dict(one) == as_dict(other)


def test_the_dict_is_json_ready() -> None:
    data = json.loads(json.dumps(as_dict(why(RUMOUR, EVENTS, day(5)))))

    assert data["belief"]["state"] == "corrected"
    assert data["belief"]["history"][-1]["cause"] == "correct"
    assert {e["kind"] for e in data["edges"]} >= {"supports", "contradicts", "corrected_by"}


def test_mermaid_and_dot_escape_quotes_and_use_plain_node_ids() -> None:
    graph = why(RUMOUR, EVENTS, day(5))

    mermaid, dot = as_mermaid(graph), as_dot(graph)

    assert mermaid.startswith("flowchart LR\n  n0[\"claim: the #quot;NAS#quot; is up")
    assert '-->|"corrected_by @4 claude' in mermaid
    assert dot.startswith('digraph why {\n  rankdir=LR;\n  n0 [shape=box, label="the \\"NAS\\" is up')
    assert dot.endswith("}\n")
