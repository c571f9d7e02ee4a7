"""A human's acts are signed once the human has a key; the audit checks every digest and signature."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import orjson
import pytest
from sqlalchemy import text

from memhall.domains.entry import draft
from memhall.domains.errors import RefusedError
from memhall.domains.values import Layer
from memhall.governance import charters, promotions
from memhall.governance.attestation import verify_acts
from memhall.cli.signing import signer
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.governance.tables import tables_for
from memhall.policies.engine import PolicySet, init_policy_dir
from memhall.policies.model import Decision, PolicyRequest
from memhall.policies.sshkeys import create_key_file


def owner_with_a_key(tmp_path: Path) -> tuple[Path, Path]:
    """A policy folder whose allowed_signers lists a key for maki, and that key's file."""
    folder = tmp_path / "memhall-policy"
    init_policy_dir(folder)
    key = tmp_path / "maki_key"
    public = create_key_file(key, comment="memhall:maki")
    (folder / "allowed_signers").write_text(f'maki namespaces="memhall" {public.openssh}\n')
    return folder, key


def nominated(store_url: str, folder: Path) -> tuple[Hall, UUID]:
    hall = Hall(Store(store_url), PolicySet.load(folder), warn=lambda _m: None)
    hall.create_domain("maki", "company")
    entry = hall.write("codex", "company", draft(layer="L2", kind="claim", text="the cache is on the NAS"))
    promotion = promotions.nominate(hall, "claude", "company", UUID(entry.entry_id), Layer.L3, "unchanged")
    return hall, promotion.id


def acts(hall: Hall) -> object:
    with hall.store.read() as conn:
        return verify_acts(conn, "company")


def test_an_owner_with_a_key_cannot_ratify_unsigned_and_the_refusal_is_recorded(
    store_url: str, tmp_path: Path
) -> None:
    folder, _key = owner_with_a_key(tmp_path)
    hall, promotion = nominated(store_url, folder)

    with pytest.raises(RefusedError, match="must be signed") as refused:
        promotions.ratify(hall, "maki", "company", promotion)

    assert refused.value.rule == "human-acts-are-signed"
    assert hall.streams.topics("company")[-1] == "memhall.Refusal.Recorded"
    assert "memhall.Promotion.Ratified" not in hall.streams.topics("company")


def test_a_signed_ratification_is_recorded_with_its_signature_and_verifies(store_url: str, tmp_path: Path) -> None:
    folder, key = owner_with_a_key(tmp_path)
    hall, promotion = nominated(store_url, folder)
    assert hall.seal is not None
    hall.seal.signer = signer(key, ssh_keygen=False)

    promotions.ratify(hall, "maki", "company", promotion)

    report = acts(hall)
    assert report.ok and report.signatures == 1  # type: ignore[attr-defined]


def test_a_signature_by_a_key_allowed_signers_does_not_list_is_refused(store_url: str, tmp_path: Path) -> None:
    folder, _key = owner_with_a_key(tmp_path)
    stranger = tmp_path / "other_key"
    create_key_file(stranger, comment="not maki's")
    hall, promotion = nominated(store_url, folder)
    assert hall.seal is not None
    hall.seal.signer = signer(stranger, ssh_keygen=False)

    with pytest.raises(RefusedError, match="does not list for maki"):
        promotions.ratify(hall, "maki", "company", promotion)


def edit_state(hall: Hall, topic: str, change: dict[str, object]) -> None:
    events = tables_for("company").events_name
    with hall.store.write() as conn:
        position, state = conn.execute(text(f"SELECT id, state FROM {events} WHERE topic = :t ORDER BY id DESC"),
                                       {"t": topic}).first()  # type: ignore[misc]
        edited = {**orjson.loads(bytes(state)), **change}
        conn.execute(text(f"UPDATE {events} SET state = :s WHERE id = :p"),
                     {"s": orjson.dumps(edited), "p": position})


def test_a_ratification_stripped_of_its_signature_fails_the_audit(tmp_path: Path) -> None:
    folder, key = owner_with_a_key(tmp_path)
    hall, promotion = nominated(f"sqlite:///{tmp_path / 'memhall.db'}", folder)
    assert hall.seal is not None
    hall.seal.signer = signer(key, ssh_keygen=False)
    promotions.ratify(hall, "maki", "company", promotion)

    edit_state(hall, "memhall.Promotion.Ratified", {"signature": ""})

    report = acts(hall)
    assert not report.ok and "carries no signature" in str(report.problem)  # type: ignore[attr-defined]


def test_a_decision_naming_a_policy_never_adopted_fails_the_audit(tmp_path: Path) -> None:
    folder, _key = owner_with_a_key(tmp_path)
    hall, _promotion = nominated(f"sqlite:///{tmp_path / 'memhall.db'}", folder)

    edit_state(hall, "memhall.Entry.Written", {"policy": "f" * 64})

    report = acts(hall)
    assert not report.ok and "ffffffffffff" in str(report.problem)  # type: ignore[attr-defined]


class Unpinned:
    """A gate with no policy files: what every hall was before adoption existed."""

    def __init__(self, policies: PolicySet) -> None:
        self.policies = policies

    def decide(self, request: PolicyRequest) -> Decision:
        return self.policies.decide(request)


def test_events_written_before_adoption_are_reported_as_pre_adoption_not_as_failures(
    store_url: str, policies: PolicySet
) -> None:
    before = Hall(Store(store_url), Unpinned(policies))
    before.create_domain("maki", "company")
    before.write("codex", "company", draft(layer="L2", kind="claim", text="written before adoption"))

    after = Hall(before.store, policies)
    after.write("codex", "company", draft(layer="L2", kind="claim", text="written after"))

    report = acts(after)
    assert report.ok and report.pre_adoption == 2 and report.adoptions == 1  # type: ignore[attr-defined]


def test_the_backup_system_chair_acts_only_while_the_owner_has_handed_it_the_chair(
    store_url: str, policies: PolicySet
) -> None:
    hall = Hall(Store(store_url), policies)
    hall.create_domain("maki", "company")
    entry = UUID(hall.write("codex", "company", draft(layer="L2", kind="claim", text="a fact")).entry_id)

    with pytest.raises(RefusedError):
        promotions.nominate(hall, "codex", "company", entry, Layer.L3, "stale")
    with pytest.raises(RefusedError, match="only a human ratify owner"):
        charters.hand_over(hall, "claude", "company", "codex")
    with pytest.raises(RefusedError, match="not a backup system chair"):
        charters.hand_over(hall, "maki", "company", "gemini")
    charters.hand_over(hall, "maki", "company", "codex")
    nomination = promotions.nominate(hall, "codex", "company", entry, Layer.L3, "stale")
    promotions.withdraw(hall, "codex", "company", nomination.id)
    charters.hand_over(hall, "maki", "company", None)

    with pytest.raises(RefusedError):
        promotions.nominate(hall, "codex", "company", entry, Layer.L3, "stale again")
    topics = hall.streams.topics("company")
    assert "memhall.Chair.HandedOver" in topics and "memhall.Chair.HandedBack" in topics
