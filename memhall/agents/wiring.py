"""The hall an agent-facing command works on, built from the root options.

Unlike the CLI, an agent's hook never creates a store: a project without
memhall would otherwise grow a `.memhall/` the first time an agent starts there.
Imports are lazy: a session start that the fast path serves never loads the hall.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memhall.governance.hall import Hall


def existing_store_url(store: str | None, cwd: Path) -> str:
    from memhall.governance.location import locate

    return locate(store, cwd=cwd, create=False)


def open_hall(store: str | None, policy: str | None, cwd: Path) -> Hall:
    from memhall.policies.folder import policy_directory

    return hall_at(existing_store_url(store, cwd), policy_directory(policy, cwd))


def require_agent(gate: object, actor: str, acting: str, advice: str) -> None:
    """An agent-facing command never acts as a human of roles.yaml (`gate`: the policy): what
    it records would stand as the human's own word (an inherited MEMHALL_AGENT, a project's
    `as`). `acting`: what acts for an agent, as the error names it."""
    from memhall.domains.errors import InvalidValueError
    from memhall.domains.values import PrincipalType

    principal_type = getattr(gate, "principal_type", None)
    if principal_type is not None and principal_type(actor) is PrincipalType.HUMAN:
        raise InvalidValueError(f"{actor} is a human in roles.yaml, and {acting}: {advice}")


def hall_at(url: str, policy_dir: Path | None, *, lock_wait_s: float | None = None) -> Hall:
    from memhall.governance.hall import Hall
    from memhall.governance.store import Store
    from memhall.policies.engine import PolicySet

    return Hall(Store(url, lock_wait_s=lock_wait_s), PolicySet.load(policy_dir))
