"""The composition root: global options become one `App` that builds the hall."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

import click
from click.core import ParameterSource

from memhall.domains.errors import InvalidValueError, MemhallError, NotFoundError
from memhall.governance.project import Defaults, load_defaults

if TYPE_CHECKING:
    # imported where used: the fast handoff path runs without SQLAlchemy or pydantic
    from memhall.governance import ids
    from memhall.governance.gate import Gate
    from memhall.governance.hall import Hall

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
    #: set by the commands that may create a store (`init`, `domain create`):
    #: every other command needs one that exists
    creating: bool = False
    #: how a human signs what this command takes (set by commands with --key / --ssh-keygen)
    signing_key: Path | None = None
    signing_with_ssh_keygen: bool = False
    _hall: Hall | None = field(default=None, repr=False)
    _defaults: Defaults | None = field(default=None, repr=False)

    @property
    def defaults(self) -> Defaults:
        """The project's `.memhall/config.toml`; flags and environment win over it."""
        if self._defaults is None:
            self._defaults = load_defaults()
        return self._defaults

    @property
    def actor(self) -> str:
        return self.actor_arg or self.defaults.actor or ""

    @property
    def domain(self) -> str:
        name = self.domain_arg or self.defaults.domain
        if not name:
            raise InvalidValueError(
                "no domain: pass --domain NAME, set MEMHALL_DOMAIN, or set `domain` in "
                ".memhall/config.toml" + self._known_domains())
        return name

    def _known_domains(self) -> str:
        try:
            names = self.hall.domain_names()
        except MemhallError:
            return ""
        if not names:
            return " (no domains yet: memhall domain create NAME)"
        return f" (domains here: {', '.join(names)})"

    def policy_dir(self) -> Path | None:
        """--policy / MEMHALL_POLICY, else ./memhall-policy/ if present, else the defaults."""
        from memhall.policies.folder import policy_directory

        return policy_directory(self.policy_arg)

    @property
    def hall_built(self) -> bool:
        return self._hall is not None

    @property
    def hall(self) -> Hall:
        if self._hall is None:
            from memhall.governance.hall import Hall
            from memhall.governance.location import locate, require_registry
            from memhall.governance.store import Store

            url = locate(self.store_arg, create=self.creating)
            factory = self.gate_factory or _cedar_gate
            gate = factory(self.policy_dir())
            store = Store(url)
            if not self.creating:
                try:
                    require_registry(store)
                except MemhallError:
                    store.dispose()
                    raise
            self._hall = Hall(store, gate, warn=note)
        return self._hall

    def resolve(self, kind: ids.IdKind, text: str, *, must_exist: bool = True) -> UUID:
        """The id of `kind` that `text` (a whole id or a unique prefix) names here."""
        from memhall.governance import ids

        return ids.resolve(self.hall, self.domain, kind, text, must_exist=must_exist)


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
    if hasattr(payload, "model_dump"):  # a pydantic view
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
    """Text piped in, strictly UTF-8 ("" on a terminal)."""
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:
        return sys.stdin.read()
    return decoded(buffer.read(), "stdin")


def decoded(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidValueError(f"{what} is not valid UTF-8 (byte {error.start})") from None


class IdText(click.ParamType):  # type: ignore[type-arg]  # generic only in click >= 8.3
    """An id as typed: whole, or its first six characters or more. The command
    looks it up (`App.resolve`), which needs the store and the domain."""

    name = "ID"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from memhall.governance import ids

        text = str(value)
        try:
            ids.canonical_prefix(text)
        except InvalidValueError as error:
            self.fail(str(error), param, ctx)
        return text


ID = IdText()


def session_of(app: App, value: str | None, *, open_only: bool = False) -> str | None:
    """The session a command names (--session or MEMHALL_SESSION), as a whole id.

    A MEMHALL_SESSION left over from an earlier session (wrapped up, or of
    another store or domain) says how to get out of it."""
    if not value:
        return None
    from memhall.governance import ids

    ctx = click.get_current_context()
    from_env = ctx.get_parameter_source("session_id") is ParameterSource.ENVIRONMENT
    way_out = "run `memhall handoff` to open a new session, or `unset MEMHALL_SESSION`"
    try:
        ident = app.resolve(ids.IdKind.SESSION, value)
    except (NotFoundError, InvalidValueError) as error:
        if from_env:
            raise InvalidValueError(f"MEMHALL_SESSION is stale ({error}): {way_out}") from None
        raise
    if open_only and from_env and ids.session_closed(app.hall, app.domain, ident):
        raise InvalidValueError(f"MEMHALL_SESSION is stale (session {ident} is already wrapped up): {way_out}")
    return str(ident)
