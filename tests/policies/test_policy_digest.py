"""The policy digest covers every byte of the policy directory, and nothing of where it lives."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memhall.policies.diff import diff
from memhall.policies.digest import digest_summary, policy_digest
from memhall.policies.engine import PolicySet
from memhall.policies.files import PolicyFile, PolicySource, SourceFile, read_policy_dir


def digest_of(directory: Path | None) -> str:
    return policy_digest(read_policy_dir(directory))


def source_of(files: list[tuple[str, bytes]]) -> PolicySource:
    empty = SourceFile(name="-", text="")
    return PolicySource(root="-", schema=empty, rules=(), roles=empty, tests=(),
                        files=tuple(PolicyFile(path=p, data=d) for p, d in files))


def test_the_shipped_defaults_have_a_digest_of_64_hex_digits() -> None:
    digest = digest_of(None)

    assert len(digest) == 64
    assert set(digest) <= set("0123456789abcdef")
    assert digest_summary(digest) == digest[:12]


def test_a_copy_made_by_policy_init_has_the_digest_of_the_defaults(policy_dir: Path) -> None:
    assert digest_of(policy_dir) == digest_of(None)


def test_moving_the_policy_directory_keeps_its_digest(policy_dir: Path, tmp_path: Path) -> None:
    moved = Path(shutil.copytree(policy_dir, tmp_path / "elsewhere" / "other-name"))

    assert digest_of(moved) == digest_of(policy_dir)


def test_a_formatting_only_change_changes_the_digest(policy_dir: Path, tmp_path: Path) -> None:
    edited = Path(shutil.copytree(policy_dir, tmp_path / "edited"))
    seat = edited / "seat.cedar"
    seat.write_text(seat.read_text().replace("\n", "\n\n"))

    assert not diff(policy_dir, edited).changed  # the same decisions ...
    assert digest_of(edited) != digest_of(policy_dir)  # ... yet another policy text


def test_a_comment_in_roles_yaml_changes_the_digest(policy_dir: Path) -> None:
    before = digest_of(policy_dir)
    roles = policy_dir / "roles.yaml"
    roles.write_text("# reviewed\n" + roles.read_text())

    assert digest_of(policy_dir) != before


def test_renaming_a_file_changes_the_digest(policy_dir: Path) -> None:
    before = digest_of(policy_dir)

    (policy_dir / "seat.cedar").rename(policy_dir / "seats.cedar")

    assert digest_of(policy_dir) != before


def test_renaming_a_test_case_file_changes_the_digest(policy_dir: Path) -> None:
    before = digest_of(policy_dir)

    (policy_dir / "tests" / "seat.yaml").rename(policy_dir / "tests" / "seats.yaml")

    assert digest_of(policy_dir) != before


def test_a_file_the_loader_does_not_parse_still_changes_the_digest(policy_dir: Path) -> None:
    before = digest_of(policy_dir)

    (policy_dir / "allowed_signers").write_text("maki ssh-ed25519 AAAA\n")
    with_signers = digest_of(policy_dir)
    (policy_dir / "dynamics.yaml").write_text("decay: {}\n")
    (policy_dir / "notes").mkdir()
    (policy_dir / "notes" / "why.md").write_text("because\n")

    assert len({before, with_signers, digest_of(policy_dir)}) == 3


def test_crlf_line_endings_do_not_change_the_digest(policy_dir: Path) -> None:
    before = digest_of(policy_dir)

    for path in policy_dir.rglob("*"):
        if path.is_file():
            path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))

    assert digest_of(policy_dir) == before
    assert len(PolicySet.load(policy_dir).rules) == len(PolicySet.load(None).rules)


def test_hidden_files_are_neither_loaded_nor_hashed(policy_dir: Path) -> None:
    before = digest_of(policy_dir)

    (policy_dir / ".git").mkdir()
    (policy_dir / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (policy_dir / ".roles.yaml.swp").write_bytes(b"\x00\x01")
    (policy_dir / ".sneaky.cedar").write_text('permit (principal, action, resource);\n')

    assert digest_of(policy_dir) == before
    assert len(PolicySet.load(policy_dir).rules) == len(PolicySet.load(None).rules)


def test_moving_bytes_from_one_file_to_the_next_changes_the_digest() -> None:
    joined = source_of([("a.cedar", b"ab"), ("b.cedar", b"c")])
    shifted = source_of([("a.cedar", b"a"), ("b.cedar", b"bc")])

    assert policy_digest(joined) != policy_digest(shifted)


@given(st.dictionaries(st.text("abc./", min_size=1, max_size=6), st.binary(max_size=8), min_size=1, max_size=4))
def test_the_digest_does_not_depend_on_the_order_files_were_listed_in(files: dict[str, bytes]) -> None:
    listed = list(files.items())

    assert policy_digest(source_of(listed)) == policy_digest(source_of(listed[::-1]))


@given(st.binary(max_size=12), st.binary(max_size=12))
def test_two_contents_hash_alike_only_when_they_are_equal_after_crlf(one: bytes, two: bytes) -> None:
    same = one.replace(b"\r\n", b"\n") == two.replace(b"\r\n", b"\n")

    assert (policy_digest(source_of([("f", one)])) == policy_digest(source_of([("f", two)]))) is same
