"""`memhall`: the root command, global options, and how errors end.

Exit codes: 0 ok, 1 error, 2 usage, 3 refused by policy, 4 audit failure.
A user's error is one line on stderr, never a traceback (-v adds it back).
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

import click

from memhall import __version__
from memhall.cli.context import App, json_option
from memhall.domains.errors import MemhallError, RefusedError

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_REFUSED, EXIT_AUDIT = 0, 1, 2, 3, 4


def configure_logging(verbose: int) -> None:
    """Key-value logs on stderr with -v; without it structlog is not even
    imported (it costs ~0.1 s of start-up on the handoff path)."""
    if not verbose:
        return
    import structlog

    level = 10 if verbose > 1 else 20
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            structlog.processors.KeyValueRenderer(key_order=["timestamp", "level", "event"]),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


def _first_line(error: BaseException) -> str:
    """The driver's own message, on one line (SQLAlchemy appends a help link)."""
    cause = getattr(error, "orig", None) or error.__cause__ or error
    text = str(cause).strip().splitlines()
    return text[0] if text else type(error).__name__


def store_failure(error: BaseException) -> bool:
    """A database or event-store error, told apart without importing SQLAlchemy or
    eventsourcing (a command that never loaded them cannot have raised theirs)."""
    for module, name in (("sqlalchemy.exc", "SQLAlchemyError"), ("eventsourcing.persistence", "PersistenceError"),
                         ("sqlite3", "Error")):
        loaded = sys.modules.get(module)
        if loaded is not None and isinstance(error, getattr(loaded, name)):
            return True
    return False


def check_arguments(args: list[str]) -> None:
    """Refuse what no command can take: text that is not UTF-8 (Python hands
    undecodable argv bytes over as lone surrogates) and NUL characters."""
    for number, arg in enumerate(args, start=1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raise click.UsageError(f"argument {number} is not valid UTF-8") from None
        if "\x00" in arg:
            raise click.UsageError(f"argument {number} contains a NUL character")


class HallGroup(click.Group):
    """The root group: commands load lazily, and every failure ends as one line
    on stderr (and a JSON object on stdout under --json) with its exit code."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *super().list_commands(ctx)})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the summaries, so `--help` imports no command module."""
        from memhall.cli.summaries import SUMMARIES

        names = self.list_commands(ctx)
        if any(name not in SUMMARIES for name in names):
            super().format_commands(ctx, formatter)
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        with formatter.section("Commands"):
            formatter.write_dl([(name, click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit))
                                for name in names])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module, attribute = target.split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        app = extra.setdefault("obj", App())
        verbose = any(a in ("-v", "--verbose", "-vv", "-vvv") for a in argv)
        failure = Failure(app, wants_json="--json" in argv)
        try:
            check_arguments(argv)
            result = super().main(argv, prog_name or "memhall", complete_var, standalone_mode=False,
                                  windows_expand_args=windows_expand_args, **extra)
            code = result if isinstance(result, int) and not isinstance(result, bool) else EXIT_OK
        except click.exceptions.Exit as done:
            code = done.exit_code
        except click.exceptions.Abort:
            code = failure.report(EXIT_ERROR, "aborted")
        except click.UsageError as error:
            code = failure.report(EXIT_USAGE, f"usage error: {error.format_message()}")
        except click.ClickException as error:
            code = failure.report(EXIT_ERROR, f"error: {error.format_message()}")
        except MemhallError as error:
            if verbose:
                raise
            code = failure.report(error.exit_code, f"error: {error}{failure.hint(error)}", error.rule)
        except (KeyboardInterrupt, BrokenPipeError):
            code = EXIT_ERROR
        except UnicodeDecodeError:
            # input read at a prompt or from a file that is not UTF-8; nothing was written
            code = failure.report(EXIT_ERROR, "error: the input is not valid UTF-8")
        except OSError as error:
            # a file named on the command line that cannot be read or written (a folder,
            # no permission, a full disk): the command stopped before it recorded anything
            if verbose:
                raise
            where = f" {error.filename}" if error.filename else ""
            code = failure.report(EXIT_ERROR, f"error: cannot use{where}: {error.strerror or error}")
        except Exception as error:  # the last line of defence: no traceback for users
            if verbose:
                raise
            if store_failure(error):
                reason = _first_line(error)
                if ("no such column" in reason or "no such table" in reason
                        or (("column" in reason or "relation" in reason) and "does not exist" in reason)):
                    reason += " (its read models predate this memhall: run `memhall rebuild`)"
                code = failure.report(EXIT_ERROR, f"error: the store cannot be used: {reason}")
            else:
                code = failure.report(EXIT_ERROR, f"internal error: {type(error).__name__}: "
                                                  f"{_first_line(error)} (run with -v for details)")
        finally:
            if isinstance(app, App) and app.hall_built:
                app.hall.store.dispose()
        if standalone_mode:
            sys.exit(code)
        return code


