"""`memhall audit`: verify the hash chains, checkpoint their heads, review the log."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextlib import nullcontext
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import click

# SQLAlchemy, and what imports it, is imported where it is used: `audit verify` starts its
# process beside before that (a few tenths of a second of the process beside's start)
from memhall.audit import checkpoints
from memhall.audit.checkpoints import DEFAULT_PATH, Checkpoint
from memhall.cli.models_beside import beside_at_once, models_beside
from memhall.cli.context import App, emit, json_option, note
from memhall.cli.options import BIGINT, LAYERS
from memhall.cli.table import listing
from memhall.domains.errors import AuditFailureError, InvalidValueError, MemhallError
from memhall.cli.signing import signer, signing_options
from memhall.policies.acts import canonical_act
from memhall.governance.location import locate, require_registry
from memhall.governance.replay import BATCH, collector_paused
from memhall.governance.recompute import STREAM_TABLE, ModelReport, combined, models_of
from memhall.policies.model import Action

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from memhall.audit import review
    from memhall.audit.verify import ChainReport, Watch
    from memhall.governance.attestation import ActsReport
    from memhall.governance.event_checks import EventChecks
    from memhall.governance.store import Store

#: what `audit log --decision` takes (`review.DECISIONS`, which imports SQLAlchemy)
DECISIONS = ("allowed", "refused")

pass_app = click.make_pass_decorator(App, ensure=True)


@click.group()
def audit() -> None:
    """Tamper evidence: verify the chains, checkpoint their heads, review the log."""


@audit.command()
@click.option("--checkpoints", "path", type=click.Path(dir_okay=False, path_type=Path),
              help=f"Checkpoint file to check against (default: {DEFAULT_PATH} if it exists).")
@click.option("--batch", type=click.IntRange(1, 100_000), default=BATCH, show_default=True, hidden=True,
              help="Rows per query.")  # as many as a replay's batch
@click.option("--fast", is_flag=True, help="Only the hash chains, not the read models.")
@json_option
@pass_app
def verify(app: App, path: Path | None, batch: int, fast: bool) -> None:
    """Recompute every hash chain and read model; exit 4 on a break.

    Each domain's chain (and the system stream's) is recomputed from its
    events end to end, and every checkpoint must still be a prefix of it.
    Then every read model an agent is served from (entries, full-text rows,
    sessions, promotions, requests, materializations, audit rows, the domain
    registry) is recomputed from the log and compared row by row."""
    url = locate(app.store_arg)
    # a long log's read models are replayed in a second process while this one walks the chains
    # (their verdict counts only if every chain holds), started before anything else is read
    decided, beside = (True, None) if fast else beside_at_once(url)
    try:
        store = _open(app, url)
        try:
            if not decided:
                beside = models_beside(store)
            path = path or _remembered(store, existing=True)
            if path is None and DEFAULT_PATH.is_file():
                path = DEFAULT_PATH
            seen = _load(path) if path else []
            _check_signatures(store, seen)
            # imported once the process beside is started (the seal brings the policy engine)
            from memhall.governance.event_checks import EventChecks

            # each event's policy digest and signature are checked as the chain walk reads it, and,
            # with a process beside, the append-only read models' rows (it replays the others)
            checks = EventChecks(logged=beside is not None)
            reports, _ = _verify(store, path, seen, incremental=False, batch=batch, checks=checks)
            acts = [checks.acts(r.domain) for r in reports if r.ok]
            models = [] if fast or not all(r.ok for r in reports) else (
                combined(beside.result(), checks.counts, lambda names: models_of(store.url, names, thorough=True))
                if beside is not None else models_of(store.url))
        finally:
            store.dispose()
    finally:
        if beside is not None:
            beside.close()
    ok = all(r.ok for r in reports) and all(m.ok for m in models) and all(a.ok for a in acts)
    if not seen and ok:
        note("WARNING: no checkpoint: truncation of the log, rollback to an older copy and a "
             "recomputed chain CANNOT be detected (take one with `memhall audit checkpoint` and commit it)")
    emit(app, {"ok": ok, "checkpoints": str(path) if path else None,
               "domains": reports, "acts": acts, "read_models": models},
         lambda: "\n".join([*(_verdict(r) for r in reports), *(_acts_verdict(a) for a in acts),
                            *(_model_verdict(m) for m in models)]))
    _fail_if_broken(reports)
    unattested = [a for a in acts if not a.ok]
    if unattested:
        raise AuditFailureError("audit failed: " + "; ".join(f"{a.domain}: {a.problem}" for a in unattested))
    broken = [m for m in models if m.broken is not None]
    if broken:
        raise AuditFailureError("audit failed: " + "; ".join(
            f"{m.domain}: {m.broken.detail}" for m in broken if m.broken is not None))


def _remembered(store: Store, *, existing: bool) -> Path | None:
    """The checkpoint file the store remembers (for verify: only once it exists)."""
    from memhall.governance.settings import checkpoint_file

    found = checkpoint_file(store)
    return found if found is not None and (found.is_file() or not existing) else None


def _acts_verdict(report: ActsReport) -> str:
    if report.problem is not None:
        return f"{report.domain:<12} BROKEN  policy and signatures: {report.problem}"
    pre = f", {report.pre_adoption} pre-adoption events (written before adoption existed)" \
        if report.pre_adoption else ""
    return (f"{report.domain:<12} OK      policy: {report.adoptions} adoption(s), every decision names the "
            f"adopted digest; {report.signatures} signature(s) verified{pre}")


def _model_verdict(report: ModelReport) -> str:
    if report.broken is None:
        return f"{report.domain:<12} OK      read models: {report.rows} rows match {report.events} events"
    return f"{report.domain:<12} BROKEN  read model {report.broken.table}: {report.broken.detail}"


@audit.command()
@click.option("--file", "path", type=click.Path(dir_okay=False, path_type=Path),
              help="Checkpoint file to append to; the store remembers it from then on "
                   f"(default: the one it remembers, else {DEFAULT_PATH}).")
@click.option("--on-wrap-up/--not-on-wrap-up", "on_wrap_up", default=None,
              help="Whether every wrap-up appends a checkpoint (set for the store).")
@signing_options
@json_option
@pass_app
def checkpoint(app: App, path: Path | None, on_wrap_up: bool | None, key: Path | None,
               ssh_keygen: bool) -> None:
    """Append each chain head to a checkpoint file.

    Commit the file to git: later verifications hold the store to it. The
    chains are checked first, and a broken one gets no checkpoint. Taken by a
    human with a key in allowed_signers, each line is signed."""
    app.signing_key, app.signing_with_ssh_keygen = key, ssh_keygen
    if path is not None or on_wrap_up is not None:
        from memhall.governance.settings import checkpoint_file, remember_checkpoints

        store = _open(app)
        try:
            remember_checkpoints(store, path or checkpoint_file(store) or DEFAULT_PATH, on_wrap_up=on_wrap_up)
        finally:
            store.dispose()
    written = write_checkpoint(app, path)
    emit(app, written, lambda: "\n".join(
        f"{c.domain:<12} position {c.position:>8}  head {c.head}" for c in written))


def write_checkpoint(app: App, path: Path | None) -> list[Checkpoint]:
    """Append one checkpoint per domain (system stream included). The chains are
    checked first, from each domain's last checkpoint on: a broken chain gets
    no checkpoint, so tampering is never blessed."""
    store = _open(app)
    try:
        target = path or _remembered(store, existing=False) or DEFAULT_PATH
        previous = _load(target) if target.is_file() else []
        reports, store_id = _verify(store, target, previous, incremental=True, batch=BATCH)
    finally:
        store.dispose()
    _fail_if_broken(reports)
    now = datetime.now(timezone.utc)
    written = _signed([Checkpoint(domain=r.domain, position=r.position, head=r.head, at=now, store=store_id)
                       for r in reports], app)
    checkpoints.append(target, written)
    note(f"checkpoint: {len(written)} chain heads appended to {target} (commit it)")
    return written


def _signed(taken: list[Checkpoint], app: App) -> list[Checkpoint]:
    """Checkpoints taken by a human with a key in allowed_signers carry that human's signature."""
    from memhall.policies.files import read_policy_dir
    from memhall.policies.signers import AllowedSigners

    actor = app.actor
    signers = AllowedSigners.of(read_policy_dir(app.policy_dir()))
    if not actor or not signers.has_key(actor):
        return taken
    sign = signer(app.signing_key, app.signing_with_ssh_keygen)
    marked = [c.model_copy(update={"by": actor}) for c in taken]
    return [c.model_copy(update={"signature": sign(canonical_act(c.signed()))}) for c in marked]


