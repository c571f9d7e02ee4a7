"""Beliefs that move with evidence (SPEC §5, issue 11): pure rules, no I/O, no clock.

A belief is a deterministic function of its claim, the events on its claim root that an
observer is exposed to, an as-of cut, and that observer's trust table:
``fold(claim, events, as_of, trust)``. Write paths apply the same rule one event at a time
(``weigh``/``revise``); replay folds; both give the same belief.

Design choices where SPEC §5 and seed S0 are silent:

- Revision table (``revision.TABLE``): evidence is judged against the belief as it stands.
  Only firsthand evidence settles a doubt, either way: on a doubtful or anomalous belief,
  contrary firsthand evidence *corrects* (72, subject := its text) and supporting firsthand
  evidence *confirms* (influencing, max(72, c + 8)); hearsay only moves confidence inside
  the doubt (support +8, contradiction −20), and never lowers `anomalous` to `doubtful`.
  A contradiction of an influencing, past or corrected belief doubts it, firsthand or not
  ("contradiction is not immediate correction"). Support revives a `past` belief
  (+8, influencing). An anomaly always marks `anomalous`, never corrects (it says
  "something is off", not "the truth is Y"). Firsthand contrary evidence without text has
  nothing to correct *to* and only deepens the doubt.
- Floors: a doubt never goes below 10, an anomaly also not (same reason: contradiction is
  not correction; the anomaly's weight is its −30 step and its state); neither ever
  *raises* a confidence already under 10.
- Keep: evidence on another claim root (identity is the root, never text), and hearsay
  from a teller the observer no longer hears: ``heard(trust)``, i.e. hearsay from it would
  be believed at or below the fade floor 34 (trust below about 0.19). Kept evidence moves
  nothing, not even the aging clock; it is still drawn in the graph.
- Ratified (L3/L4) claims (``contest``): support is recorded only; contradiction or
  anomaly applies its confidence step and state mark and asks for a demotion nomination;
  never a correction, never a text or layer change. They do not fade.
- Corroborators: distinct principals other than the belief's origin (the teller of
  hearsay, the author, or after a correction the corrector) who supported it; for hearsay
  evidence the principal is the teller, for firsthand the recorder. Firsthand support marks
  the belief witnessed: a witnessed belief no longer fades. A correction resets both.
- Aging: influencing, unwitnessed, L1/L2 hearsay loses 8 per period since its last
  evidence (floor 34, then `past`); the period is 7 days × (1 + corroborators), so each
  independent voice slows the decay. Any counted evidence restarts the clock. In a fold,
  aging runs up to each event's occurred_at, then up to the as-of time; an event recorded
  late with an old date restarts the clock from that date without re-charging periods
  already charged.
- Trust mapping (``hearsay_confidence``): piecewise linear through (0 → 10), (0.2 → 35),
  (0.5 → 58), (0.9 → 75), (1 → 77): no trust is the doubt floor, full trust stays below
  firsthand's 78. A correction costs the teller 0.15 on each topic of the claim (none: its
  general trust); the owner may set any value. Unknown: general trust, then 0.5. An
  explicit write confidence is kept but capped at each observer's own ceiling. A fold
  takes the observer's trust as of the same cut, so re-scoring a caught-out source's
  other hearsay is derived (``rescored`` lists the changes, to be recorded).
- Guardrail: hearsay ≤ its trust-derived value, firsthand ≤ 100 (a witness may be
  certain), implanted ≤ the policy's value; above that ``GuardrailError`` (exit 3).
- Order: a fold is independent of the order events are *given* in, and of duplicates
  (events are identified by position); it is not independent of log order, by design:
  doubt-then-firsthand-contradiction corrects, the reverse only doubts twice. Supports
  alone commute.
"""

from memhall.domains.belief.aging import aged, fade_period
from memhall.domains.belief.belief import (
    Belief,
    Cause,
    Corroboration,
    Revision,
    Understanding,
)
from memhall.domains.belief.contest import Outcome, contest
from memhall.domains.belief.fold import believe, counted, fold, known
from memhall.domains.belief.guardrail import check_confidence, initial_confidence, max_confidence
from memhall.domains.belief.hearsay import NEUTRAL_TRUST, heard, hearsay_confidence
from memhall.domains.belief.records import AsOf, Claim, Evidence, EvidenceKind, LayerMove
from memhall.domains.belief.revision import TABLE, revise, rule, weigh
from memhall.domains.belief.trust import (
    ObserverTrust,
    Rescore,
    SourceCorrected,
    TrustSet,
    TrustTable,
    rescored,
    source_corrected,
)
from memhall.domains.belief.why import EdgeKind, EvidenceGraph, graph, why

__all__ = [
    "NEUTRAL_TRUST",
    "TABLE",
    "AsOf",
    "Belief",
    "Cause",
    "Claim",
    "Corroboration",
    "EdgeKind",
    "Evidence",
    "EvidenceGraph",
    "EvidenceKind",
    "LayerMove",
    "ObserverTrust",
    "Outcome",
    "Rescore",
    "Revision",
    "SourceCorrected",
    "TrustSet",
    "TrustTable",
    "Understanding",
    "aged",
    "believe",
    "check_confidence",
    "contest",
    "counted",
    "fade_period",
    "fold",
    "graph",
    "heard",
    "hearsay_confidence",
    "initial_confidence",
    "known",
    "max_confidence",
    "rescored",
    "revise",
    "rule",
    "source_corrected",
    "weigh",
    "why",
]
