"""How much hearsay is believed, as a function of the observer's trust in its teller."""

from __future__ import annotations

import math

from memhall.domains.belief.confidence import PAST_FLOOR
from memhall.domains.errors import InvalidValueError

#: trust in a source nobody has said anything about (SPEC §5, issue 11 §5)
NEUTRAL_TRUST = 0.5

#: (trust, confidence) anchors of a piecewise-linear map. The middle three are given
#: (S0 §28, and 0.5 → 58 is today's hearsay default). The ends are our choice:
#: 0 → 10, the doubt floor: a source you do not trust at all is believed as little as a
#: thoroughly contradicted claim: heard, kept, not believed (forgetting is not erasure).
#: 1 → 77, one below firsthand's 78: however trusted the teller, hearing is not seeing (S0 §4).
ANCHORS: tuple[tuple[float, int], ...] = ((0.0, 10), (0.2, 35), (0.5, 58), (0.9, 75), (1.0, 77))


def check_trust(trust: float) -> float:
    if math.isnan(trust) or not 0.0 <= trust <= 1.0:
        raise InvalidValueError(f"trust must be between 0 and 1, not {trust}")
    return trust


def hearsay_confidence(trust: float) -> int:
    """Initial confidence of hearsay from a teller trusted at `trust` (0..1): monotone,
    exact at every anchor, rounded half up in between."""
    check_trust(trust)
    for (t0, c0), (t1, c1) in zip(ANCHORS, ANCHORS[1:]):
        if trust <= t1:
            exact = c0 + (c1 - c0) * (trust - t0) / (t1 - t0)
            return math.floor(exact + 0.5)
    raise AssertionError("unreachable: trust was checked to be at most 1")


def heard(trust: float) -> bool:
    """Whether hearsay from this teller moves a belief at all. Hearsay believed at or below
    the fade floor is `past` the moment it is heard; by the same measure its evidence
    changes nothing (below about 0.19: a source caught out three times is no longer heard)."""
    return hearsay_confidence(trust) > PAST_FLOOR