class Failure:
    """How one failed command reports: a line on stderr, and under --json an
    `{"error": {...}}` object on stdout for programs."""

    def __init__(self, app: Any, *, wants_json: bool) -> None:
        self.app = app
        self.wants_json = wants_json

    def report(self, code: int, line: str, rule: str = "") -> int:
        click.echo(line, err=True)
        if self.wants_json or (isinstance(self.app, App) and self.app.json):
            message = line.split(": ", 1)[1] if ": " in line else line
            error: dict[str, object] = {"code": code, "message": message}
            if rule:
                error["rule"] = rule
            click.echo(json.dumps({"error": error}, ensure_ascii=False))
        return code

    def hint(self, error: MemhallError) -> str:
        """A refusal in a domain roles.yaml does not declare says where to add it."""
        if not isinstance(error, RefusedError) or not isinstance(self.app, App):
            return ""
        if not self.app.hall_built:
            return ""
        policy = self.app.policy_dir()
        from memhall.governance.gate import roles_hint

        found = roles_hint(self.app.hall.gate, error.domain, str(policy) if policy else None)
        return f"; {found}" if found else ""


@click.group(cls=HallGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--store", envvar="MEMHALL_STORE", metavar="URL|PATH",
              help="SQLAlchemy URL or SQLite file path (default: nearest .memhall/).")
@click.option("--as", "actor", envvar="MEMHALL_AGENT", metavar="PRINCIPAL",
              help="The acting principal (required for writes).")
@click.option("--domain", envvar="MEMHALL_DOMAIN", metavar="NAME", help="The domain to act in.")
@click.option("--policy", "policy", envvar="MEMHALL_POLICY", metavar="DIR",
              help="Policy directory (default: ./memhall-policy/, else the built-in defaults).")
@json_option
@click.option("-v", "--verbose", count=True, help="Key-value logs on stderr.")
@click.version_option(version=__version__, prog_name="memhall")
@click.pass_context
def cli(ctx: click.Context, store: str | None, actor: str | None, domain: str | None,
        policy: str | None, verbose: int) -> None:
    """memhall: shared memory for several AI agents, governed.

    Every write is an event in a per-domain stream; layers L1-L4 say what may
    be treated as true; policies say who may write, nominate and ratify.
    """
    app = ctx.ensure_object(App)
    # values from the environment never passed through argv's checks
    check_arguments([v for v in (store, actor, domain, policy) if v is not None])
    app.store_arg, app.actor_arg, app.domain_arg = store, actor, domain
    app.policy_arg, app.verbose = policy, verbose
    configure_logging(verbose)
    if verbose:
        import structlog

        log = structlog.get_logger()
        started = time.perf_counter()
        log.info("command.start", command=ctx.invoked_subcommand, store=store, actor=actor, domain=domain)
        ctx.call_on_close(lambda: log.info("command.done", command=ctx.invoked_subcommand,
                                           seconds=round(time.perf_counter() - started, 4)))


#: command name -> "module:attribute"; a command's module is imported only when
#: it runs, which keeps `memhall handoff` off the policy-review and ledger imports
COMMANDS = {
    "domain": "memhall.cli.domain:domain",
    "handoff": "memhall.cli.handoff:handoff",
    "wrap-up": "memhall.cli.hall:wrap_up",
    "write": "memhall.cli.hall:write",
    "show": "memhall.cli.hall:show",
    "import": "memhall.cli.transfer:import_",
    "export": "memhall.cli.transfer:export",
    "state": "memhall.cli.hall:state",
    "search": "memhall.cli.hall:search",
    "log": "memhall.cli.hall:log",
    "retire": "memhall.cli.hall:retire",
    "close": "memhall.cli.hall:close",
    "rebuild": "memhall.cli.maintenance:rebuild",
    "init": "memhall.cli.maintenance:init",
    "tour": "memhall.cli.tour:tour",
    "promote": "memhall.cli.promotion:promote",
    "nominate": "memhall.cli.promotion:nominate",
    "remind": "memhall.cli.promotion:remind",
    "dissent": "memhall.cli.promotion:dissent",
    "ratify": "memhall.cli.promotion:ratify",
    "reject": "memhall.cli.promotion:reject",
    "withdraw": "memhall.cli.promotion:withdraw",
    "demote": "memhall.cli.promotion:demote",
    "promotions": "memhall.cli.promotion:promotions_",
    "knowledge": "memhall.cli.promotion:knowledge",
    "canon": "memhall.cli.promotion:canon",
    "policy": "memhall.cli.policy:policy",
    "audit": "memhall.cli.audit:audit",
    "recall": "memhall.cli.recall:recall",
    "opinion": "memhall.cli.perspective:opinion",
    "relate": "memhall.cli.perspective:relate",
    "about": "memhall.cli.perspective:about",
    "materialize": "memhall.cli.ledgers:materialize",
    "materializations": "memhall.cli.ledgers:materializations",
    "request": "memhall.cli.ledgers:request",
    "pending": "memhall.cli.ledgers:pending",
    "answer": "memhall.cli.ledgers:answer",
    "keys": "memhall.cli.keys:keys",
    "chair": "memhall.cli.chair:chair",
    "consolidate": "memhall.cli.dynamics:consolidate",
    "wander": "memhall.cli.dynamics:wander",
    "graph": "memhall.cli.dynamics:graph",
    "strength": "memhall.cli.dynamics:strength",
    "trust": "memhall.cli.trust:trust",
    "evidence": "memhall.cli.beliefs:evidence",
    "why": "memhall.cli.beliefs:why",
    "beliefs": "memhall.cli.beliefs:beliefs",
    "mcp": "memhall.agents.command:mcp",
    "hook": "memhall.agents.hook_command:hook",
    "hooks": "memhall.agents.install_command:hooks",
}


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI; every failure becomes an exit code (HallGroup.main)."""
    cli.main(args=argv, prog_name="memhall", obj=App())
