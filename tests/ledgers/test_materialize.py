"""Council materialization on a real store: budgets, eligibility, conflicts, determinism."""

from __future__ import annotations

import json
from collections.abc import Sequence
from uuid import UUID

import pytest

from memhall.domains.entry import EntryDraft, Tags, draft
from memhall.domains.errors import InvalidValueError, PolicyDeniedError
from memhall.domains.values import Layer
from memhall.governance import history, sessions
from memhall.governance.hall import Hall
from memhall.governance.views import EntryView
from memhall.ledgers import markdown, records
from memhall.ledgers.budget import ELISION, Budget, fact_tokens
from memhall.ledgers.ledger import Exclusion, Fact, Quote
from memhall.ledgers.materialize import Materialized, materialize
from tests.ledgers.conftest import Promote, SetState, Write


def run(hall: Hall, task: str = "plan the billing migration", **options: object) -> Materialized:
    return materialize(hall, "claude", "company", seat="gemini", task=task, **options)  # type: ignore[arg-type]


def ids(items: Sequence[Quote | Fact | Exclusion]) -> list[str]:
    return [i.id for i in items]


def reasons(done: Materialized) -> dict[str, str]:
    return {x.id: x.reason for x in done.ledgers.c}


def test_ledger_b_never_holds_more_than_the_item_budget(hall: Hall, write: Write) -> None:
    written = [write(f"billing fact number {n}") for n in range(15)]

    done = run(hall, budget=Budget(max_items=4, max_tokens=5000))

    assert len(done.ledgers.b) == 4
    over = [i for i, r in reasons(done).items() if r.startswith("over item budget")]
    assert sorted(ids(done.ledgers.b) + over) == sorted(written)


def test_the_token_budget_is_respected_exactly(hall: Hall, write: Write) -> None:
    for n in range(12):
        write(f"billing fact {n}: " + "detail " * (n * 3))

    done = run(hall, budget=Budget(max_tokens=200))

    spent = sum(f.tokens for f in done.ledgers.b) + sum(q.tokens for q in done.ledgers.a)
    assert spent == done.ledgers.budget.used_tokens <= 200
    assert all(f.tokens == fact_tokens(f.text) for f in done.ledgers.b)
    first_out = next(x for x in done.ledgers.c if x.reason.startswith("over token budget"))
    text = next(e.text for e in _entries(hall) if e.id == first_out.id)
    assert spent + fact_tokens(text) > 200


def test_no_doubtful_anomalous_or_past_item_enters_ledger_b(
    hall: Hall, write: Write, set_state: SetState
) -> None:
    states = {write(f"billing fact held {s}"): s for s in ("doubtful", "anomalous", "past")}
    for entry_id, state in states.items():
        set_state(entry_id, state)
    fine = write("billing fact held firmly")

    done = run(hall)

    assert ids(done.ledgers.b) == [fine]
    assert all(f.state == "influencing" for f in done.ledgers.b)
    for entry_id, state in states.items():
        assert reasons(done)[entry_id].startswith(state)


def test_retired_and_superseded_entries_go_to_c_with_their_reason(hall: Hall, write: Write) -> None:
    old = write("billing runs weekly")
    new = hall.write("codex", "company", _draft("billing runs nightly"), supersedes=_uuid(old),
                   reason="billing moved to nightly").entry_id
    gone = write("billing used the old gateway")
    hall.retire("codex", "company", _uuid(gone), "gateway replaced")

    done = run(hall)

    assert ids(done.ledgers.b) == [new]
    assert reasons(done)[old] == f"superseded by {new}"
    assert reasons(done)[gone] == "retired"


def test_an_l3_fact_wins_over_an_l2_fact_on_the_same_claim(
    hall: Hall, write: Write, promote: Promote
) -> None:
    known = write("billing runs at 2am", provenance={"claim_root_id": "billing-time"})
    promote(known, Layer.L3)
    recorded = write("billing runs at 3am", provenance={"claim_root_id": "billing-time"})

    done = run(hall)

    assert ids(done.ledgers.b) == [known]
    assert done.ledgers.b[0].layer == "L3"
    assert done.ledgers.knowledge_available
    assert reasons(done)[recorded].startswith(f"lower layer: L2 under L3 {known}")


