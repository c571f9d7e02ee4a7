"""The hall an agent-facing command works on, built from the root options.

Unlike the CLI, an agent's hook never creates a store: a project without
memhall would otherwise grow a `.memhall/` the first time an agent starts there.
"""

from __future__ import annotations

from pathlib import Path

from memhall.governance.hall import Hall
from memhall.governance.location import locate
from memhall.governance.store import Store
from memhall.policies.files import policy_directory


def existing_store_url(store: str | None, cwd: Path) -> str:
    return locate(store, cwd=cwd, create=False)


def open_hall(store: str | None, policy: str | None, cwd: Path) -> Hall:
    from memhall.policies.engine import PolicySet

    return Hall(Store(existing_store_url(store, cwd)), PolicySet.load(policy_directory(policy, cwd)))
