"""Exposure: who holds which entry is derived from the events that put it in front of them."""

from __future__ import annotations

from uuid import UUID

from memhall.domains.entry import draft
from memhall.governance import exposure, requests
from memhall.governance.hall import Hall
from memhall.governance.recompute import verify_read_models
from memhall.ledgers.materialize import materialize


def holders_of(hall: Hall, entry_id: str) -> dict[str, list[str]]:
    stream = hall.streams.stream("company")
    with hall.store.read() as conn:
        return exposure.holders(conn, stream, entry_id)


def test_the_writer_the_addressees_and_those_present_hold_an_entry(hall: Hall) -> None:
    written = hall.write("codex", "company", draft(
        layer="L2", kind="claim", text="the build cache lives on the NAS",
        addressees=("gemini",), participants=("maki",)))

    assert holders_of(hall, written.entry_id) == {"codex": ["wrote"], "gemini": ["told"], "maki": ["present"]}


def test_a_seat_holds_what_a_materialization_handed_it_and_nothing_else(hall: Hall) -> None:
    fact = hall.write("codex", "company", draft(layer="L2", kind="claim", text="billing runs on fridays",
                                                tags={"topics": ("billing",)})).entry_id
    other = hall.write("codex", "company", draft(layer="L2", kind="claim", text="the cat is grey")).entry_id

    materialize(hall, "claude", "company", seat="gemini", task="when does billing run")

    stream = hall.streams.stream("company")
    with hall.store.read() as conn:
        assert exposure.held(conn, stream, "gemini", [fact, other]) == {fact}


def test_an_answer_hands_its_entry_to_the_seat_that_asked(hall: Hall) -> None:
    asked = requests.request_memory(hall, "gemini", "company", "gemini", "who approves billing?")
    fact = hall.write("codex", "company", draft(layer="L2", kind="claim", text="maki approves billing")).entry_id

    requests.answer(hall, "claude", "company", UUID(asked.id), UUID(fact))

    assert holders_of(hall, fact)["gemini"] == ["answer"]


def test_chairs_and_the_owner_hold_the_domain_by_role_and_a_seat_does_not(hall: Hall) -> None:
    assert [exposure.holds_domain(hall.gate, p, "company") for p in ("claude", "codex", "maki", "gemini")] == \
        [True, True, True, False]


def test_exposure_is_a_read_model_the_log_accounts_for(hall: Hall) -> None:
    hall.write("codex", "company", draft(layer="L2", kind="claim", text="x", addressees=("gemini",)))

    reports = verify_read_models(hall.streams)

    assert all(r.ok for r in reports), [r.broken for r in reports if r.broken]
