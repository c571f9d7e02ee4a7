"""`memhall chair`: the ratify owner hands the system chair to its backup, and takes it back."""

from __future__ import annotations

from pathlib import Path

import click

from memhall.cli.context import App, emit, json_option
from memhall.cli.signing import signing_options, use_signer
from memhall.governance.charters import hand_over

pass_app = click.make_pass_decorator(App, ensure=True)


@click.group()
def chair() -> None:
    """Who holds the system chair: the backup named in roles.yaml acts only after a handover."""


@chair.command()
@click.option("--to", "to", metavar="PRINCIPAL", help="The backup system chair (roles.yaml) who takes over.")
@click.option("--back", is_flag=True, help="End the handover: the backup stops acting as system chair.")
@signing_options
@json_option
@pass_app
def handover(app: App, to: str | None, back: bool, key: Path | None, ssh_keygen: bool) -> None:
    """Hand the system chair to its backup (--to NAME), or end the handover (--back).

    Recorded in the domain's log, by its ratify owner only, and signed once the
    owner has a key in allowed_signers."""
    if bool(to) == back:
        raise click.UsageError("give exactly one of --to PRINCIPAL or --back")
    use_signer(app, key, ssh_keygen)
    done = hand_over(app.hall, app.actor, app.domain, None if back else to)
    emit(app, {"domain": done.domain, "to": done.to, "previous": done.previous},
         lambda: (f"the system chair of {done.domain} is handed over to {done.to}" if done.to
                  else f"the system chair of {done.domain} is handed back (was {done.previous})"))
