"""The `memhall` command's entry point (and `python -m memhall`): session starts served without click.

`memhall handoff` and `memhall hook session-start` run at every agent session start,
where importing click alone costs about a third of the 150 ms they may take. When
every argument is one this reads the way click would, they are answered through the
commands' own fast paths (`cli.lean_handoff`, `agents.lean_start`). Anything else —
another command, --help, -v, an option or a value it does not know, a repeated
option — and any fast path that declines or fails goes to the click CLI, which reads
the command line afresh: usage errors, refusals and the main path are all its own.
Nothing is written before a fast path commits its one event, and nothing after it
can send the command to click.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memhall.governance.fast_start import Started

#: the root group's options that take a value (`cli.main.cli`) -> parameter, and its environment variable
ROOT = {"--store": "store", "--as": "actor", "--domain": "domain", "--policy": "policy"}
ENVIRONMENT = {"store": "MEMHALL_STORE", "actor": "MEMHALL_AGENT", "domain": "MEMHALL_DOMAIN",
               "policy": "MEMHALL_POLICY"}
#: `memhall handoff`'s options, as `cli.handoff` declares them (--as-of goes to click)
HANDOFF = {"--limit": "limit", "--session": "session"}
HANDOFF_FLAGS = {"--no-session": "no_session", "--json": "json"}
HANDOFF_MOST = 100
#: `memhall hook`'s options (`agents.hook_command`)
HOOK = {"--agent": "agent", "--as": "actor", "--domain": "domain", "--summary-file": "summary_file"}
#: what click.echo strips from text written to something other than a terminal (click._compat._ansi_re)
ANSI = r"\033\[[0-?]*[ -/]*[@-~]"

Options = dict[str, str]


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    code = served(args)
    if code is None:
        from memhall.cli.main import main as click_main

        click_main(args)
    else:
        sys.exit(code)


def served(args: list[str]) -> int | None:
    """The exit code of a session start served here, or None: click answers."""
    if sys.platform == "win32" or not _clean(args) or not _utf8(sys.stdout):
        return None
    parsed = _options(args, ROOT, {"--json": "json"})
    if parsed is None or not parsed[1]:
        return None
    root, (command, *rest) = parsed
    for name, variable in ENVIRONMENT.items():
        if name not in root and os.environ.get(variable):  # click ignores an empty variable
            root[name] = os.environ[variable]
    if not _clean(list(root.values())):
        return None
    if command == "handoff":
        return _handoff(root, rest)
    if command == "hook":
        return _hook(root, rest)
    return None


def _handoff(root: Options, args: list[str]) -> int | None:
    parsed = _options(args, HANDOFF, HANDOFF_FLAGS)
    if parsed is None or parsed[1]:
        return None  # an argument click refuses, with its own usage error
    given = parsed[0]
    limit = given.get("limit", "")
    if limit and not (limit.isascii() and limit.isdigit() and 1 <= int(limit) <= HANDOFF_MOST):
        return None
    try:
        fast = _handoff_answer(root, given, int(limit) if limit else None)
    except Exception:  # noqa: BLE001  # nothing was written: click runs the command and says what went wrong
        return None
    if fast is None:
        return None
    from memhall.cli import lean_handoff

    try:
        text = lean_handoff.text(fast, "json" in root or "json" in given)
    except Exception as error:  # noqa: BLE001  # the session is open: say so as the CLI's last line of defence does
        sys.stderr.write(f"internal error: {type(error).__name__}: {error} (run with -v for details)\n")
        return 1
    return _echo(text)


def _handoff_answer(root: Options, given: Options, limit: int | None) -> dict[str, Any] | None:
    from memhall.cli import lean_handoff
    from memhall.governance import threads
    from memhall.governance.project import load_defaults
    from memhall.policies.folder import policy_directory

    store = lean_handoff.fast_store(root.get("store"))
    if store is None:
        return None
    actor = root.get("actor") or load_defaults().actor or ""  # `App.actor` and `App.domain`
    domain = root.get("domain") or load_defaults().domain
    if not domain:
        return None
    session = given.get("session") or os.environ.get("MEMHALL_SESSION") or None
    return lean_handoff.fast_answer(store, policy_directory(root.get("policy")), actor, domain,
                                    limit or threads.HANDOFF_LATEST, "no_session" not in given, session)


def _hook(root: Options, args: list[str]) -> int | None:
    from memhall.agents.payload import AGENTS

    given: Options = {}
    events: list[str] = []
    while args:  # click lets a command's options and its argument come in any order
        parsed = _options(args, HOOK, {})
        if parsed is None or any(name in given for name in parsed[0]):
            return None
        given.update(parsed[0])
        events += parsed[1][:1]
        args = parsed[1][1:]
    if events != ["session-start"] or given.get("agent") not in AGENTS:
        return None
    from memhall.domains.errors import StoreBusyError

    try:
        started = _hook_start(root, given)
    except StoreBusyError as error:  # click runs the hook, which hands out the handoff without waiting again
        from memhall.agents.lean_start import give_up

        give_up(error)
        return None
    except Exception:  # noqa: BLE001  # nothing was written: click runs the hook, which says what went wrong
        return None
    if started is None:
        return None
    from memhall.agents import lean_start

    try:
        text = lean_start.line(started[0], started[1])
        sys.stdout.buffer.write(text.encode("utf-8") + b"\n")  # as `hook_command.hook` writes it
        sys.stdout.flush()
    except Exception as error:  # noqa: BLE001  # the session is open; a hook never blocks its agent
        sys.stderr.write(f"memhall hook session-start ({given['agent']}): {error}\n")
    return 0


def _hook_start(root: Options, given: Options) -> tuple[Started, str] | None:
    """The fast start's session and the principal it is for, or None."""
    import io
    from pathlib import Path

    from memhall.agents.lean_start import HOOK_LOCK_WAIT_S, fast_started, where
    from memhall.agents.payload import parse, read_stdin
    from memhall.governance.keyed import session_key

    raw = read_stdin(sys.stdin)
    sys.stdin = io.StringIO(raw)  # should click run the hook after all, it reads the same input
    agent = given["agent"]
    payload = parse(agent, "session-start", raw)
    at = where(agent, given.get("actor"), given.get("domain"), root.get("store"), root.get("actor"),
               root.get("domain"), root.get("policy"), Path.cwd())
    started = fast_started(at.url, at.policy, at.actor, at.domain,
                           session_key(agent, payload.session_id, at.domain, at.actor), lock_wait_s=HOOK_LOCK_WAIT_S)
    return None if started is None else (started, at.actor)


