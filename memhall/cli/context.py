"""The composition root: global options become one `App` that builds the hall."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import click
from pydantic import BaseModel

from memhall.domains.errors import InvalidValueError
from memhall.governance.gate import Gate
from memhall.governance.hall import Hall
from memhall.governance.store import Store, resolve_url
from memhall.policies.files import locate_policy_dir

F = TypeVar("F", bound=Callable[..., Any])



@dataclass
class App:
    store_arg: str | None = None
    actor_arg: str | None = None
    domain_arg: str | None = None
    policy_arg: str | None = None
    json: bool = False
    verbose: int = 0
    gate_factory: Callable[[Path | None], Gate] | None = None
    _hall: Hall | None = field(default=None, repr=False)

    @property
    def actor(self) -> str:
        return self.actor_arg or ""

    @property
    def domain(self) -> str:
        if not self.domain_arg:
            raise InvalidValueError("no domain: pass --domain NAME or set MEMHALL_DOMAIN")
        return self.domain_arg

    def policy_dir(self) -> Path | None:
        """--policy / MEMHALL_POLICY, else ./memhall-policy/ if present, else the defaults."""
        return locate_policy_dir(self.policy_arg, Path.cwd())

    @property
    def hall(self) -> Hall:
        if self._hall is None:
            factory = self.gate_factory or _cedar_gate
            gate = factory(self.policy_dir())
            self._hall = Hall(Store(resolve_url(self.store_arg)), gate)
        return self._hall


def _cedar_gate(directory: Path | None) -> Gate:
    from memhall.policies.engine import PolicySet

    return PolicySet.load(directory)


def json_option(fn: F) -> F:
    """`--json` on every command, as well as on the root."""

    def set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if value:
            ctx.ensure_object(App).json = True

    return click.option(
        "--json", "json_", is_flag=True, expose_value=False, callback=set_json,
        help="Print JSON on stdout (messages go to stderr).",
    )(fn)


def emit(app: App, payload: Any, human: Callable[[], str]) -> None:
    """JSON on stdout for programs, or the human rendering."""
    if app.json:
        click.echo(json.dumps(_plain(payload), indent=2, ensure_ascii=False))
    else:
        click.echo(human())


def _plain(payload: Any) -> Any:
    if isinstance(payload, BaseModel):
        return payload.model_dump(mode="json")
    if isinstance(payload, list):
        return [_plain(p) for p in payload]
    if isinstance(payload, dict):
        return {k: _plain(v) for k, v in payload.items()}
    return payload


def note(message: str) -> None:
    """A message for people: always stderr, so stdout stays clean for --json."""
    click.echo(message, err=True)


def stdin_text() -> str:
    return "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
