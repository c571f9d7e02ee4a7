"""`memhall hook session-start` on its fast path, without click: who acts where, and the line it prints.

The click command (`hook_command`) and the click-free start (`memhall.console`) both
resolve a hook's options here and serve session-start from here, so there is one
way to read a hook's command line and one fast start.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from memhall.domains.errors import StoreBusyError
    from memhall.governance.fast_start import Started

#: how long a hook that its agent waits on (a session's start, a turn's end, a compaction) waits
#: for another process's write lock; then session-start hands out the handoff without opening
#: a session, and the others leave the draft as it was. session-end waits as the CLI does: its
#: wrap-up is what the session leaves
HOOK_LOCK_WAIT_S = 3.0
#: the lock wait the click-free start (`console`) gave up on, if it did: the hook's main path
#: then hands out the handoff at once, without waiting as long again
_GAVE_UP: list[StoreBusyError] = []


def give_up(error: StoreBusyError) -> None:
    _GAVE_UP.append(error)


def gave_up() -> StoreBusyError | None:
    """The lock wait given up on before click ran the hook (taken: asked once)."""
    return _GAVE_UP.pop() if _GAVE_UP else None


class Where(NamedTuple):
    """A hook's principal, domain, store and policy folder, from its options and the root's."""

    actor: str
    domain: str
    url: str
    policy: Path | None


def where(agent: str, actor: str | None, domain: str | None, root_store: str | None, root_actor: str | None,
          root_domain: str | None, root_policy: str | None, cwd: Path) -> Where:
    """The hook's own --as / --domain win over the root's; without either the agent acts as itself.
    The store must exist: an agent starting in a project without memhall creates nothing."""
    from memhall.domains.errors import InvalidValueError
    from memhall.governance.location import locate
    from memhall.policies.folder import policy_directory

    domain = domain or root_domain
    if not domain:
        from memhall.governance.project import load_defaults

        domain = load_defaults(cwd).domain  # the project's default, as for the CLI (never its `as`)
    if not domain:
        raise InvalidValueError("no domain: pass --domain NAME, set MEMHALL_DOMAIN, or set `domain` in "
                                ".memhall/config.toml")
    url = locate(root_store, cwd=cwd, create=False)
    return Where(actor or root_actor or agent, domain, url, policy_directory(root_policy, cwd))


def fast_start(url: str, policy: Path | None, actor: str, domain: str, key: str,
               now: datetime | None = None, lock_wait_s: float | None = None) -> str | None:
    """session-start on the fast path (`governance.fast_start`): the same session and the
    same JSON line as `lifecycle.start`, or None for the caller to take that path."""
    started = fast_started(url, policy, actor, domain, key, now, lock_wait_s)
    return None if started is None else line(started, actor)


def fast_started(url: str, policy: Path | None, actor: str, domain: str, key: str,
                 now: datetime | None = None, lock_wait_s: float | None = None) -> Started | None:
    """The session opened (or found open) and what to hand out, or None: take the main path.
    `StoreBusyError` when another process held the write lock longer than `lock_wait_s`."""
    from memhall.domains.errors import MemhallError, StoreBusyError
    from memhall.domains.values import domain_name, principal_name
    from memhall.governance import fast_handoff
    from memhall.governance.fast_start import Start, session_start

    store = fast_handoff.sqlite_path(url)
    if store is None or os.environ.get("MEMHALL_FAST_HANDOFF") == "0":
        return None
    try:
        start = Start(store=store, policy_dir=policy, actor=principal_name(actor), domain=domain_name(domain),
                      key=key, lock_wait_s=lock_wait_s)
        return session_start(start, now)
    except StoreBusyError:
        raise  # the main path would wait as long again
    except (MemhallError, sqlite3.Error):
        return None  # a bad name or a store the fast path does not understand: the main path says why


def line(started: Started, actor: str) -> str:
    """The JSON line the hook prints (`briefing.budgeted`, as `lifecycle.start` prints it)."""
    from memhall.agents import briefing
    from memhall.governance import fast_handoff

    return briefing.budgeted(fast_handoff.readable(started.view),
                             [fast_handoff.readable_entry(e) for e in started.canon],
                             [fast_handoff.readable_entry(e) for e in started.knowledge],
                             actor=actor, session_id=started.session_id)