def test_an_l2_write_cannot_supersede_canon_so_canon_stays_in_ledger_b(
    hall: Hall, write: Write, promote: Promote
) -> None:
    known = write("billing is owned by finance")
    promote(known, Layer.L4)
    with pytest.raises(PolicyDeniedError, match="never by superseding"):
        hall.write("codex", "company", _draft("billing is owned by ops"), supersedes=_uuid(known))

    done = run(hall)

    assert [f.id for f in done.ledgers.b] == [known]


def test_l1_candidates_are_not_facts(hall: Hall, write: Write) -> None:
    guess = write("billing might move to Tuesdays", layer="L1")

    done = run(hall)

    assert reasons(done)[guess].startswith("wrong layer")
    assert not done.ledgers.knowledge_available
    assert "K unavailable" in markdown.ledgers(done.ledgers)


def test_every_candidate_lands_in_exactly_one_ledger(
    hall: Hall, write: Write, set_state: SetState
) -> None:
    for n in range(30):
        write(f"billing note {n}", tags={"topics": ["billing"]} if n % 2 else {})
    set_state(write("billing doubt"), "doubtful")
    write("I want billing done by Friday", actor="maki", kind="quote")
    write("lunch menu", kind="episode")

    done = run(hall, budget=Budget(max_items=5), explain=True)

    placed = ids(done.ledgers.a) + ids(done.ledgers.b) + ids(done.ledgers.c)
    assert len(placed) == len(set(placed))
    assert done.ledgers.explain is not None
    assert sorted(placed) == sorted(e.id for e in done.ledgers.explain)
    related = {e.id for e in _entries(hall) if "billing" in e.text.lower()}
    assert related <= set(placed)


def test_rerunning_at_the_same_position_is_byte_identical(hall: Hall, write: Write) -> None:
    for n in range(8):
        write(f"billing fact {n}", tags={"topics": ["billing"]})
    write("billing matters to me", actor="maki", kind="quote")

    first = run(hall, explain=True)
    sessions.handoff(hall, "codex", "company")  # a session event: not an entry event
    second = run(hall, explain=True)

    assert markdown.ledgers(first.ledgers) == markdown.ledgers(second.ledgers)
    assert json.dumps(first.ledgers.model_dump(mode="json")) == json.dumps(
        second.ledgers.model_dump(mode="json"))
    assert first.record_id != second.record_id
    assert f"As of log position {first.ledgers.as_of_position}." in markdown.ledgers(first.ledgers)
    write("billing fact new")
    assert run(hall).ledgers.as_of_position > first.ledgers.as_of_position


def test_ledger_a_holds_the_humans_words_verbatim(hall: Hall, write: Write) -> None:
    words = "Billing first,\n  then   the rest. (No rewording!)"
    quote = write(words, actor="maki", kind="quote")

    done = run(hall)

    assert [(q.id, q.text) for q in done.ledgers.a] == [(quote, words)]
    assert not done.ledgers.a[0].elided_start and not done.ledgers.a[0].elided_end


def test_a_long_quote_is_cut_only_at_its_ends_and_marked(hall: Hall, write: Write) -> None:
    long = ("Some context about the quarter that matters less. " * 12
            + "The billing migration must not lose a single invoice. " + "More words follow here. " * 12)
    quote = write(long, actor="maki", kind="quote")

    done = run(hall, budget=Budget(max_tokens=300))

    cut = done.ledgers.a[0]
    assert cut.id == quote and cut.elided_start and cut.elided_end
    assert cut.text.startswith(f"{ELISION} ") and cut.text.endswith(f" {ELISION}")
    inner = cut.text.removeprefix(f"{ELISION} ").removesuffix(f" {ELISION}")
    assert inner == long[cut.start:cut.end]
    assert "billing migration" in inner
    assert cut.tokens <= done.ledgers.budget.quote_tokens == 100


