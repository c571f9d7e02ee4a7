"""The incubation pool: what is unresolved stays until evidence or ratification resolves it."""

from __future__ import annotations

from memhall.domains.dynamics.incubation import Unresolved, incubation_pool, left_pool
from memhall.domains.values import BeliefState, Kind, Status
from tests.domains.dynamics.memories import day, memory


def test_doubtful_and_anomalous_claims_and_open_questions_incubate() -> None:
    records = [
        memory("c1", at=1, kind=Kind.CLAIM, state=BeliefState.DOUBTFUL),
        memory("c2", at=2, kind=Kind.CLAIM, state=BeliefState.ANOMALOUS),
        memory("q1", at=3, kind=Kind.OPEN_LOOP, open_question=True),
        memory("fine", at=4, kind=Kind.CLAIM),
        memory("gone", at=5, kind=Kind.CLAIM, state=BeliefState.DOUBTFUL, status=Status.SUPERSEDED),
    ]

    pool = incubation_pool(records)

    assert [(i.reason, i.ids) for i in pool] == [
        (Unresolved.DOUBTFUL, ("c1",)), (Unresolved.ANOMALOUS, ("c2",)),
        (Unresolved.OPEN_QUESTION, ("q1",)),
    ]


def test_two_influencing_memories_that_contradict_each_other_are_one_conflict() -> None:
    records = [memory("open", at=1, contradicts=("shut",)), memory("shut", at=2, contradicts=("open",))]

    [item] = incubation_pool(records)

    assert (item.reason, item.ids, item.since) == (Unresolved.CONFLICT, ("open", "shut"), day(2))


def test_a_contradiction_leaves_the_pool_once_corrected() -> None:
    before = incubation_pool([memory("door", kind=Kind.CLAIM, state=BeliefState.DOUBTFUL)])
    after = incubation_pool([memory("door", kind=Kind.CLAIM, state=BeliefState.CORRECTED)])

    assert after == []
    assert [i.key for i in left_pool(before, after)] == ["doubtful:door"]


def test_a_conflict_becomes_a_doubt_when_evidence_doubts_one_side() -> None:
    before = incubation_pool([memory("open", contradicts=("shut",)), memory("shut")])
    after = incubation_pool([memory("open", contradicts=("shut",)),
                             memory("shut", state=BeliefState.DOUBTFUL)])

    assert [i.key for i in after] == ["doubtful:shut"]
    assert [i.key for i in left_pool(before, after)] == ["conflict:open,shut"]
