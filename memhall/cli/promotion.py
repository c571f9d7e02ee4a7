"""Promotion commands: promote, nominate, remind, dissent, ratify, reject,
withdraw, demote, and the listings promotions, knowledge (L3) and canon (L4)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click

from memhall.cli.context import ID, App, emit, json_option
from memhall.cli.options import LAYERS, as_of_option, layers
from memhall.cli.render import state_label
from memhall.cli.signing import signing_options, use_signer
from memhall.cli.table import listing
from memhall.domains.errors import InvalidValueError, NotFoundError
from memhall.domains.values import Layer
from memhall.governance import promotions as use
from memhall.governance.ids import IdKind
from memhall.governance.promotion_records import LayerView

pass_app = click.make_pass_decorator(App, ensure=True)
YES_NO = click.Choice(["yes", "no"])


def _layer(value: str) -> Layer:
    return Layer.parse(value)


@click.command()
@click.argument("entry_id", type=ID)
@click.option("--to", "to_layer", type=LAYERS, default="L2", show_default=True, help="Only L2: L1 -> L2.")
@click.option("--useful", type=YES_NO, required=True, help="Useful in future?")
@click.option("--evidence", multiple=True, help="An evidence reference (at least one).")
@click.option("--not-temporary", type=YES_NO, required=True, help="Not a temporary narrative?")
@click.option("--safe", type=YES_NO, required=True, help="Safe: no secrets, no cross-domain data?")
@json_option
@pass_app
def promote(app: App, entry_id: str, to_layer: str, useful: str, evidence: tuple[str, ...],
            not_temporary: str, safe: str) -> None:
    """Promote ENTRY_ID from L1 to L2 through the four questions."""
    if _layer(to_layer) is not Layer.L2:
        raise click.BadParameter("`promote` goes L1 -> L2 only (allowed: L2); higher layers need "
                                 "`memhall nominate`", param_hint="'--to'")
    entry = use.promote(app.hall, app.actor, app.domain, app.resolve(IdKind.ENTRY, entry_id),
                        useful=useful == "yes",
                        evidence=evidence, not_temporary=not_temporary == "yes", safe=safe == "yes")
    emit(app, {"entry_id": str(entry.id), "layer": entry.layer.value},
         lambda: f"promoted {entry.id} to [{entry.layer.value}]")


@click.command()
@click.argument("entry_id", type=ID)
@click.option("--to", "to_layer", type=layers(Layer.L3, Layer.L4), required=True,
              help="L3 (stale fact) or L4 (canon).")
@click.option("--stale-fact", help="Why this L2 entry is a settled fact (L2 -> L3).")
@click.option("--reason", help="Why this L3 knowledge should bind (L3 -> L4).")
@json_option
@pass_app
def nominate(app: App, entry_id: str, to_layer: str, stale_fact: str | None, reason: str | None) -> None:
    """Nominate ENTRY_ID one layer up (system chair)."""
    target = _layer(to_layer)
    grounds = (stale_fact if target is Layer.L3 else reason) or stale_fact or reason or ""
    entry = app.resolve(IdKind.ENTRY, entry_id)
    p = use.nominate(app.hall, app.actor, app.domain, entry, target, grounds)
    emit(app, {"promotion_id": str(p.id), "path": p.path.value, "progress": p.progress()},
         lambda: f"nominated {entry} {p.from_layer.value} -> {p.to_layer.value}: promotion {p.id}")


@click.command()
@click.argument("promotion_id", type=ID)
@click.option("--session", "session_id", envvar="MEMHALL_SESSION", help="The session reminding.")
@click.option("--note", default="", help="What brought it up again.")
@json_option
@pass_app
def remind(app: App, promotion_id: str, session_id: str | None, note: str) -> None:
    """Record a reminder for PROMOTION_ID, made inside your open session (one counts per session)."""
    p = use.remind(app.hall, app.actor, app.domain, app.resolve(IdKind.PROMOTION, promotion_id),
                   _reminding(app, session_id), note)
    emit(app, {"promotion_id": str(p.id), "progress": p.progress()},
         lambda: f"reminder recorded for promotion {p.id}: {p.progress()}")


def _reminding(app: App, session_id: str | None) -> str | None:
    """The reminding session's whole id; text that names no session is passed on
    as given, for the use case to refuse and record."""
    if not session_id:
        return None
    try:
        return str(app.resolve(IdKind.SESSION, session_id, must_exist=False))
    except (NotFoundError, InvalidValueError):
        return session_id


@click.command()
@click.argument("promotion_id", type=ID)
@click.option("--position", required=True, type=click.Choice(["agree", "disagree", "abstain"]),
              help="Your own position on the nomination.")
@click.option("--reason", required=True, help="Why.")
@json_option
@pass_app
def dissent(app: App, promotion_id: str, position: str, reason: str) -> None:
    """Record your own dissent position on PROMOTION_ID (council members: every chair and
    seat of the domain). Recording again revises it until the decision; the last one counts."""
    p = use.dissent(app.hall, app.actor, app.domain, app.resolve(IdKind.PROMOTION, promotion_id),
                    position, reason)
    emit(app, {"promotion_id": str(p.id), "progress": p.progress(), "missing": p.missing()},
         lambda: f"{app.actor}'s position ({position}) recorded for promotion {p.id}: {p.progress()}")


@click.command()
@click.argument("promotion_id", type=ID)
@json_option
@signing_options
@pass_app
def ratify(app: App, promotion_id: str, key: Path | None, ssh_keygen: bool) -> None:
    """Ratify PROMOTION_ID into its target layer (ratify owner only; signed once the owner has a key)."""
    use_signer(app, key, ssh_keygen)
    p = use.ratify(app.hall, app.actor, app.domain, app.resolve(IdKind.PROMOTION, promotion_id))
    emit(app, {"promotion_id": str(p.id), "entry_id": str(p.entry_id), "layer": p.to_layer.value},
         lambda: f"ratified: entry {p.entry_id} is now [{p.to_layer.value}] "
                 "(distribution to agents is a separate, explicit action)")


@click.command()
@click.argument("promotion_id", type=ID)
@click.option("--reason", required=True)
@json_option
@signing_options
@pass_app
def reject(app: App, promotion_id: str, reason: str, key: Path | None, ssh_keygen: bool) -> None:
    """Reject PROMOTION_ID (ratify owner only; signed once the owner has a key)."""
    use_signer(app, key, ssh_keygen)
    p = use.reject(app.hall, app.actor, app.domain, app.resolve(IdKind.PROMOTION, promotion_id), reason)
    emit(app, {"promotion_id": str(p.id), "status": p.status.value}, lambda: f"rejected promotion {p.id}")


@click.command()
@click.argument("promotion_id", type=ID)
@click.option("--reason", default="")
@json_option
@pass_app
def withdraw(app: App, promotion_id: str, reason: str) -> None:
    """Withdraw your own nomination PROMOTION_ID."""
    p = use.withdraw(app.hall, app.actor, app.domain, app.resolve(IdKind.PROMOTION, promotion_id), reason)
    emit(app, {"promotion_id": str(p.id), "status": p.status.value}, lambda: f"withdrew promotion {p.id}")


@click.command()
@click.argument("entry_id", type=ID)
@click.option("--to", "to_layer", type=layers(Layer.L2, Layer.L3), required=True,
              help="One layer down: L3 (from L4) or L2 (from L3).")
@click.option("--reason", required=True)
@json_option
@signing_options
@pass_app
def demote(app: App, entry_id: str, to_layer: str, reason: str, key: Path | None, ssh_keygen: bool) -> None:
    """Demote ENTRY_ID one layer (governed and audited like promotion; signed once the owner has a key)."""
    use_signer(app, key, ssh_keygen)
    entry = use.demote(app.hall, app.actor, app.domain, app.resolve(IdKind.ENTRY, entry_id),
                       _layer(to_layer), reason)
    emit(app, {"entry_id": str(entry.id), "layer": entry.layer.value},
         lambda: f"demoted {entry.id} to [{entry.layer.value}]")


@click.command("promotions")
@click.option("--all", "all_", is_flag=True, help="Include ratified, rejected and withdrawn ones.")
@json_option
@pass_app
def promotions_(app: App, all_: bool) -> None:
    """List open nominations with their progress."""
    rows = use.promotions(app.hall, app.actor, app.domain, all_=all_)
    listing(app, [{**r.model_dump(mode="json"), "progress": r.progress, "missing": r.missing} for r in rows],
            lambda: "\n".join(f"- [{r.status}] {r.summary}" for r in rows) or "(no open nominations)",
            ("promotion", "status", "entry", "path", "by", "progress"),
            lambda: ((r.id, r.status, r.entry_id, f"{r.from_layer} -> {r.to_layer}", r.nominated_by,
                      r.progress) for r in rows),
            empty="(no open nominations)")


def _layer_listing(view: LayerView) -> str:
    lines = [view.message]
    lines += [f"- [{e.layer}] {e.kind} {e.id} by {e.author}{state_label(e.state, e.confidence)}: {e.text}"
              for e in view.entries]
    return "\n".join(lines)


def _ratified_at(layer: str, name: str, help_text: str) -> click.Command:
    @click.command(name, help=help_text)
    @as_of_option()
    @json_option
    @pass_app
    def listing(app: App, as_of: datetime | int | None) -> None:
        if as_of is None:
            view = use.ratified(app.hall, app.actor, app.domain, layer)
        else:
            from memhall.governance.beliefs import ratified_as_of

            view = ratified_as_of(app.hall, app.actor, app.domain, layer, as_of)
        emit(app, view, lambda: _layer_listing(view))

    return listing


knowledge = _ratified_at("L3", "knowledge", "What is ratified at L3 (never L2 standing in).")
canon = _ratified_at("L4", "canon", "What is ratified at L4 (never a lower layer standing in).")
