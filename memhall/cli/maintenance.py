"""Store upkeep: `memhall init` and `memhall rebuild`."""

from __future__ import annotations

from pathlib import Path

import click

from memhall.cli.context import App, emit, json_option
from memhall.cli.progress import progress_bar
from memhall.domains.errors import InvalidValueError
from memhall.governance.location import locate
from memhall.governance.project import GITIGNORE, STORE_DIR, STORE_FILE
from memhall.governance.rebuild import governed_rebuild
from memhall.governance.settings import in_git_work_tree, remember_checkpoints
from memhall.policies.folder import POLICY_DIR

pass_app = click.make_pass_decorator(App, ensure=True)


@click.command()
@json_option
@pass_app
def rebuild(app: App) -> None:
    """Drop every projection and replay it from the log (a progress bar on a terminal).

    Governed: the policy must let you rebuild every domain (its chairs and
    owner, by default), and each domain's log records who rebuilt it."""
    with progress_bar(not app.json) as progress:
        counts = governed_rebuild(app.hall, app.actor, progress=progress)
    emit(app, counts, lambda: "\n".join(f"{d}: replayed {n} events" for d, n in counts.items()))


@click.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path), default=".")
@json_option
@pass_app
def init(app: App, directory: Path) -> None:
    """Create the store (.memhall/) and a memhall-policy/ to edit and commit.

    With --store the store is made there instead (a SQLite path or a
    PostgreSQL URL); the policy folder is still made in DIRECTORY."""
    from memhall.governance.store import Store
    from memhall.governance.streams import Streams
    from memhall.policies.engine import init_policy_dir

    store_dir, policy = directory / STORE_DIR, directory / POLICY_DIR
    target = app.store_arg or str(store_dir / STORE_FILE)
    url = locate(target, create=True)
    has_store = (store_dir / STORE_FILE).is_file() if app.store_arg is None else False
    if has_store and policy.exists():
        raise InvalidValueError(f"already set up: {store_dir}/ and {policy}/ exist")
    written = [] if policy.exists() else init_policy_dir(policy)
    store_dir.mkdir(parents=True, exist_ok=True)
    ignore = store_dir / ".gitignore"
    if not ignore.exists():
        ignore.write_text(GITIGNORE, encoding="utf-8")
    store = Store(url)
    audit_file = directory / "memhall-audit" / "checkpoints.jsonl"
    # a SQLite store in a git work tree checkpoints at every wrap-up, so the tail
    # nobody could vouch for is at most one session; a shared PostgreSQL store
    # checkpoints when asked (`audit checkpoint --file F --on-wrap-up` turns it on)
    on_wrap_up = store.dialect == "sqlite" and in_git_work_tree(directory)
    try:
        Streams(store).ensure_registry()
        remember_checkpoints(store, audit_file, on_wrap_up=on_wrap_up)
    finally:
        store.dispose()
    steps = next_steps(policy)
    emit(app, {"store": url, "policy": [str(p) for p in written], "next": steps}, lambda: "\n".join([
        f"created the store in {store_dir}/ ({ignore} keeps it out of git)",
        (f"created {policy}/: commit it (and memhall-audit/ once it holds checkpoints); "
         "review its changes in pull requests") if written else f"kept the existing {policy}/",
        "next:",
        *(f"  {n}. {step}" for n, step in enumerate(steps, start=1)),
    ]))


def next_steps(policy: Path) -> list[str]:
    return [
        f"add your domain to {policy}/roles.yaml: name it under `domains:`, give it roles under "
        "`roles:` (a human `ratify_owner`, agents as `session_chair`, `system_chair`, `seat`), "
        f"then check it: memhall policy check {policy}",
        "create it, as its ratify owner: memhall --as <owner> domain create <domain>",
        "start a session: memhall --as <agent> --domain <domain> handoff "
        "(or set `as` and `domain` in .memhall/config.toml)",
    ]