def _check_signatures(store: Store, seen: list[Checkpoint]) -> None:
    """A signed checkpoint line must verify against the allowed_signers its domain had adopted
    at that position (the copy in the log, not the policy folder, which whoever holds the
    files can edit); a forged one fails the audit. A checkpoint of a stream whose tables are
    gone is left to the chain check, which reports the stream missing."""
    signed = [c for c in seen if c.signature]
    if not signed:
        return
    from sqlalchemy import inspect

    from memhall.audit.verify import snapshot
    from memhall.governance.attestation import adopted_signers
    from memhall.governance.tables import tables_for
    from memhall.policies.signing import verify as verify_signature

    with snapshot(store.read_engine) as conn:
        tables = set(inspect(conn).get_table_names())
        for c in signed:
            if tables_for(c.domain).events_name not in tables:
                continue
            signers = adopted_signers(conn, c.domain, c.position)
            try:
                if signers is None:
                    raise MemhallError(f"{c.domain} had adopted no policy by position {c.position}")
                verify_signature(canonical_act(c.signed()), str(c.signature), signers, str(c.by), at=c.at)
            except MemhallError as error:
                raise AuditFailureError(
                    f"audit failed: the checkpoint of {c.domain} at position {c.position} signed by {c.by} "
                    f"does not verify against the allowed_signers adopted then: {error}") from None


