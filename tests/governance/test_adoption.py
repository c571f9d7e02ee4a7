"""The policy in force is the one each domain's owner adopted: pinned by digest, recorded, fail-closed."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from sqlalchemy import text

from memhall.domains.entry import draft
from memhall.domains.errors import RefusedError
from memhall.governance import charters
from memhall.governance.hall import Hall
from memhall.governance.seal import POLICY_NOT_ADOPTED
from memhall.governance.store import Store
from memhall.governance.tables import SYSTEM, tables_for
from memhall.policies.digest import policy_digest
from memhall.policies.engine import PolicySet, init_policy_dir

NOT_ADOPTED = ("the policy on disk differs from the adopted policy {}: review with `memhall policy diff "
               "--adopted`, then `memhall policy adopt`")


def policy_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "memhall-policy"
    init_policy_dir(folder)
    return folder


def make_codex_an_owner(folder: Path) -> None:
    roles = folder / "roles.yaml"
    roles.write_text(roles.read_text().replace("codex: agent", "codex: human")
                     .replace("ratify_owner: [maki]", "ratify_owner: [maki, codex]"))


def states(store: Store, domain: str) -> list[dict[str, object]]:
    with store.read() as conn:
        rows = conn.execute(text(f"SELECT topic, state FROM {tables_for(domain).events_name} ORDER BY id"))
        return [{"topic": topic, **orjson.loads(bytes(state))} for topic, state in rows]


def opened(store_url: str, folder: Path) -> Hall:
    hall = Hall(Store(store_url), PolicySet.load(folder), warn=lambda _message: None)
    hall.create_domain("maki", "company")
    return hall


def reopened(hall: Hall, folder: Path, warnings: list[str] | None = None) -> Hall:
    """The same store under the policy folder as it is on disk now (a new process)."""
    sink = warnings if warnings is not None else []
    return Hall(hall.store, PolicySet.load(folder), warn=sink.append)


def test_creating_a_domain_adopts_the_policy_in_force_on_first_use(store_url: str, tmp_path: Path) -> None:
    folder = policy_folder(tmp_path)

    hall = opened(store_url, folder)

    company = states(hall.store, "company")
    assert [s["topic"] for s in company] == ["memhall.Domain.Opened", "memhall.Charter.Opened"]
    assert company[1]["digest"] == policy_digest(PolicySet.load(folder).source)
    assert company[1]["rule"] == "trust-on-first-use"
    assert states(hall.store, SYSTEM)[0]["topic"] == "memhall.Charter.Opened"


def test_every_event_carries_the_digest_of_the_adopted_policy(store_url: str, tmp_path: Path) -> None:
    folder = policy_folder(tmp_path)
    hall = opened(store_url, folder)

    hall.write("codex", "company", draft(layer="L2", kind="claim", text="the build cache lives on the NAS"))
    with pytest.raises(RefusedError):
        hall.write("gemini", "company", draft(layer="L2", text="a seat writing L2"))

    digest = policy_digest(PolicySet.load(folder).source)
    assert {s["policy"] for s in states(hall.store, "company")} == {digest}


def test_an_edited_policy_fails_closed_for_writes_until_its_owner_adopts_it(
    store_url: str, tmp_path: Path
) -> None:
    folder = policy_folder(tmp_path)
    hall = opened(store_url, folder)
    adopted = policy_digest(PolicySet.load(folder).source)
    make_codex_an_owner(folder)
    edited = reopened(hall, folder)

    with pytest.raises(RefusedError) as refused:
        edited.write("codex", "company", draft(layer="L2", kind="claim", text="codex says so"))

    assert str(refused.value) == NOT_ADOPTED.format(adopted[:12])
    assert refused.value.exit_code == 3
    last = states(hall.store, "company")[-1]
    assert (last["topic"], last["rule"], last["policy"]) == ("memhall.Refusal.Recorded", POLICY_NOT_ADOPTED, adopted)
    assert not [s for s in states(hall.store, "company") if s["topic"] == "memhall.Entry.Written"]


def test_reads_under_a_policy_not_adopted_still_work_record_nothing_and_say_so(
    store_url: str, tmp_path: Path
) -> None:
    from memhall.governance import history

    folder = policy_folder(tmp_path)
    hall = opened(store_url, folder)
    make_codex_an_owner(folder)
    warnings: list[str] = []
    edited = reopened(hall, folder, warnings)
    before = len(states(hall.store, "company"))

    history.log(edited, "codex", "company", limit=5)
    with pytest.raises(RefusedError):
        history.log(edited, "nobody", "company", limit=5)

    assert len(states(hall.store, "company")) == before
    assert warnings and "differs from the adopted policy" in warnings[0]


def test_the_owner_adopts_a_changed_policy_and_writes_resume_under_it(store_url: str, tmp_path: Path) -> None:
    folder = policy_folder(tmp_path)
    hall = opened(store_url, folder)
    previous = policy_digest(PolicySet.load(folder).source)
    make_codex_an_owner(folder)
    edited = reopened(hall, folder)

    adoption = charters.adopt(edited, "maki", "company")
    edited.write("codex", "company", draft(layer="L2", kind="claim", text="after adoption"))

    assert (adoption.previous, adoption.digest) == (previous, policy_digest(PolicySet.load(folder).source))
    assert "codex" in adoption.summary
    adopted = [s for s in states(hall.store, "company") if s["topic"] == "memhall.Policy.Adopted"]
    assert len(adopted) == 1 and adopted[0]["policy"] == previous and adopted[0]["digest"] == adoption.digest
    assert states(hall.store, "company")[-1]["policy"] == adoption.digest


def test_a_hall_that_already_wrote_sees_an_adoption_made_by_another_process(
    store_url: str, tmp_path: Path
) -> None:
    folder = policy_folder(tmp_path)
    hall = opened(store_url, folder)
    hall.write("codex", "company", draft(layer="L2", kind="claim", text="written under the first policy"))
    make_codex_an_owner(folder)
    charters.adopt(reopened(hall, folder), "maki", "company")

    with pytest.raises(RefusedError) as refused:
        hall.write("codex", "company", draft(layer="L2", kind="claim", text="written under the old policy"))

    assert refused.value.rule == POLICY_NOT_ADOPTED
    assert [s["text"] for s in states(hall.store, "company") if s["topic"] == "memhall.Entry.Written"] == [
        "written under the first policy"]


def test_naming_yourself_owner_in_the_new_roles_does_not_let_you_adopt_them(
    store_url: str, tmp_path: Path
) -> None:
    folder = policy_folder(tmp_path)
    hall = opened(store_url, folder)
    make_codex_an_owner(folder)
    edited = reopened(hall, folder)

    with pytest.raises(RefusedError, match="not a human ratify owner of company under the adopted policy"):
        charters.adopt(edited, "codex", "company")

    last = states(hall.store, "company")[-1]
    assert (last["topic"], last["action"]) == ("memhall.Refusal.Recorded", "policy_adopt")
    with pytest.raises(RefusedError, match="differs from the adopted policy"):
        edited.write("codex", "company", draft(layer="L2", kind="claim", text="still refused"))


def test_adopting_the_policy_already_adopted_changes_nothing(store_url: str, tmp_path: Path) -> None:
    folder = policy_folder(tmp_path)
    hall = opened(store_url, folder)
    before = len(states(hall.store, "company"))

    adoption = charters.adopt(hall, "maki", "company")

    assert not adoption.changed
    assert len(states(hall.store, "company")) == before
