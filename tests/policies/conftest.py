"""Fixtures for the policy tests: the packaged defaults, a copy of them on disk, signing keys."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from memhall.policies.engine import PolicySet, init_policy_dir


@pytest.fixture(scope="session")
def defaults() -> PolicySet:
    return PolicySet.load(None)


@pytest.fixture
def policy_dir(tmp_path: Path) -> Path:
    target = tmp_path / "memhall-policy"
    init_policy_dir(target)
    return target


@dataclass(frozen=True)
class KeyPair:
    """A key generated for the test: its private file, and its public half as `TYPE BASE64`."""

    path: Path
    public: str

    def signer_line(self, principals: str, options: str = "") -> str:
        return " ".join(part for part in (principals, options, self.public) if part)


def ssh_keygen(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """The real OpenSSH ssh-keygen, which the signatures must agree with."""
    program = shutil.which("ssh-keygen")
    assert program is not None, "ssh-keygen (OpenSSH's client) is needed to cross-check signatures"
    return subprocess.run([program, *args], input=stdin, capture_output=True, check=False)


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, KeyPair]:
    """One key of each supported type, made by ssh-keygen (never one from the home directory)."""
    folder = tmp_path_factory.mktemp("keys")
    made: dict[str, KeyPair] = {}
    for name, kind in [("ed25519", ["-t", "ed25519"]), ("other-ed25519", ["-t", "ed25519"]),
                       ("ecdsa", ["-t", "ecdsa", "-b", "256"]), ("ecdsa384", ["-t", "ecdsa", "-b", "384"]),
                       ("ecdsa521", ["-t", "ecdsa", "-b", "521"]), ("rsa", ["-t", "rsa", "-b", "2048"])]:
        path = folder / name
        done = ssh_keygen("-q", *kind, "-N", "", "-C", name, "-f", str(path))
        assert done.returncode == 0, done.stderr
        public = " ".join(path.with_name(name + ".pub").read_text().split()[:2])
        made[name] = KeyPair(path=path, public=public)
    return made
