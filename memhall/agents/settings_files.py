"""memhall's entries in each agent's hook settings, merged in without touching anyone else's.

All three agents read the same shape, `{"hooks": {Event: [{"matcher"?, "hooks":
[handler, …]}]}}`; they differ in the file, the event names and the handler
fields: Claude Code and Codex take `timeout` in seconds, Gemini CLI in
milliseconds (and a `name`). A handler is memhall's when its command runs
`memhall … hook EVENT … --agent AGENT`; merging replaces it in place, so a
second install changes nothing and another tool's hooks stay as they were.
"""

from __future__ import annotations

import copy
import difflib
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memhall.agents.payload import NATIVE_EVENTS
from memhall.domains.errors import InvalidValueError

#: where each agent reads hooks, under the project or the home directory
SETTINGS_PATHS = {
    "claude": Path(".claude") / "settings.json",
    "codex": Path(".codex") / "hooks.json",
    "gemini": Path(".gemini") / "settings.json",
}
TIMEOUT_S = 30
STATUS = {"session-start": "memhall: reading the handoff", "stop": "memhall: updating the draft wrap-up",
          "session-end": "memhall: recording the wrap-up", "pre-compact": "memhall: saving the draft wrap-up"}


@dataclass(frozen=True)
class Install:
    agent: str
    #: the program to run ("memhall", or an absolute path to it)
    program: str = "memhall"
    domain: str | None = None
    actor: str | None = None

    def command(self, event: str) -> str:
        try:
            program = shlex.split(self.program)
        except ValueError as error:  # an unclosed quote
            raise InvalidValueError(f"--command {self.program!r}: {error}") from None
        words = [*program, "hook", event, "--agent", self.agent]
        if self.domain:
            words += ["--domain", self.domain]
        if self.actor:
            words += ["--as", self.actor]
        return shlex.join(words)

    def handler(self, event: str) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": "command", "command": self.command(event)}
        if self.agent == "gemini":
            entry = {"name": f"memhall-{event}", **entry, "timeout": TIMEOUT_S * 1000,
                     "description": STATUS[event]}
        else:
            entry["timeout"] = TIMEOUT_S
            if self.agent == "codex":
                entry["statusMessage"] = STATUS[event]
            if self.agent == "claude" and event == "stop":
                # a Stop hook runs after every turn: the agent need not wait for the draft
                entry["async"] = True
        return entry


def is_ours(handler: Any, event: str, agent: str) -> bool:
    command = handler.get("command") if isinstance(handler, dict) else None
    return isinstance(command, str) and "memhall" in command and re.search(
        rf"\bhook\s+{re.escape(event)}(\s.*)?\s--agent[\s=]+{agent}\b", command) is not None


def merged(settings: dict[str, Any], install: Install) -> dict[str, Any]:
    """The settings with memhall's handlers for this agent in place."""
    result = copy.deepcopy(settings)
    hooks = result.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InvalidValueError('"hooks" in the settings is not an object; fix the file first')
    for event, native in NATIVE_EVENTS[install.agent].items():
        groups = hooks.setdefault(native, [])
        if not isinstance(groups, list):
            raise InvalidValueError(f'"hooks.{native}" in the settings is not a list; fix the file first')
        _place(groups, install.handler(event), event, install.agent)
    return result


def _place(groups: list[Any], handler: dict[str, Any], event: str, agent: str) -> None:
    placed = False
    emptied: list[int] = []
    for position, group in enumerate(groups):
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list):
            continue
        for index, existing in enumerate(handlers):
            if is_ours(existing, event, agent):
                handlers[index] = None if placed else handler
                placed = True
        if None in handlers:
            handlers[:] = [h for h in handlers if h is not None]
            if not handlers:
                emptied.append(position)  # held only a duplicate of ours
    for position in reversed(emptied):
        del groups[position]
    if not placed:
        groups.append({"hooks": [handler]})


def read_settings(path: Path) -> tuple[str, dict[str, Any]]:
    if not path.exists():
        return "", {}
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as error:
        raise InvalidValueError(f"{path} is not plain JSON ({error}); merge memhall's hooks by hand") from None
    if not isinstance(data, dict):
        raise InvalidValueError(f"{path} does not hold a JSON object")
    return text, data


@dataclass(frozen=True)
class Change:
    path: Path
    before: str
    after: str
    changed: bool

    def diff(self, label: str) -> str:
        lines = difflib.unified_diff(self.before.splitlines(keepends=True), self.after.splitlines(keepends=True),
                                     fromfile=f"a/{label}", tofile=f"b/{label}")
        return "".join(lines)


def plan(root: Path, install: Install) -> Change:
    """What installing would change in the agent's settings under ROOT."""
    path = root / SETTINGS_PATHS[install.agent]
    before, settings = read_settings(path)
    after_settings = merged(settings, install)
    if before and after_settings == settings:
        return Change(path, before, before, changed=False)
    return Change(path, before, json.dumps(after_settings, indent=2, ensure_ascii=False) + "\n", changed=True)


def write(change: Change) -> None:
    change.path.parent.mkdir(parents=True, exist_ok=True)
    partial = change.path.with_name(change.path.name + ".memhall-tmp")
    partial.write_text(change.after, encoding="utf-8")
    partial.replace(change.path)
