"""Memory dynamics commands: consolidate, wander, graph, strength."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import click

from memhall.cli.context import ID, App, emit, json_option, note
from memhall.cli.options import MOMENT
from memhall.domains.dynamics.config import DynamicsConfig
from memhall.domains.dynamics.drawing import to_dot, to_mermaid
from memhall.governance import consolidation, wandering
from memhall.governance import dynamics as reading
from memhall.governance.ids import IdKind
from memhall.policies.dynamics_file import load_dynamics

pass_app = click.make_pass_decorator(App, ensure=True)




def _config(app: App) -> DynamicsConfig:
    return load_dynamics(app.policy_dir())


def _domain(app: App, domain: str | None) -> None:
    if domain:
        app.domain_arg = domain


@click.command()
@click.option("--domain", "domain", help="The domain (as the global --domain).")
@click.option("--since", type=MOMENT, help="Episodes since this time (default: the policy's window).")
@click.option("--as-of", "as_of", type=MOMENT, help="End of the window (default: now).")
@json_option
@pass_app
def consolidate(app: App, domain: str | None, since: datetime | None, as_of: datetime | None) -> None:
    """Condense recent episodes of the same entities into cited L1 note candidates ("sleep")."""
    _domain(app, domain)
    done = consolidation.run(app.hall, app.actor, app.domain, _config(app), since=since, as_of=as_of)

    def human() -> str:
        head = (f"# Consolidation of {done.domain}: {done.episodes} episodes from "
                f"{done.since:%Y-%m-%d %H:%M} to {done.as_of:%Y-%m-%d %H:%M}")
        lines = [head]
        for n in done.notes:
            state = "new" if n.new else "already written"
            lines.append(f"- [L1] {n.entry_id} ({state}; priority {n.priority:.3f}, "
                         f"{len(n.source_ids)} sources): {n.text}")
        if not done.notes:
            lines.append("(nothing new to consolidate)")
        return "\n".join(lines)

    emit(app, done, human)


@click.command()
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="The walk's seed (default: the log's length).")
@click.option("--steps", type=click.IntRange(1, 10_000), help="Steps of the walk (default: the policy's, 20).")
@click.option("--as-of", "as_of", type=MOMENT, help="Weigh memories as of this time (default: the newest).")
@click.option("--anyway", is_flag=True, help="Walk even when the mood is not calm.")
@json_option
@pass_app
def wander(app: App, seed: int | None, steps: int | None, as_of: datetime | None, anyway: bool) -> None:
    """A bounded random walk over the tag graph; new links become L1 insight candidates."""
    done = wandering.run(app.hall, app.actor, app.domain, _config(app), seed=seed, steps=steps,
                         as_of=as_of, anyway=anyway)
    if done.skipped:
        note(f"nothing walked: {done.skipped}")

    def human() -> str:
        lines = [f"# Wandering in {done.domain} (seed {done.seed}, {len(done.path)} nodes visited)"]
        for i in done.insights:
            state = "new" if i.new else "already written"
            lines.append(f"- [L1] {i.entry_id} ({state}; novelty {i.novelty:.2f}, step {i.step}): {i.text}")
        if not done.insights:
            lines.append("(no new insight)")
        return "\n".join(lines)

    emit(app, done, human)


@click.command()
@click.option("--entity", help="Draw the neighbourhood of this tag (a person, place or topic).")
@click.option("--hops", type=click.IntRange(1, 3), default=1, show_default=True, help="How far from it.")
@click.option("--format", "fmt", type=click.Choice(["dot", "mermaid"]), default="dot", show_default=True)
@click.option("--for", "observer", help="Whose memory (default: your own).")
@pass_app
def graph(app: App, entity: str | None, hops: int, fmt: str, observer: str | None) -> None:
    """Draw the tag graph (tags, relation kinds; wandering links dashed) as dot or Mermaid."""
    drawn = reading.graph(app.hall, app.actor, app.domain, _config(app), entity=entity, hops=hops,
                          observer=observer)
    click.echo(to_dot(drawn) if fmt == "dot" else to_mermaid(drawn), nl=False)


@click.command()
@click.argument("entry_ids", nargs=-1, required=True, type=ID)
@click.option("--for", "observer", help="Whose memory (default: your own).")
@click.option("--as-of", "as_of", type=MOMENT, help="As of this time (default: now).")
@json_option
@pass_app
def strength(app: App, entry_ids: tuple[str, ...], observer: str | None, as_of: datetime | None) -> None:
    """How well a memory is held: strength, stability and reviews (a faded one is never deleted)."""
    ids = [str(app.resolve(IdKind.ENTRY, i)) for i in entry_ids]
    views = reading.strengths(app.hall, app.actor, app.domain, ids, _config(app), observer=observer,
                              as_of=as_of)

    def human() -> str:
        return "\n".join(
            f"- [{v.layer}] {v.id} strength {v.strength:.3f}{' (faded)' if v.faded else ''}, "
            f"{v.reviews} reviews, stability {v.stability_days:g} days"
            f"{'' if v.held else f' (not held by {v.observer})'}: {v.text}" for v in views)

    emit(app, views, human)
