"""Council commands: materialize, materializations, request, pending, answer."""

from __future__ import annotations

from datetime import timedelta

import click

from memhall.cli.context import ID, App, emit, json_option, note
from memhall.cli.options import HOURS, limit_option
from memhall.cli.table import listing
from memhall.domains.entry import tags as entry_tags
from memhall.governance import requests
from memhall.governance.ids import IdKind
from memhall.ledgers import markdown, records
from memhall.ledgers.budget import MAX_FACTS, Budget
from memhall.ledgers.materialize import materialize as materialize_for

pass_app = click.make_pass_decorator(App, ensure=True)
#: a token budget far beyond any prompt, and far below what overflows anything
MAX_TOKENS = 1_000_000


@click.command()
@click.option("--seat", required=True, help="The seat the ledgers are for.")
@click.option("--task", required=True, help="What the seat is asked to do.")
@click.option("--person", "people", multiple=True, help="A person the task is about.")
@click.option("--place", "places", multiple=True, help="A place the task is about.")
@click.option("--topic", "topics", multiple=True, help="A topic the task is about.")
@click.option("--max-items", type=click.IntRange(1, MAX_FACTS), default=MAX_FACTS, show_default=True,
              help="Most facts in ledger B.")
@click.option("--max-tokens", type=click.IntRange(1, MAX_TOKENS), default=800, show_default=True,
              help="Token budget over ledgers A and B (estimate: utf-8 bytes / 4 + overhead).")
@click.option("--explain", is_flag=True, help="Show each candidate's channel scores and placement.")
@json_option
@pass_app
def materialize(app: App, seat: str, task: str, people: tuple[str, ...], places: tuple[str, ...],
                topics: tuple[str, ...], max_items: int, max_tokens: int, explain: bool) -> None:
    """Hand SEAT the memory it may rely on for a task: ledgers A, B and C (system chair only)."""
    done = materialize_for(
        app.hall, app.actor, app.domain, seat=seat, task=task,
        tags=entry_tags(people=people, places=places, topics=topics),
        budget=Budget(max_items=max_items, max_tokens=max_tokens), explain=explain,
    )
    note(f"recorded as materialization {done.record_id}")
    emit(app, done.ledgers, lambda: markdown.ledgers(done.ledgers))


@click.command()
@click.option("--seat", help="Only what this seat was shown.")
@limit_option(20, 1000, "How many, newest first.")
@json_option
@pass_app
def materializations(app: App, seat: str | None, limit: int) -> None:
    """What each seat was shown, and at which log position, newest first."""
    seen = records.materializations(app.hall, app.actor, app.domain, seat=seat, limit=limit)

    def human() -> str:
        return "\n".join(
            f"- {r.id} for {r.seat} by {r.by} at position {r.log_position}: {r.task}\n"
            f"    A: {', '.join(r.ledger_a) or '-'}\n    B: {', '.join(r.ledger_b) or '-'}\n"
            f"    C: {len(r.ledger_c)} excluded; digest {r.digest}"
            for r in seen
        ) or "(no materializations)"

    emit(app, seen, human)


@click.command()
@click.option("--seat", required=True, help="The seat missing the memory.")
@click.option("--need", required=True, help="What memory is missing, in one line.")
@click.option("--expires-in", type=HOURS, default=72.0, show_default=True, help="Hours until it expires.")
@json_option
@pass_app
def request(app: App, seat: str, need: str, expires_in: float) -> None:
    """Record a MEMORY REQUEST: the seat asks instead of filling the gap with inference."""
    view = requests.request_memory(app.hall, app.actor, app.domain, seat, need,
                                   timedelta(hours=expires_in))
    emit(app, view, lambda: f"MEMORY REQUEST {view.id} open until {view.expires_at:%Y-%m-%d %H:%M}Z"
         f" (mark dependent parts MEMORY PENDING: memhall write --pending {view.id} ...)")


@click.command()
@click.option("--seat", help="Only requests for this seat.")
@json_option
@pass_app
def pending(app: App, seat: str | None) -> None:
    """Open MEMORY REQUESTs, oldest first (expired ones are not open)."""
    views = requests.pending(app.hall, app.actor, app.domain, seat=seat)
    listing(app, views, lambda: "\n".join(f"- {v.summary}" for v in views) or "(no open requests)",
            ("request", "seat", "by", "expires", "need"),
            lambda: ((v.id, v.seat, v.requested_by, f"{v.expires_at:%Y-%m-%d %H:%M}Z", v.need) for v in views),
            empty="(no open requests)")


@click.command()
@click.argument("request_id", type=ID)
@click.option("--entry", "entry_id", required=True, type=ID,
              help="The L2+ entry of this domain that answers it.")
@json_option
@pass_app
def answer(app: App, request_id: str, entry_id: str) -> None:
    """Answer REQUEST_ID with an existing entry (system chair)."""
    view = requests.answer(app.hall, app.actor, app.domain, app.resolve(IdKind.REQUEST, request_id),
                           app.resolve(IdKind.ENTRY, entry_id, must_exist=False))
    emit(app, view, lambda: f"answered {view.id} with {view.answer_entry}")
