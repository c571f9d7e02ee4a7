"""What an agent's hook hands memhall on stdin, read into one shape for all three agents.

Field names follow each agent's hook reference (README, "Session hooks"): every agent
sends `session_id`, `transcript_path`, `cwd` and `hook_event_name`; the last
reply comes as `last_assistant_message` (Claude `Stop`, Codex `Stop`) or
`prompt_response` (Gemini `AfterAgent`); starts name their `source`, ends
their `reason`.
"""

from __future__ import annotations

import json
import os
import select
import time
from pathlib import Path
from typing import Any, IO, NamedTuple

from memhall.domains.errors import InvalidValueError

AGENTS = ("claude", "codex", "gemini")
EVENTS = ("session-start", "stop", "session-end", "pre-compact")

#: memhall's hook command -> the agent's own event it is installed on; `stop`
#: is always a per-turn event, and Codex has no event that ends a session
NATIVE_EVENTS: dict[str, dict[str, str]] = {
    "claude": {"session-start": "SessionStart", "stop": "Stop",
               "session-end": "SessionEnd", "pre-compact": "PreCompact"},
    "codex": {"session-start": "SessionStart", "stop": "Stop", "pre-compact": "PreCompact"},
    "gemini": {"session-start": "SessionStart", "stop": "AfterAgent",
               "session-end": "SessionEnd", "pre-compact": "PreCompress"},
}

#: how long to wait for the payload: some agents never close the hook's stdin,
#: so reading stops at the first complete JSON object instead of at EOF
STDIN_WAIT_S = 2.0


class HookInput(NamedTuple):
    agent: str
    event: str
    session_id: str
    cwd: Path | None = None
    transcript: Path | None = None
    #: why a session starts (startup, resume, clear, compact) or ends (exit, clear, logout, …)
    source: str = ""
    #: the agent's last reply, when the event carries it
    last_message: str | None = None


def check_names(agent: str, event: str) -> None:
    if agent not in AGENTS:
        raise InvalidValueError(f"unknown agent {agent!r} (expected one of {', '.join(AGENTS)})")
    if event not in EVENTS:
        raise InvalidValueError(f"unknown hook event {event!r} (expected one of {', '.join(EVENTS)})")


def read_stdin(stream: IO[str] | None, wait: float = STDIN_WAIT_S) -> str:
    """The hook's JSON from stdin: up to EOF or the first complete object."""
    if stream is None or stream.isatty():
        return ""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return stream.read()  # an in-memory stream (tests): it has an end
    data = b""
    deadline = time.monotonic() + wait
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
        if _complete(data):
            break
    return data.decode("utf-8", errors="replace")


def _complete(data: bytes) -> bool:
    try:
        json.loads(data)
    except ValueError:
        return False
    return True


def parse(agent: str, event: str, raw: str) -> HookInput:
    """One agent's hook JSON as a HookInput; bad JSON is one clear line."""
    check_names(agent, event)
    try:
        data: Any = json.loads(raw) if raw.strip() else None
    except ValueError as error:
        raise InvalidValueError(f"the hook input on stdin is not JSON ({error})") from None
    if not isinstance(data, dict):
        raise InvalidValueError("no hook input on stdin: expected the agent's hook JSON object")
    session_id = data.get("session_id")
    if not isinstance(session_id, str) or not session_id.strip():
        raise InvalidValueError("the hook input names no session_id")
    return HookInput(
        agent=agent, event=event, session_id=session_id.strip(),
        cwd=_path(data.get("cwd")), transcript=_path(data.get("transcript_path")),
        source=_text(data.get("source") or data.get("reason") or data.get("trigger")),
        last_message=_optional(data.get("last_assistant_message", data.get("prompt_response"))),
    )


def _path(value: Any) -> Path | None:
    return Path(value) if isinstance(value, str) and value.strip() else None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _optional(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
