"""Recall command: what the acting agent holds that is relevant to a query."""

from __future__ import annotations

from datetime import datetime

import click

from memhall.cli.context import App, emit, json_option
from memhall.cli.options import MOMENT
from memhall.cli.render import state_label
from memhall.domains.entry import tags as entry_tags
from memhall.ledgers.recall.embedding_match import configured
from memhall.ledgers.recall.observer import (
    DEFAULT_ITEMS,
    DEFAULT_TOKENS,
    MAX_ITEMS,
    MAX_TOKENS,
    Recalled,
    recall as recall_for,
)
from memhall.policies.dynamics_file import load_dynamics

pass_app = click.make_pass_decorator(App, ensure=True)


@click.command()
@click.argument("query")
@click.option("--as", "actor", metavar="AGENT", help="Who recalls (as the global --as): its own memory only.")
@click.option("--person", "people", multiple=True, help="A person the query is about.")
@click.option("--place", "places", multiple=True, help="A place the query is about.")
@click.option("--topic", "topics", multiple=True, help="A topic the query is about.")
@click.option("--max-items", type=click.IntRange(1, MAX_ITEMS), default=DEFAULT_ITEMS, show_default=True,
              help="Most memories handed out.")
@click.option("--max-tokens", type=click.IntRange(1, MAX_TOKENS), default=DEFAULT_TOKENS, show_default=True,
              help="Token budget (estimate: utf-8 bytes / 4 + overhead per item).")
@click.option("--explain", is_flag=True, help="Every candidate's channel ranks and scores, and why it made the cut.")
@click.option("--as-of", "as_of", type=MOMENT, help="Recall as the log stood then (records nothing).")
@click.option("--no-record", is_flag=True, help="Record nothing (an evaluation, a dry run).")
@json_option
@pass_app
def recall(app: App, query: str, actor: str | None, people: tuple[str, ...], places: tuple[str, ...],
           topics: tuple[str, ...], max_items: int, max_tokens: int, explain: bool,
           as_of: datetime | None, no_record: bool) -> None:
    """Recall what you hold that is relevant to QUERY, best first; or "no memory of that"."""
    if actor:
        app.actor_arg = actor
    done = recall_for(app.hall, app.actor, app.domain, query,
                      tags=entry_tags(people=people, places=places, topics=topics), max_items=max_items,
                      max_tokens=max_tokens, explain=explain, as_of=as_of, record=not no_record,
                      embedder=configured(), dynamics=load_dynamics(app.policy_dir()))
    emit(app, done, lambda: rendered(done))


def rendered(view: Recalled) -> str:
    when = f" as of {view.as_of:%Y-%m-%d %H:%M}" if view.as_of else ""
    lines = [f"# Recall for {view.observer} in {view.domain}{when}: {view.query!r}"]
    if view.abstained:
        lines.append(f"{view.answer}" + (f" ({view.why})" if view.why else ""))
    else:
        lines += [f"- [{i.layer}] {i.kind} {i.id} by {i.author}, {i.occurred_at:%Y-%m-%d}"
                  f"{state_label(i.state, i.confidence)}: {i.text}"
                  + (f"\n    now understood: {i.understanding}" if i.understanding else "")
                  for i in view.items] or ["(nothing relevant)"]
    lines.append(f"NOTE: {view.notice}.")
    if view.explain is not None:
        lines += ["", "## Explain (every candidate, best first)"]
        for e in view.explain:
            channels = ", ".join(f"{name} #{int(v['rank'])} ({v['score']:g})" for name, v in e.channels.items())
            factors = ", ".join(f"{k} ×{v:g}" for k, v in e.factors.items())
            dyn = e.dynamics
            strength = (f"; strength {dyn['strength']:g}, reviews {dyn['reviews']}"
                        if "strength" in dyn else "")
            cover = f"; covers {e.coverage:.0%}" if e.coverage is not None else ""
            lines.append(f"- {'HANDED' if e.handed else 'left'} {e.id} [{e.layer}] relevance {e.relevance:g}"
                         f"{cover}; tier {e.tier}{strength}\n    channels: {channels or '-'}\n"
                         f"    factors: {factors}\n    why: {e.reason}\n    text: {e.text}")
    return "\n".join(lines)
