"""Store upkeep: `memhall init` and `memhall rebuild`."""

from __future__ import annotations

from pathlib import Path

import click

from memhall.cli.context import App, emit, json_option
from memhall.governance.rebuild import rebuild as rebuild_projections
from memhall.governance.store import STORE_DIR
from memhall.policies.files import POLICY_DIR

pass_app = click.make_pass_decorator(App, ensure=True)


@click.command()
@json_option
@pass_app
def rebuild(app: App) -> None:
    """Drop every projection and replay it from the log."""
    counts = rebuild_projections(app.hall)
    emit(app, counts, lambda: "\n".join(f"{d}: replayed {n} events" for d, n in counts.items()))


@click.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path), default=".")
@json_option
@pass_app
def init(app: App, directory: Path) -> None:
    """Create .memhall/ and a memhall-policy/ to edit and commit."""
    from memhall.policies.engine import init_policy_dir

    store_dir = directory / STORE_DIR
    store_dir.mkdir(parents=True, exist_ok=True)
    written = init_policy_dir(directory / POLICY_DIR)
    emit(app, {"store": str(store_dir), "policy": [str(p) for p in written]}, lambda: "\n".join([
        f"created {store_dir}/ (the store; keep it out of git)",
        f"created {directory / POLICY_DIR}/ (commit it; review changes in pull requests)",
        "next:",
        f"  1. edit {directory / POLICY_DIR}/roles.yaml: who holds which role in which domain",
        f"  2. memhall policy check {directory / POLICY_DIR}",
        "  3. memhall --as <ratify owner> domain create <domain>",
        "  4. memhall --as <agent> --domain <domain> handoff",
    ]))