@audit.command("log")
@click.option("--actor", help="Only this principal's events.")
@click.option("--action", help="Only this action (write_l2, ratify, audit_review, ...).")
@click.option("--layer", type=LAYERS, help="Only events at this layer.")
@click.option("--decision", type=click.Choice(DECISIONS), help="Only allowed or refused events.")
@click.option("--since", help="From this ISO date or date-time on (UTC unless it says otherwise).")
@click.option("--until", help="Up to this ISO date-time; a bare date includes that whole day.")
@click.option("--all-domains", is_flag=True,
              help="Every domain and the system stream (needs audit_review in every domain).")
@click.option("--sample", type=click.IntRange(1, BIGINT),
              help="A random sample of N matching rows (the monthly audit).")
@click.option("--seed", help="Seed of the sample: the same seed picks the same rows.")
@click.option("--limit", type=click.IntRange(1, BIGINT), help="Only the latest N matching rows.")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV on stdout.")
@json_option
@pass_app
def log(app: App, actor: str | None, action: str | None, layer: str | None, decision: str | None,
        since: str | None, until: str | None, all_domains: bool, sample: int | None,
        seed: str | None, limit: int | None, as_csv: bool) -> None:
    """Review the audit log, rule by rule.

    Every event, allowed or refused, with the policy rule that decided it.
    Reading it is itself governed (audit_review) and a refusal is recorded."""
    if as_csv and app.json:
        raise click.UsageError("--csv and --json cannot be combined")
    from memhall.audit import review
    from memhall.governance.tables import SYSTEM, tables_for

    hall = app.hall
    names = hall.domain_names() if all_domains else [app.domain]
    sources = [review.AuditSource(hall.ask(app.actor, Action.AUDIT_REVIEW, name)[0].name,
                                  tables_for(name).audit.name) for name in names]
    if all_domains:
        sources.append(review.AuditSource(SYSTEM, tables_for(SYSTEM).audit.name))
    filters = review.Filters(
        actor=actor, action=action, layer=layer, decision=decision,
        since=_moment(since) if since else None,
        until=_moment(until, end=True) if until else None,
    )
    with hall.store.read() as conn:
        found = review.rows(conn, sources, filters)
    if sample is not None:
        seed = seed or secrets.token_hex(4)
        note(f"sample of {min(sample, len(found))} from {len(found)} rows, seed {seed} "
             f"(repeat with --sample {sample} --seed {seed})")
        found = review.sample(found, sample, seed)
    if limit is not None:
        found = found[-limit:]
    if as_csv:
        click.echo(review.to_csv(found), nl=False)
        return
    listing(app, found, lambda: "\n".join(_row(r) for r in found) or "no audit rows match",
            ("at", "where", "actor", "action", "layer", "target", "decision", "rule", "detail"),
            lambda: ((f"{r.at:%Y-%m-%d %H:%M:%SZ}", f"{r.domain}#{r.position}", r.actor, r.action, r.layer,
                      r.resource_id, r.decision.upper(), r.rule, r.detail) for r in found),
            empty="no audit rows match")


