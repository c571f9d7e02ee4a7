"""The hall an agent-facing command works on, built from the root options.

Unlike the CLI, an agent's hook never creates a store: a project without
memhall would otherwise grow a `.memhall/` the first time an agent starts there.
"""

from __future__ import annotations

from pathlib import Path

from memhall.domains.errors import InvalidValueError
from memhall.governance.hall import Hall
from memhall.governance.store import Store, resolve_url
from memhall.policies.files import policy_directory


def existing_store_url(store: str | None, cwd: Path) -> str:
    url = resolve_url(store, cwd)
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        if str(path) != ":memory:" and not path.is_file():
            raise InvalidValueError(f"no memhall store at {path} (run `memhall init`, or set MEMHALL_STORE)")
    return url


def open_hall(store: str | None, policy: str | None, cwd: Path) -> Hall:
    from memhall.policies.engine import PolicySet

    return Hall(Store(existing_store_url(store, cwd)), PolicySet.load(policy_directory(policy, cwd)))
