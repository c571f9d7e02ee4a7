"""`memhall keys`: a signing key for a human, and the allowed signers of the policy folder."""

from __future__ import annotations

import re
from pathlib import Path

import click

from memhall.cli.context import App, emit, json_option, note
from memhall.domains.errors import InvalidValueError
from memhall.policies.files import ALLOWED_SIGNERS_FILE, read_policy_dir
from memhall.policies.folder import POLICY_DIR
from memhall.policies.signers import AllowedSigners, SignerKey
from memhall.policies.signing import DEFAULT_KEY, NAMESPACE
from memhall.policies.sshkeys import create_key_file

pass_app = click.make_pass_decorator(App, ensure=True)
#: a principal as allowed_signers can name it: no blanks, quotes, commas or pattern characters
_PRINCIPAL = re.compile(r"[^\s\",*?!]+")


@click.group()
def keys() -> None:
    """SSH keys that sign a human's binding acts (ratify, reject, demote, policy adopt, chair handover)."""


@keys.command()
@click.option("--file", "key_file", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help=f"Where to write the private key (default {DEFAULT_KEY}, only if it does not exist).")
@click.option("--principal", metavar="NAME", help="Whom the key signs for (default: --as / MEMHALL_AGENT).")
@click.option("--no-passphrase", is_flag=True,
              help="Do not ask for a passphrase: whoever can read the key file can then sign.")
@json_option
@pass_app
def init(app: App, key_file: Path | None, principal: str | None, no_passphrase: bool) -> None:
    """Create an Ed25519 key and print the allowed_signers line that registers it.

    Never overwrites a key. Add the printed line to memhall-policy/allowed_signers
    through a reviewed change; once the policy is adopted, this principal's
    binding acts must carry a signature made with the key.
    """
    name = principal or app.actor_arg
    if not name:
        raise click.UsageError("whose key is it? pass --principal NAME (or --as NAME)")
    if not _PRINCIPAL.fullmatch(name):
        raise InvalidValueError(f"{name!r} cannot be named in allowed_signers (no blanks, quotes, commas, *?!)")
    path = key_file if key_file is not None else DEFAULT_KEY.expanduser()
    if key_file is None and path.exists():
        raise InvalidValueError(f"{path} already exists and memhall never overwrites a key: pass --file PATH "
                                f"for a new one, or register the existing one from {path}.pub")
    passphrase = "" if no_passphrase else click.prompt(
        "Passphrase for the new key (empty for none)", default="", hide_input=True,
        confirmation_prompt=True, show_default=False, err=True,
    )
    public = create_key_file(path, comment=f"memhall:{name}", passphrase=passphrase.encode() or None)
    line = f'{name} namespaces="{NAMESPACE}" {public.openssh}'
    target = f"{app.policy_arg or POLICY_DIR}/{ALLOWED_SIGNERS_FILE}"
    note(f"created {path} and {path}.pub ({public.fingerprint}); add this line to {target}, "
         "have the change reviewed, then adopt the policy:")
    emit(app, {"key_file": str(path), "public_key_file": f"{path}.pub", "principal": name,
               "fingerprint": public.fingerprint, "allowed_signers_line": line,
               "allowed_signers_file": target}, lambda: line)


@keys.command("list")
@json_option
@pass_app
def list_(app: App) -> None:
    """Show the allowed signers of the policy folder: whose acts need a signature, and by which keys."""
    directory = app.policy_dir()
    signers = AllowedSigners.of(read_policy_dir(directory))
    if not signers.keys:
        where = f"{directory}/{ALLOWED_SIGNERS_FILE}" if directory else "the built-in default policy"
        note(f"no allowed signers in {where}: no one's acts need a signature yet "
             "(`memhall keys init` makes a key and prints the line to add)")
        if not app.json:
            return
    emit(app, [_json(key) for key in signers.keys], lambda: "\n".join(_line(key) for key in signers.keys))


def _json(key: SignerKey) -> dict[str, str | None]:
    return {
        "principals": key.principals, "key_type": key.key.key_type, "fingerprint": key.fingerprint,
        "namespaces": key.namespaces, "comment": key.comment or None, "where": key.where,
        "valid_after": key.valid_after.isoformat() if key.valid_after else None,
        "valid_before": key.valid_before.isoformat() if key.valid_before else None,
    }


def _line(key: SignerKey) -> str:
    limits = [f"namespaces {key.namespaces}"] if key.namespaces else []
    limits += [f"from {key.valid_after:%Y-%m-%d %H:%M}Z"] if key.valid_after else []
    limits += [f"until {key.valid_before:%Y-%m-%d %H:%M}Z"] if key.valid_before else []
    comment = f" {key.comment}" if key.comment else ""
    extra = f" ({', '.join(limits)})" if limits else ""
    return f"{key.principals}  {key.key.key_type} {key.fingerprint}{extra}{comment}  [{key.where}]"
