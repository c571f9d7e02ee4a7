"""The recent_event channel: what the observer met last, and the neighbours in time of
the strongest candidates (the turns just before and after one, in its session).

The observer's newest memories say *when*, never *what*: the fusion lets them
reorder relevant candidates only. A neighbour of a strong candidate is the
context around it ("what did codex answer when I asked …"): it inherits a
share of its anchor's relevance, less the further it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from memhall.ledgers.recall.pool import SELECTED, Candidate, Reader

NAME = "recent_event"
#: the observer's newest memories read
NEWEST = 10
#: entries on each side of an anchor, in its session
SPAN = 2
#: how many of the strongest candidates get their neighbours read
ANCHORS = 5


def newest(reader: Reader, k: int = NEWEST) -> list[tuple[Candidate, float]]:
    """The observer's newest held memories, by when they happened, newest first."""
    found = reader.select("1 = 1", order="e.occurred_at DESC, e.created_position DESC", limit=k)
    return [(c, float(-index)) for index, c in enumerate(found)]


def neighbours(reader: Reader, anchors: Sequence[Candidate],
               span: int = SPAN) -> list[tuple[Candidate, Candidate, int]]:
    """(neighbour, its anchor, distance in turns) for each anchor's session neighbours,
    nearest first; an entry next to two anchors keeps the nearer (then the first).
    One statement for every anchor (each side a small indexed range)."""
    placed = [a for a in anchors if a.session_id is not None]
    if not placed:
        return []
    seen_sql, scope = reader.visible()
    parts, params = [], []
    for index, anchor in enumerate(placed):
        for side, (op, direction) in enumerate((("<", "DESC"), (">", "ASC"))):
            parts.append(f"SELECT * FROM (SELECT {index} AS anchor, {side} AS side, {SELECTED} "
                         f"FROM {reader.entries} e WHERE e.session_id = ? AND e.created_position {op} ? "
                         f"AND {seen_sql} ORDER BY e.created_position {direction} LIMIT ?) AS n{index}_{side}")
            params += [anchor.session_id, anchor.created_position, *scope, span]
    seen: dict[str, tuple[Candidate, Candidate, int]] = {}
    counted: dict[tuple[int, int], int] = {}
    for row in reader.sql(" UNION ALL ".join(parts), params):
        key = (int(row[0]), int(row[1]))
        counted[key] = distance = counted.get(key, 0) + 1
        c, anchor = Candidate.from_sql(row[2:]), placed[key[0]]
        known = seen.get(c.id)
        if known is None or distance < known[2]:
            seen[c.id] = (c, anchor, distance)
    return sorted(seen.values(), key=lambda n: n[2])
