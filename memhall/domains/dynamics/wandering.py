"""Wandering: a bounded random walk over the tag graph that proposes synthetic insights.

Each step either follows a memory link (weighted by the link's weight) or, with
the exploration rate, jumps to any entity, the emotionally intense ones more
likely. A jump that lands on an entity not linked by any memory to where the
walk stood, whose neighbourhoods overlap little enough (novelty = 1 − Jaccard
of the two neighbour sets, above the threshold), is proposed as an insight.

Determinism: the walk draws only from `random.Random(seed)`, visits nodes in
sorted order, and never reads wandering links nor the insights already known,
so the same seed over the same graph walks the same path; what is already
known is filtered from the proposals afterwards, so a second run proposes nothing.
"""

from __future__ import annotations

import hashlib
import random
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memhall.domains.dynamics.config import WanderingConfig
from memhall.domains.dynamics.graph import Node, NodeKind, Pair, TagGraph, pair
from memhall.domains.dynamics.record import WANDERING
from memhall.domains.values import Layer


class InsightProposal(BaseModel):
    """A synthetic insight the hall may write as an L1 candidate; never a fact."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    layer: Literal[Layer.L1] = Layer.L1
    source: Literal["wandering"] = "wandering"
    key: str
    text: str
    weight: float = Field(gt=0, le=1)
    #: the two nodes it links, as "kind:name", in order
    nodes: tuple[str, str]
    people: tuple[str, ...] = ()
    places: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    novelty: float = Field(ge=0, le=1)
    seed: int
    step: int
    #: the walk up to the jump that found it, as "kind:name"
    walk: tuple[str, ...]
    #: the memories behind either node
    source_ids: tuple[str, ...]


@dataclass(frozen=True)
class Walk:
    seed: int
    path: tuple[Node, ...]
    insights: tuple[InsightProposal, ...]


def novelty(graph: TagGraph, x: Node, y: Node) -> float:
    """1 − Jaccard of the memory neighbours of x and y (each without the other)."""
    near_x = set(graph.neighbours(x, wandering=False)) - {y}
    near_y = set(graph.neighbours(y, wandering=False)) - {x}
    union = near_x | near_y
    return 1.0 - (len(near_x & near_y) / len(union) if union else 0.0)


def wander(graph: TagGraph, *, seed: int, config: WanderingConfig, start: Node | None = None,
           steps: int | None = None, known: Iterable[Pair] = ()) -> Walk:
    rng = random.Random(seed)
    entities = [n for n in graph.nodes() if n.is_entity]
    if not entities:
        return Walk(seed=seed, path=(), insights=())
    jumps = _Jumps(entities, [1 + config.emotional_jump_weight * graph.intensities.get(n, 0.0)
                              for n in entities])
    current = start if start is not None else entities[int(rng.random() * len(entities))]
    path, found = [current], []
    for step in range(config.steps if steps is None else steps):
        links = graph.neighbours(current, wandering=False)
        neighbours = sorted(links)
        jump = not neighbours or rng.random() < config.exploration_rate
        following = _pick(rng, neighbours, [links[n].weight for n in neighbours]) if not jump else None
        after = jumps.away_from(rng, current) if jump else following
        if after is None:
            break  # a lone entity with no links: nowhere to go
        if jump and current.is_entity and after not in links:
            score = novelty(graph, current, after)
            if score > config.novelty_threshold:
                found.append(_insight(graph, current, after, score, seed, step, [*path, after], config))
        path.append(after)
        current = after
    return Walk(seed=seed, path=tuple(path), insights=_new(found, graph, known))


def _new(found: Sequence[InsightProposal], graph: TagGraph, known: Iterable[Pair]) -> tuple[InsightProposal, ...]:
    seen = {_as_text(pair(*p)) for p in known}
    seen |= {_as_text((link.a, link.b)) for link in graph.links.values() if link.wandering_only}
    fresh: list[InsightProposal] = []
    for insight in found:
        if insight.nodes not in seen:
            seen.add(insight.nodes)
            fresh.append(insight)
    return tuple(fresh)


def _as_text(nodes: Pair) -> tuple[str, str]:
    return (str(nodes[0]), str(nodes[1]))


def _insight(graph: TagGraph, x: Node, y: Node, score: float, seed: int, step: int,
             path: Sequence[Node], config: WanderingConfig) -> InsightProposal:
    a, b = pair(x, y)
    behind = _behind(graph, (a, b), config.max_sources)
    names = {kind: tuple(sorted({n.name for n in (a, b) if n.kind is kind})) for kind in NodeKind}
    return InsightProposal(
        key=f"wandering:{a}|{b}", text=f"Wandering linked {a.name} ({a.kind.value}) "
        f"and {b.name} ({b.kind.value}).", weight=config.insight_weight,
        nodes=(str(a), str(b)), people=names[NodeKind.PERSON], places=names[NodeKind.PLACE],
        topics=names[NodeKind.TOPIC], novelty=round(score, 6), seed=seed, step=step,
        walk=tuple(str(n) for n in path), source_ids=tuple(sorted(behind)),
    )


def _behind(graph: TagGraph, nodes: Sequence[Node], cap: int) -> set[str]:
    """The memories behind the nodes, at most `cap`: each node's strongest links first,
    taking turns, so a busy node cannot crowd out the other."""
    queues = []
    for node in nodes:
        links = sorted(graph.neighbours(node, wandering=False).values(),
                       key=lambda link: (-link.weight, str(link.other(node))))
        queues.append(list(dict.fromkeys(i for link in links for i in sorted(link.memory_ids))))
    chosen: set[str] = set()
    for turn in range(max((len(q) for q in queues), default=0)):
        if len(chosen) >= cap:
            break
        for queue in queues:
            if turn < len(queue) and len(chosen) < cap:
                chosen.add(queue[turn])
    return chosen


def insight_key(proposal_key: str) -> str:
    """The hall's idempotency key of an insight: its nodes, hashed to a bounded length."""
    return f"{WANDERING}:{hashlib.sha256(proposal_key.encode('utf-8')).hexdigest()[:32]}"


def _pick(rng: random.Random, options: Sequence[Node], weights: Sequence[float]) -> Node:
    cumulative = list(accumulate(weights))
    index = bisect_right(cumulative, rng.random() * cumulative[-1])
    return options[min(index, len(options) - 1)]


class _Jumps:
    """Weighted draws among all entities except the current node, in O(log n) each."""

    def __init__(self, entities: Sequence[Node], weights: Sequence[float]) -> None:
        self.entities = entities
        self.weights = weights
        self.cumulative = list(accumulate(weights))
        self.index = {node: i for i, node in enumerate(entities)}

    def away_from(self, rng: random.Random, current: Node) -> Node | None:
        at = self.index.get(current)
        skipped = self.weights[at] if at is not None else 0.0
        room = self.cumulative[-1] - skipped
        if room <= 0:
            return None
        draw = rng.random() * room
        if at is not None and draw >= self.cumulative[at] - skipped:
            draw += skipped  # step over the current node's slice
        index = min(bisect_right(self.cumulative, draw), len(self.entities) - 1)
        return self.entities[index]
