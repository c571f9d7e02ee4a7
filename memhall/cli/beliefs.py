"""Belief commands: evidence, why, beliefs (SPEC §5, issue 11)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import click

from memhall.cli.context import ID, App, emit, json_option
from memhall.cli.render import state_label
from memhall.cli.options import MOMENT, as_of_option, limit_option
from memhall.domains.belief import EvidenceKind
from memhall.domains.belief.drawing import as_dict, as_dot, as_mermaid, as_text
from memhall.domains.values import SourceKind
from memhall.governance import beliefs as reading
from memhall.governance import evidence as recording
from memhall.governance.ids import IdKind

pass_app = click.make_pass_decorator(App, ensure=True)

def label(state: str) -> str:
    return state_label(state)


@click.command()
@click.argument("claim", type=ID)
@click.option("--supports", "kind", flag_value="supports", help="It supports the claim.")
@click.option("--contradicts", "kind", flag_value="contradicts", help="It contradicts the claim.")
@click.option("--anomaly", "kind", flag_value="anomaly",
              help="A strong or abnormal conflict (e.g. under intervention).")
@click.option("--source", "source_kind", type=click.Choice(["firsthand", "hearsay"]),
              default="firsthand", show_default=True, help="Seen, or heard from someone.")
@click.option("--from", "from_agent", help="Who told it (hearsay only).")
@click.option("--ref", help="What backs it (a document, a commit, an entry).")
@click.option("--text", help="What was seen or said (a correction's new subject).")
@click.option("--at", "at", type=MOMENT, help="When it happened (default: now; never later).")
@json_option
@pass_app
def evidence(app: App, claim: str, kind: str | None, source_kind: str, from_agent: str | None,
             ref: str | None, text: str | None, at: datetime | None) -> None:
    """Record evidence on the belief CLAIM belongs to, and revise it (R(B, e))."""
    if kind is None:
        raise click.UsageError("say what it does: --supports, --contradicts or --anomaly")
    result = recording.record(app.hall, app.actor, app.domain,
                              app.resolve(IdKind.ENTRY, claim), EvidenceKind(kind),
                              source_kind=SourceKind(source_kind), from_agent=from_agent,
                              ref=ref, text=text, occurred_at=at)

    def human() -> str:
        lines = [f"evidence @{result.position} on {result.claim_entry}: {result.revision} -> "
                 f"{result.state} {result.confidence}{label(result.state)}"]
        if result.contested:
            lines.append("  contested: a ratified claim keeps its text; the owner may demote it")
        lines += [f"  trust: {t}" for t in result.trust_changed]
        lines += [f"  re-scored {r.entry_id}: {r.before} -> {r.after}" for r in result.rescored]
        return "\n".join(lines)

    emit(app, result, human)


FORMATS = click.Choice(["text", "json", "mermaid", "dot"])


@click.command()
@click.argument("entry_id", type=ID)
@click.option("--holder", help="Whose belief (default: the hall's).")
@as_of_option()
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True)
@json_option
@pass_app
def why(app: App, entry_id: str, holder: str | None, as_of: datetime | int | None,
        fmt: str) -> None:
    """Why is ENTRY_ID believed: its evidence graph (never generated prose)."""
    graph = reading.why_of(app.hall, app.actor, app.domain, app.resolve(IdKind.ENTRY, entry_id),
                           holder=holder, as_of=as_of)
    if app.json or fmt == "json":
        click.echo(json.dumps(as_dict(graph), indent=2, ensure_ascii=False))
        return
    draw = {"text": as_text, "mermaid": as_mermaid, "dot": as_dot}[fmt]
    click.echo(draw(graph), nl=False)


def belief_line(view: reading.BeliefView) -> str:
    b: dict[str, Any] = view.belief
    return (f"{b['state']:<11} {b['confidence']:>3}  [{b['layer']}] {view.entry_id}  "
            f"{b['subject']}{label(b['state'])}")


@click.command()
@click.option("--holder", help="Whose beliefs (default: the hall's, the chairs' view).")
@click.option("--topic", help="Only claims on this topic.")
@as_of_option()
@limit_option(1000, 1_000_000, "At most this many beliefs.")
@json_option
@pass_app
def beliefs(app: App, holder: str | None, topic: str | None, as_of: datetime | int | None,
            limit: int) -> None:
    """Each claim a holder believes, from the evidence it is exposed to, as of a cut."""
    view = reading.beliefs(app.hall, app.actor, app.domain, holder=holder, topic=topic,
                           as_of=as_of, limit=limit)
    cut = f" @{view.as_of_position}" if view.as_of_position is not None else ""
    emit(app, view, lambda: "\n".join(
        [f"# beliefs of {view.holder} in {view.domain} as of {view.as_of.isoformat()}{cut}"]
        + ([belief_line(b) for b in view.beliefs] or ["(no beliefs)"])))