def _verify(store: Store, path: Path | None, seen: list[Checkpoint], *, incremental: bool, batch: int,
            checks: EventChecks | None = None) -> tuple[list[ChainReport], str | None]:
    """The chain reports; `checks` see every event the walk verified (and are finished in its
    snapshot: the LOGGED rows' verdicts are then in `checks.finish()`)."""
    from sqlalchemy import inspect

    from memhall.audit.verify import ChainSource, Watch, snapshot, verify_store
    from memhall.governance.tables import tables_for

    with snapshot(store.read_engine) as conn:
        sources = [ChainSource(d, tables_for(d).events_name, tables_for(d).chain.name)
                   for d in _streams(conn, store)]
        store_id = _store_id(conn)
        if path is not None:
            seen = checkpoints.of_store(path, seen, store_id)
        watch: Callable[[str], Watch | None] | None = None
        if checks is not None:
            tables, db = set(inspect(conn).get_table_names()), conn.connection.driver_connection
            watch = lambda domain: checks.watch(db, store.dialect, tables, domain)  # noqa: E731
        # the checks hold a batch of fresh rows at a time, in no reference cycle (see collector_paused)
        with collector_paused() if checks is not None else nullcontext():
            reports = verify_store(conn, sources, seen, incremental=incremental, batch=batch, watch=watch)
            if checks is not None:
                checks.finish()
        return reports, store_id


def _store_id(conn: Connection) -> str | None:
    from sqlalchemy import inspect, select

    from memhall.governance.tables import store_table

    if store_table.name not in inspect(conn).get_table_names():
        return None
    row = conn.execute(select(store_table.c.id)).first()
    return str(row[0]) if row else None


def _open(app: App, url: str | None = None) -> Store:
    """The store (at `url`, where it was already located), read as it is: verifying never creates one."""
    from memhall.governance.store import Store

    store = Store(url or locate(app.store_arg))
    try:
        require_registry(store)
    except MemhallError:
        store.dispose()
        raise
    return store


def _moment(value: str, *, end: bool = False) -> datetime:
    from memhall.audit import review

    try:
        return review.moment(value, end=end)
    except OverflowError:  # the day after 9999-12-31
        raise InvalidValueError(f"date out of range: {value!r}") from None


def _load(path: Path) -> list[Checkpoint]:
    """The checkpoint file's lines; a file that is not text at all is refused
    as such (a line of text that is not a checkpoint fails the audit)."""
    try:
        return checkpoints.load(path)
    except UnicodeDecodeError as error:
        raise InvalidValueError(f"{path} is not a checkpoint file: not UTF-8 text (byte {error.start})") from None


def _streams(conn: Connection, store: Store) -> list[str]:
    """Registered domains and any stream found by its tables (a domain removed
    from the registry is still verified), the system stream last."""
    from sqlalchemy import inspect, select

    from memhall.governance.tables import SYSTEM, domains_table

    tables = inspect(conn).get_table_names()
    if domains_table.name not in tables and not any(STREAM_TABLE.match(t) for t in tables):
        raise InvalidValueError(f"not a memhall store: {store.display}")
    names = {m.group(1) for m in map(STREAM_TABLE.match, tables) if m}
    if domains_table.name in tables:
        names.update(r[0] for r in conn.execute(select(domains_table.c.name)))
    names.add(SYSTEM)
    return sorted(names - {SYSTEM}) + [SYSTEM]


def _fail_if_broken(reports: list[ChainReport]) -> None:
    broken = [r for r in reports if r.broken is not None]
    if broken:
        raise AuditFailureError("audit failed: " + "; ".join(
            f"{r.domain} breaks at position {r.broken.position} ({r.broken.problem.value})"
            for r in broken if r.broken is not None))


def _verdict(report: ChainReport) -> str:
    if report.broken is None:
        matched = f", {report.checkpoints} checkpoints match" if report.checkpoints else ""
        return (f"{report.domain:<12} OK      {report.events} events to position {report.position}, "
                f"head {report.head}{matched}")
    return (f"{report.domain:<12} BROKEN  at position {report.broken.position} "
            f"({report.broken.problem.value}): {report.broken.detail}")


def _row(row: review.AuditRow) -> str:
    at = row.at.strftime("%Y-%m-%d %H:%M:%SZ")
    layer = f" {row.layer}" if row.layer else ""
    target = f" {row.resource_id}" if row.resource_id else ""
    detail = f" - {row.detail}" if row.detail else ""
    return (f"{at} {row.domain}#{row.position} {row.actor} {row.action}{layer}{target} "
            f"{row.decision.upper()} by {row.rule}{detail}")
