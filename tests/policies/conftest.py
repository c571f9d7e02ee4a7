"""Fixtures for the policy tests: the packaged defaults and a copy of them on disk."""

from __future__ import annotations

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
