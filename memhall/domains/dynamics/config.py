"""The numbers of the memory dynamics, each settable in the policy folder's dynamics.yaml.

Defaults come from seed 001 where it names a number (working memory ≈10, the
preconscious pool 50–100, 20 wandering steps, insight weight 0.1, update
strength 0.05); where the seed names a knob but no value, the default is ours
and says why next to it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ForgettingConfig(_Section):
    """strength = s0 · exp(−t / stability), stability = base · (1 + reviews · boost)."""

    #: s0: a fresh memory's strength.
    initial_strength: float = Field(default=1.0, gt=0, le=1)
    #: base_stability, in days. Ours: a week, so an unused memory fades below the
    #: threshold after about 11 days (7 · ln 5) and a memory reviewed weekly never does.
    base_stability_days: float = Field(default=7.0, gt=0)
    #: boost_factor: each review adds this many base stabilities (linear, as in the seed).
    review_boost: float = Field(default=1.0, ge=0)
    #: Below this strength a memory is "faded": lower priority, never deleted.
    threshold: float = Field(default=0.2, gt=0, lt=1)
    #: The retrieval weight of a faded memory. Ours: 0.9, so forgetting reorders memories
    #: about equally relevant and never outvotes relevance (at 0.5 the recall eval's R@5
    #: fell from 25.5 % to 9.6 %; at 0.8 to 23.4 %; at 0.9 it holds).
    faded_weight: float = Field(default=0.9, gt=0, le=1)


class ConsolidationConfig(_Section):
    """Which recent episodes become one semantic note ("sleep")."""

    #: "Recent": the seed's example draws on last week's episodes.
    window_days: float = Field(default=7.0, gt=0)
    #: The seed's example condenses three episodes into one note.
    min_cluster: int = Field(default=3, ge=2)
    #: How much of each episode's first sentence the extractive note quotes.
    snippet_chars: int = Field(default=160, ge=20)
    #: Ours: a note cites (and quotes) at most this many episodes; a busier entity's
    #: episodes are cut, in time order, into several notes, each citing all of its own.
    max_sources: int = Field(default=20, ge=2, le=500)


class MoodConfig(_Section):
    """The mood: a weighted mean of the emotion of an observer's recent N memories."""

    #: N. Ours: about two sessions' worth of writes (the hall keeps the newest 100).
    window: int = Field(default=20, ge=1, le=100)
    #: The i-th newest memory weighs decay**i.
    decay: float = Field(default=0.9, gt=0, le=1)
    #: Mood-congruent recall changes a weight by at most ±this ("slightly").
    max_reweight: float = Field(default=0.1, ge=0, le=0.5)
    #: Wandering suits a calm mood: at most this arousal ("低情绪唤醒状态").
    calm_arousal: float = Field(default=0.3, ge=0, le=1)


class ActivationConfig(_Section):
    """One-hop spreading activation over the tag graph."""

    #: A neighbour's boost is at most this share of its weight. Ours: 0.1 (× 1.1 at most),
    #: the bound of every other dynamic, so activation reorders near-ties and never
    #: outvotes what the task is about.
    spread_factor: float = Field(default=0.1, ge=0, le=1)


class TierConfig(_Section):
    """The seed's three tiers, by rank in recall."""

    #: "Working Memory … 容量有限，约10条"
    working: int = Field(default=10, ge=1)
    #: "Preconscious … 约50-100条"
    preconscious_min: int = Field(default=50, ge=1)
    preconscious_max: int = Field(default=100, ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> TierConfig:
        if not self.working < self.preconscious_min <= self.preconscious_max:
            raise ValueError("tiers must satisfy working < preconscious_min <= preconscious_max")
        return self


class WanderingConfig(_Section):
    """The bounded random walk that proposes synthetic insights."""

    #: "def wander(seed_node, steps=20)"
    steps: int = Field(default=20, ge=1, le=10_000)
    #: exploration_rate. Ours: one step in five jumps (ε-greedy's usual 0.1–0.2).
    exploration_rate: float = Field(default=0.2, ge=0, le=1)
    #: A jump picks a node with odds 1 + this · its emotional intensity; 3 makes
    #: the most intense node four times as likely as a neutral one.
    emotional_jump_weight: float = Field(default=3.0, ge=0)
    #: INSIGHT_THRESHOLD over novelty = 1 − Jaccard(neighbours). Ours: the two
    #: nodes share fewer than half of their contexts.
    novelty_threshold: float = Field(default=0.5, ge=0, lt=1)
    #: "graph.add_edge(current, next_node, weight=0.1, source="wandering")"
    insight_weight: float = Field(default=0.1, gt=0, le=1)
    #: Ours: an insight cites at most this many memories behind its two nodes (the
    #: strongest links of each first); a busy node can stand on thousands.
    max_sources: int = Field(default=20, ge=2, le=500)


class ReconsolidationConfig(_Section):
    """Recall nudges retrieval metadata toward the current context."""

    #: "update_strength=0.05  # 极小，避免记忆被过度改写"; SPEC §7 makes 0.05 the ceiling.
    update_strength: float = Field(default=0.05, ge=0, le=0.05)
    #: Ours: a reconsolidated salience s moves the retrieval weight by 1 + this · 2(s − 0.5),
    #: so within 1 ± this (0.1: "slightly", like the mood).
    salience_weight: float = Field(default=0.1, ge=0, le=0.5)


class DynamicsConfig(_Section):
    """Every number the dynamics use; an absent dynamics.yaml means these defaults."""

    forgetting: ForgettingConfig = ForgettingConfig()
    consolidation: ConsolidationConfig = ConsolidationConfig()
    mood: MoodConfig = MoodConfig()
    activation: ActivationConfig = ActivationConfig()
    tiers: TierConfig = TierConfig()
    wandering: WanderingConfig = WanderingConfig()
    reconsolidation: ReconsolidationConfig = ReconsolidationConfig()