def _options(args: list[str], valued: Options, flags: Options) -> tuple[Options, list[str]] | None:
    """The options `args` starts with (name -> value, "" for a flag) and what follows them;
    None for anything click alone should judge: an unknown or repeated option, a missing
    or empty value, or one that looks like an option itself."""
    found: Options = {}
    at = 0
    while at < len(args) and args[at].startswith("-"):
        name, equals, value = args[at].partition("=")
        if name in flags and not equals:
            key, value = flags[name], ""
        elif name in valued:
            if not equals:
                at += 1
                if at == len(args):
                    return None
                value = args[at]
            if not value or value.startswith("-"):
                return None
            key = valued[name]
        else:
            return None
        if key in found:
            return None
        found[key] = value
        at += 1
    return found, args[at:]


def _clean(values: list[str]) -> bool:
    """What `cli.main.check_arguments` lets through: UTF-8 text without NUL characters."""
    for value in values:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        if "\x00" in value:
            return False
    return True


def _utf8(stream: object) -> bool:
    """A stdout click would write to as it is (not one it wraps for a misconfigured encoding)."""
    encoding = getattr(stream, "encoding", None)
    return isinstance(encoding, str) and encoding.lower().replace("-", "").replace("_", "") == "utf8"


def _echo(text: str) -> int:
    """`click.echo(text)` and the exit code the CLI ends with: 0, or 1 on a closed pipe."""
    out = text + "\n"
    try:
        terminal = sys.stdout.isatty()
    except Exception:  # noqa: BLE001  # as click.utils.isatty
        terminal = False
    if not terminal:
        import re

        out = re.sub(ANSI, "", out)
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:
        return 1
    return 0