def test_an_agents_quote_is_not_the_humans_words(hall: Hall, write: Write) -> None:
    hearsay = write("maki said billing comes first", actor="codex", kind="quote")

    done = run(hall)

    assert done.ledgers.a == []
    assert ids(done.ledgers.b) == [hearsay]


def test_among_two_hundred_entries_the_right_ten_land_in_b(hall: Hall, write: Write) -> None:
    right = [write(f"payroll migration step {n}: move ledger {n} to the new payroll system",
                   tags={"topics": ["payroll"]}) for n in range(10)]
    for n in range(20):  # share one word with the task, nothing else
        write(f"the garden migration of birds, observation {n}", tags={"topics": ["birds"]})
    for n in range(170):  # newer, unrelated
        write(f"kitchen inventory item {n}: {n} spoons", tags={"topics": ["kitchen"]})

    done = run(hall, task="Plan the payroll migration", tags=Tags(topics=("payroll",)))

    assert sorted(ids(done.ledgers.b)) == sorted(right)
    assert "payroll" in done.ledgers.tags


def test_the_record_says_what_the_seat_saw(hall: Hall, write: Write) -> None:
    fact = write("billing runs nightly")
    done = run(hall)

    listed = records.materializations(hall, "maki", "company", seat="gemini")

    assert [r.id for r in listed] == [done.record_id]
    assert listed[0].ledger_b == [fact]
    assert listed[0].digest == done.ledgers.digest
    assert listed[0].log_position == done.ledgers.as_of_position
    assert records.materializations(hall, "maki", "company", seat="codex") == []


def test_entries_of_another_domain_are_never_materialized(hall: Hall, write: Write) -> None:
    mine = write("billing runs nightly")
    write("billing of the family insurance", domain="family")

    done = run(hall, explain=True)

    assert done.ledgers.explain is not None
    assert [e.id for e in done.ledgers.explain] == [mine]


@pytest.mark.parametrize("items", [0, 11])
def test_ledger_b_is_at_most_ten_and_at_least_one(items: int) -> None:
    with pytest.raises(InvalidValueError, match="--max-items"):
        Budget(max_items=items)


def _entries(hall: Hall) -> list[EntryView]:
    return history.search(hall, "maki", "company", "billing", limit=500).results


def _draft(text: str) -> EntryDraft:
    return draft(text=text, layer="L2", kind="claim")


def _uuid(ident: str) -> UUID:
    return UUID(ident)


def test_a_corrected_claim_in_ledger_b_comes_with_what_it_is_now_understood_to_say(
        hall: Hall, write: Write) -> None:
    from memhall.domains.belief import EvidenceKind
    from memhall.governance import evidence

    rumour = write("the billing export runs nightly", tags={"topics": ["billing"]})
    write("the billing export writes CSV files", tags={"topics": ["billing"]})
    for text in ("no nightly job exists", "the billing export runs weekly"):
        evidence.record(hall, "maki", "company", UUID(rumour), EvidenceKind.CONTRADICTS, text=text)

    done = run(hall, task="when does the billing export run")

    facts = {f.id: f for f in done.ledgers.b}
    assert (facts[rumour].state, facts[rumour].text) == ("corrected", "the billing export runs nightly")
    assert facts[rumour].understanding == "the billing export runs weekly"
    assert [f.understanding for f in facts.values() if f.id != rumour] == [None]
    assert ("  the billing export runs nightly\n  now understood: the billing export runs weekly"
            in markdown.ledgers(done.ledgers))


def test_evidence_on_a_claim_moves_the_position_a_materialization_reads_at(hall: Hall, write: Write) -> None:
    from memhall.domains.belief import EvidenceKind
    from memhall.governance import evidence

    claim = write("the billing export runs nightly", tags={"topics": ["billing"]})
    before = run(hall, task="when does the billing export run").ledgers
    evidence.record(hall, "maki", "company", UUID(claim), EvidenceKind.CONTRADICTS, text="no nightly job")
    after = run(hall, task="when does the billing export run").ledgers

    assert after.as_of_position > before.as_of_position  # the same position never prints other bytes
    assert ids(before.b) == [claim] and ids(after.b) == []  # doubted: out of ledger B
