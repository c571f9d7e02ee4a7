"""Perspective commands: opinion, relate, about."""

from __future__ import annotations

import click

from memhall.cli.context import ID, App, emit, json_option
from memhall.domains.opinion import Stance
from memhall.domains.relationship import Visibility
from memhall.governance import perspective
from memhall.governance.ids import IdKind

pass_app = click.make_pass_decorator(App, ensure=True)
EVIDENCE_HELP = "An entry you hold that supports it (repeatable; an id or its first characters)."
AGAINST_HELP = "An entry you hold that speaks against it (repeatable; an id or its first characters)."


@click.command()
@click.argument("entity")
@click.option("--category", required=True, help="What kind of judgement (e.g. reliability, taste).")
@click.option("--statement", required=True, help="The judgement, in one line.")
@click.option("--stance", type=click.Choice([s.value for s in Stance]), required=True)
@click.option("--confidence", type=click.IntRange(0, 100), default=70, show_default=True)
@click.option("--topic", help="Narrow it to a topic.")
@click.option("--evidence", "evidence", multiple=True, type=ID, help=EVIDENCE_HELP)
@click.option("--against", "against", multiple=True, type=ID, help=AGAINST_HELP)
@click.option("--as", "actor", metavar="AGENT", help="Whose opinion (as the global --as): only your own.")
@json_option
@pass_app
def opinion(app: App, entity: str, category: str, statement: str, stance: str, confidence: int,
            topic: str | None, evidence: tuple[str, ...], against: tuple[str, ...], actor: str | None) -> None:
    """Record your own opinion of ENTITY (a new version each time); private to you."""
    if actor:
        app.actor_arg = actor
    view = perspective.opinion(app.hall, app.actor, app.domain, entity, category=category, statement=statement,
                               stance=Stance(stance), confidence=confidence, topic=topic,
                               evidence=[str(app.resolve(IdKind.ENTRY, e)) for e in evidence],
                               contradicting=[str(app.resolve(IdKind.ENTRY, e)) for e in against])
    emit(app, view, lambda: f"opinion {view.id} v{view.version} of {view.observer} on {view.entity} "
                            f"[{view.category}] {view.stance}: {view.statement} ({len(view.evidence)} for, "
                            f"{len(view.contradicting)} against)")


@click.command()
@click.argument("source")
@click.argument("target")
@click.option("--kind", required=True, help="What joins them (e.g. parent-of, works-with).")
@click.option("--visibility", type=click.Choice([v.value for v in Visibility]), required=True,
              help="objective and public are L2 writes; private is your own L1 reading.")
@click.option("--note", default="", help="A line on why.")
@click.option("--evidence", "evidence", multiple=True, type=ID, help=EVIDENCE_HELP)
@click.option("--as", "actor", metavar="AGENT", help="Who records it (as the global --as).")
@json_option
@pass_app
def relate(app: App, source: str, target: str, kind: str, visibility: str, note: str,
           evidence: tuple[str, ...], actor: str | None) -> None:
    """Record a relationship between SOURCE and TARGET (a new version each time)."""
    if actor:
        app.actor_arg = actor
    view = perspective.relate(app.hall, app.actor, app.domain, source, target, kind=kind,
                              visibility=Visibility(visibility), note=note,
                              evidence=[str(app.resolve(IdKind.ENTRY, e)) for e in evidence])
    emit(app, view, lambda: f"relationship {view.id} v{view.version}: {view.source} {view.kind} "
                            f"{view.target} ({view.visibility}), {len(view.evidence)} evidence")


@click.command()
@click.argument("entity")
@click.option("--as", "actor", metavar="AGENT", help="Whose view (as the global --as): only your own.")
@json_option
@pass_app
def about(app: App, entity: str, actor: str | None) -> None:
    """What you hold about ENTITY: your opinions of it, the relationships you can see, their evidence."""
    if actor:
        app.actor_arg = actor
    view = perspective.about(app.hall, app.actor, app.domain, entity)
    emit(app, view, lambda: rendered(view))


def rendered(view: perspective.AboutView) -> str:
    lines = [f"# About {view.entity}, as {view.observer} holds it in {view.domain}", "", "## Your opinions"]
    for o in view.portrait:
        lines.append(f"- [{o.category}] {o.stance}, {o.confidence}% (v{o.version}): {o.statement}")
        lines += [_evidence(view, i) for i in o.evidence]
        lines += [_evidence(view, i, "against") for i in o.contradicting]
    if not view.portrait:
        lines.append("(none)")
    lines += ["", "## Relationships you can see"]
    for r in view.relationships:
        lines.append(f"- {r.source} {r.kind} {r.target} ({r.visibility}, v{r.version})"
                     + (f": {r.note}" if r.note else ""))
        lines += [_evidence(view, i) for i in r.evidence]
    if not view.relationships:
        lines.append("(none)")
    if view.unheld_evidence:
        lines += ["", f"({view.unheld_evidence} cited memories you do not hold are not shown)"]
    return "\n".join(lines)


def _evidence(view: perspective.AboutView, ident: str, label: str = "evidence") -> str:
    e = view.evidence.get(ident)
    return f"    {label} [{e.layer}] {e.id} by {e.author}: {e.text}" if e else f"    {label} (not held)"
