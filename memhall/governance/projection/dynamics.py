"""The memory dynamics' read models: each entry's recorded encoding, and reconsolidation nudges.

Both are copied from the one event that carries them — the entry's Written
event (projected in `written`), the recall's Recorded event — so a rebuild reproduces them without
encoding or recalling again. Everything that depends on the as-of time
(strength, mood, activation) is computed at read time and never stored.
"""

from __future__ import annotations

from collections.abc import Iterable

from memhall.governance.projection.ops import Insert, Op, State, projects
from memhall.governance.projection.schema import iso

@projects("memhall.Recall.Recorded")
def _nudged(e: State, position: int) -> Iterable[Op]:
    """One row per nudged entry; readers add a holder's rows up (they never leave the 0.05 bound
    per recall, and each was computed from the metadata as it stood, so the sum stays in range)."""
    at = iso(e["timestamp"])
    for entry_id, deltas in sorted((e.get("nudges") or {}).items()):
        if deltas:
            yield Insert("nudges", {"id": f"{position}:{entry_id}", "holder": e["observer"],
                                    "entry_id": entry_id, "deltas": dict(sorted(deltas.items())),
                                    "position": position, "at": at})
