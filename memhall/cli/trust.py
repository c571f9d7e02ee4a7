"""`memhall trust`: Trust(observer ← source, topic) with the events behind each number."""

from __future__ import annotations

from datetime import datetime

import click

from memhall.cli.context import App, emit, json_option
from memhall.cli.options import as_of_option
from memhall.governance import trust as trusting

pass_app = click.make_pass_decorator(App, ensure=True)


def _line(view: trusting.TrustView) -> str:
    head = f"{view.observer} <- {view.source} on {view.topic or '(general)'}: {view.value:.2f}"
    causes = [f"\n    @{c.position} {c.at:%Y-%m-%d} {c.change} by {c.by} -> {c.value:.2f}"
              f"{' (' + c.detail + ')' if c.detail else ''}" for c in view.causes]
    return head + "".join(causes)


@click.group(invoke_without_command=True)
@click.option("--observer", help="Whose trust (default: everyone's; the hall's own view is @hall).")
@click.option("--source", help="In whom.")
@click.option("--topic", help="On which topic.")
@as_of_option()
@json_option
@click.pass_context
def trust(ctx: click.Context, observer: str | None, source: str | None, topic: str | None,
          as_of: datetime | int | None) -> None:
    """Source trust per topic, with the evidence behind each number (unknown: 0.50)."""
    if ctx.invoked_subcommand is not None:
        return
    app = ctx.ensure_object(App)
    from memhall.governance.beliefs import cut_of

    views = trusting.rows(app.hall, app.actor, app.domain, observer=observer, source=source,
                          topic=topic.strip().lower() if topic else None,
                          cut=cut_of(app.hall, app.domain, as_of) if as_of is not None else None)
    emit(app, views, lambda: "\n".join(_line(v) for v in views)
         or "(no trust recorded: every source is neutral, 0.50)")


@trust.command("set")
@click.argument("source")
@click.argument("value", type=click.FloatRange(0.0, 1.0))
@click.option("--observer", default=trusting.HALL_VIEW, show_default=True,
              help="Whose trust this is.")
@click.option("--topic", help="On which topic (default: the source's general trust).")
@click.option("--reason", required=True, help="Why (recorded).")
@json_option
@pass_app
def set_(app: App, source: str, value: float, observer: str, topic: str | None,
         reason: str) -> None:
    """Set Trust(observer ← SOURCE, topic) to VALUE (0..1); ratify owners only, recorded."""
    view = trusting.set_trust(app.hall, app.actor, app.domain, source=source, value=value,
                              reason=reason, observer=observer, topic=topic)
    emit(app, view, lambda: _line(view))
