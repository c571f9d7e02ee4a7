"""`memhall domain`: create and list domains (each its own stream)."""

from __future__ import annotations

import click

from memhall.cli.context import App, emit, json_option

pass_app = click.make_pass_decorator(App, ensure=True)


@click.group()
def domain() -> None:
    """Domains: isolated namespaces, each with its own stream and layers."""


@domain.command()
@click.argument("name")
@json_option
@pass_app
def create(app: App, name: str) -> None:
    """Create the domain NAME (and the store, if there is none yet)."""
    app.creating = True
    created = app.hall.create_domain(app.actor, name)
    emit(app, {"domain": created}, lambda: f"created domain {created}")


@domain.command("list")
@json_option
@pass_app
def list_(app: App) -> None:
    """List the domains of this store."""
    names = app.hall.domain_names()
    emit(app, names, lambda: "\n".join(names) or "(no domains yet: memhall domain create NAME)")
