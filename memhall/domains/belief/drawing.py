"""The evidence graph as text, a JSON-able dict, Mermaid and Graphviz dot: labels, no prose."""

from __future__ import annotations

from typing import Any

from memhall.domains.belief.belief import Belief, Understanding
from memhall.domains.belief.why import Edge, EvidenceGraph


def _understanding(u: Understanding) -> dict[str, Any]:
    return {
        "state": u.state.value,
        "confidence": u.confidence,
        "subject": u.subject,
        "interpretation": u.interpretation,
        "until": u.at.isoformat(),
        "cause": u.cause.revision.value,
        "position": u.cause.position,
        "principal": u.cause.principal,
    }


def belief_dict(belief: Belief) -> dict[str, Any]:
    return {
        "claim_root": belief.claim_root,
        "subject": belief.subject,
        "interpretation": belief.interpretation,
        "source_kind": belief.source_kind.value,
        "source_agent": belief.source_agent,
        "topics": list(belief.topics),
        "layer": belief.layer.value,
        "confidence": belief.confidence,
        "state": belief.state.value,
        "last_evidence_at": belief.last_evidence_at.isoformat(),
        "as_of": belief.as_of.isoformat(),
        "origin": belief.origin,
        "corroborators": [
            {"principal": c.principal, "position": c.position, "at": c.at.isoformat()}
            for c in belief.corroborators
        ],
        "witnessed_by": list(belief.witnessed_by),
        "contested_by": list(belief.contested_by),
        "history": [_understanding(u) for u in belief.history],
    }


def _edge_dict(edge: Edge) -> dict[str, Any]:
    return {
        "kind": edge.kind.value,
        "source": edge.source,
        "target": edge.target,
        "position": edge.position,
        "principal": edge.principal,
        "at": edge.at.isoformat(),
        "recorded_at": edge.recorded_at.isoformat(),
        "note": edge.note,
    }


def as_dict(graph: EvidenceGraph) -> dict[str, Any]:
    return {
        "claim_root": graph.claim_root,
        "as_of": {"at": graph.as_of.at.isoformat(), "position": graph.as_of.position},
        "belief": belief_dict(graph.belief),
        "nodes": [
            {"id": n.id, "kind": n.kind.value, "label": n.label, "position": n.position}
            for n in graph.nodes
        ],
        "edges": [_edge_dict(e) for e in graph.edges],
    }


def _edge_label(edge: Edge) -> str:
    note = f" ({edge.note})" if edge.note else ""
    return f"{edge.kind.value}{note} @{edge.position} {edge.principal} {edge.at.isoformat()}"


def as_text(graph: EvidenceGraph) -> str:
    belief = graph.belief
    cut = f" @{graph.as_of.position}" if graph.as_of.position is not None else ""
    lines = [
        f"why {graph.claim_root} as of {graph.as_of.at.isoformat()}{cut}",
        f"belief: {belief.state.value} {belief.confidence} {belief.layer.value}: {belief.subject}",
    ]
    if belief.interpretation:
        lines.append(f"interpretation: {belief.interpretation}")
    lines.append("nodes:")
    lines += [f"  {n.id}  {n.label}" for n in graph.nodes]
    lines.append("edges:")
    lines += [f"  {e.source} -> {e.target}  {_edge_label(e)}" for e in graph.edges]
    lines.append("history:")
    for u in belief.history:
        by = f" @{u.cause.position} {u.cause.principal}" if u.cause.position is not None else ""
        lines.append(
            f"  {u.state.value} {u.confidence}: {u.subject}  "
            f"until {u.at.isoformat()} ({u.cause.revision.value}{by})"
        )
    lines.append(f"  now {belief.state.value} {belief.confidence}: {belief.subject}")
    return "\n".join(lines) + "\n"


def _ids(graph: EvidenceGraph) -> dict[str, str]:
    # Node ids hold ':' '@' and free text, which neither format accepts bare.
    return {node.id: f"n{i}" for i, node in enumerate(graph.nodes)}


def _mermaid(text: str) -> str:
    return " ".join(text.split()).replace('"', "#quot;")


def as_mermaid(graph: EvidenceGraph) -> str:
    ids = _ids(graph)
    lines = ["flowchart LR"]
    lines += [f'  {ids[n.id]}["{n.kind.value}: {_mermaid(n.label)}"]' for n in graph.nodes]
    lines += [
        f'  {ids[e.source]} -->|"{_mermaid(_edge_label(e))}"| {ids[e.target]}'
        for e in graph.edges
    ]
    return "\n".join(lines) + "\n"


def _dot(text: str) -> str:
    return " ".join(text.split()).replace("\\", "\\\\").replace('"', '\\"')


_SHAPES = {"claim": "box", "evidence": "note", "principal": "ellipse", "ref": "component"}


def as_dot(graph: EvidenceGraph) -> str:
    ids = _ids(graph)
    lines = ["digraph why {", "  rankdir=LR;"]
    lines += [
        f'  {ids[n.id]} [shape={_SHAPES[n.kind.value]}, label="{_dot(n.label)}"];'
        for n in graph.nodes
    ]
    lines += [
        f'  {ids[e.source]} -> {ids[e.target]} [label="{_dot(_edge_label(e))}"];'
        for e in graph.edges
    ]
    lines.append("}")
    return "\n".join(lines) + "\n"
