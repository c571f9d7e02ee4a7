""""Why do you believe X?": the evidence graph of one belief, as data (S0 §16, §21)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import Enum

from memhall.domains.belief.belief import Belief, Revision
from memhall.domains.belief.fold import NEUTRAL_VIEW, as_cut, counted, fold
from memhall.domains.belief.records import AsOf, BeliefEvent, Claim, Evidence, EvidenceKind
from memhall.domains.belief.trust import ObserverTrust
from memhall.domains.values import DEFAULT_IMPLANTED_CONFIDENCE, SourceKind


class NodeKind(str, Enum):
    CLAIM = "claim"
    EVIDENCE = "evidence"
    PRINCIPAL = "principal"
    REF = "ref"


class EdgeKind(str, Enum):
    SUPPORTS = "supports"  # evidence → claim
    CONTRADICTS = "contradicts"  # evidence → claim (note "anomaly" for a strong conflict)
    HEARD_FROM = "heard_from"  # claim or evidence → the principal who told it
    WITNESSED = "witnessed"  # principal → the claim or evidence it saw firsthand
    INFERRED_FROM = "inferred_from"  # claim or evidence → the ref it rests on
    CORRECTED_BY = "corrected_by"  # claim → the firsthand evidence that corrected it
    CORROBORATED_BY = "corroborated_by"  # claim → a principal who independently supported it


_NODE_ORDER = {kind: i for i, kind in enumerate(NodeKind)}
_EDGE_ORDER = {kind: i for i, kind in enumerate(EdgeKind)}


@dataclass(frozen=True, slots=True)
class Node:
    id: str
    kind: NodeKind
    label: str
    #: the event position for claim and evidence nodes
    position: int | None = None


@dataclass(frozen=True, slots=True)
class Edge:
    """One edge, with the event it comes from, the principal who recorded it, and when the
    thing happened (`at`, occurred) and was recorded."""

    kind: EdgeKind
    source: str
    target: str
    position: int
    principal: str
    at: datetime
    recorded_at: datetime
    note: str | None = None


@dataclass(frozen=True, slots=True)
class EvidenceGraph:
    claim_root: str
    as_of: AsOf
    belief: Belief
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]


def claim_id(root: str) -> str:
    return f"claim:{root}"


def evidence_id(position: int) -> str:
    return f"evidence:@{position}"


def principal_id(name: str) -> str:
    return f"principal:{name}"


def ref_id(ref: str) -> str:
    return f"ref:{ref}"


class _Builder:
    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self.edges: set[Edge] = set()

    def node(self, node: Node) -> str:
        self.nodes.setdefault(node.id, node)
        return node.id

    def principal(self, name: str) -> str:
        return self.node(Node(principal_id(name), NodeKind.PRINCIPAL, name))

    def ref(self, ref: str) -> str:
        return self.node(Node(ref_id(ref), NodeKind.REF, ref))

    def edge(self, kind: EdgeKind, source: str, target: str, event: Claim | Evidence,
             principal: str, note: str | None = None) -> None:
        self.edges.add(Edge(kind, source, target, event.position, principal,
                            event.occurred_at, event.recorded_at, note))


def _claim(build: _Builder, claim: Claim, belief: Belief) -> str:
    label = f"{belief.subject} [{belief.state.value} {belief.confidence}, {belief.layer.value}]"
    me = build.node(Node(claim_id(claim.claim_root), NodeKind.CLAIM, label, claim.position))
    if claim.source_kind is SourceKind.HEARSAY and claim.source_agent:
        teller = build.principal(claim.source_agent)
        build.edge(EdgeKind.HEARD_FROM, me, teller, claim, claim.author)
    elif claim.source_kind is SourceKind.FIRSTHAND:
        build.edge(EdgeKind.WITNESSED, build.principal(claim.author), me, claim, claim.author)
    for ref in claim.refs:
        build.edge(EdgeKind.INFERRED_FROM, me, build.ref(ref), claim, claim.author)
    return me


def _evidence(build: _Builder, claim: str, evidence: Evidence, effect: Revision) -> str:
    text = f": {evidence.text}" if evidence.text else ""
    label = (f"@{evidence.position} {evidence.kind.value} {evidence.source_kind.value} "
             f"({effect.value}){text}")
    me = build.node(Node(evidence_id(evidence.position), NodeKind.EVIDENCE, label,
                         evidence.position))
    if evidence.kind is EvidenceKind.SUPPORTS:
        build.edge(EdgeKind.SUPPORTS, me, claim, evidence, evidence.actor)
    else:
        note = "anomaly" if evidence.kind is EvidenceKind.ANOMALY else None
        build.edge(EdgeKind.CONTRADICTS, me, claim, evidence, evidence.actor, note)
    if evidence.from_agent:
        build.edge(EdgeKind.HEARD_FROM, me, build.principal(evidence.from_agent), evidence,
                   evidence.actor)
    else:
        build.edge(EdgeKind.WITNESSED, build.principal(evidence.actor), me, evidence,
                   evidence.actor)
    if evidence.ref:
        build.edge(EdgeKind.INFERRED_FROM, me, build.ref(evidence.ref), evidence, evidence.actor)
    return me


def graph(claim: Claim, events: Iterable[BeliefEvent], belief: Belief,
          as_of: datetime | AsOf) -> EvidenceGraph:
    """The graph behind `belief` (folded from the same claim, events and as-of)."""
    cut = as_cut(as_of)
    evidence = {e.position: e for e in counted(claim.claim_root, events, cut)
                if isinstance(e, Evidence)}
    effects = {u.cause.position: u.cause.revision for u in belief.history
               if u.cause.position is not None}
    build = _Builder()
    me = _claim(build, claim, belief)
    for position, item in evidence.items():
        node = _evidence(build, me, item, effects.get(position, Revision.KEEP))
        if effects.get(position) is Revision.CORRECT:
            build.edge(EdgeKind.CORRECTED_BY, me, node, item, item.actor)
    for corroboration in belief.corroborators:
        source = evidence.get(corroboration.position)
        if source is None:
            continue  # a belief folded from other events than these: draw what is here
        build.edge(EdgeKind.CORROBORATED_BY, me, build.principal(corroboration.principal),
                   source, source.actor)
    nodes = sorted(build.nodes.values(),
                   key=lambda n: (_NODE_ORDER[n.kind], n.position or 0, n.id))
    edges = sorted(build.edges,
                   key=lambda e: (e.position, _EDGE_ORDER[e.kind], e.source, e.target))
    return EvidenceGraph(claim.claim_root, cut, belief, tuple(nodes), tuple(edges))


def why(
    claim: Claim,
    events: Iterable[BeliefEvent],
    as_of: datetime | AsOf,
    trust: ObserverTrust = NEUTRAL_VIEW,
    *,
    implanted: int = DEFAULT_IMPLANTED_CONFIDENCE,
) -> EvidenceGraph:
    """Fold the belief and lay out the graph behind it, from the same events."""
    events = tuple(events)
    belief = fold(claim, events, as_of, trust, implanted=implanted)
    return graph(claim, events, belief, as_of)
