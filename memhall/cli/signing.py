"""How a human's binding acts get signed on the command line: `--key` and `--ssh-keygen`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memhall.cli.context import App
from memhall.domains.errors import SigningKeyError
from memhall.policies.signing import DEFAULT_KEY, sign, sign_with_ssh_keygen

if TYPE_CHECKING:  # the seal (and the policy engine with it) is not imported to read options
    from memhall.governance.seal import Signer

F = TypeVar("F", bound=Callable[..., Any])


def signing_options(fn: F) -> F:
    """`--key PATH` and `--ssh-keygen`: used only when the acting human has a key in allowed_signers."""
    fn = click.option("--ssh-keygen", "ssh_keygen", is_flag=True,
                      help="Sign through `ssh-keygen -Y sign` (ssh-agent, security keys).")(fn)
    return click.option("--key", "key", type=click.Path(path_type=Path, dir_okay=False), envvar="MEMHALL_KEY",
                        help=f"Private key that signs this act (default {DEFAULT_KEY}; env MEMHALL_KEY).")(fn)


def use_signer(app: App, key: Path | None, ssh_keygen: bool) -> None:
    """Arm the hall to sign this command's act, if the policy asks the actor for a signature."""
    seal = app.hall.seal
    if seal is not None:
        seal.signer = signer(key, ssh_keygen)


def signer(key: Path | None, ssh_keygen: bool) -> Signer:
    path = (key or DEFAULT_KEY).expanduser()

    def sign_act(message: bytes) -> str:
        if ssh_keygen:
            return sign_with_ssh_keygen(message, path)
        try:
            return sign(message, path)
        except SigningKeyError as error:
            if not error.needs_passphrase:
                raise
            phrase = click.prompt(f"Passphrase for {path}", hide_input=True, err=True)
            return sign(message, path, passphrase=phrase.encode())

    return sign_act
