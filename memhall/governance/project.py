"""A project's `.memhall/` folder: found walking up, as git finds `.git/`, and
the defaults it keeps for commands run inside it (`.memhall/config.toml`).

Stdlib only: every command reads this before it knows whether it needs a
database at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from memhall.domains.errors import InvalidValueError

STORE_DIR = ".memhall"
STORE_FILE = "memhall.db"
CONFIG_FILE = "config.toml"
GITIGNORE = """\
# memhall's store: keep it out of git. Commit memhall-policy/ (the rules, reviewed
# in pull requests) and memhall-audit/ (checkpoints of the audit chain) instead.
*
"""
#: keys config.toml may set, and the option each one stands in for
CONFIG_KEYS = {"as": "--as", "domain": "--domain", "wrap_up_chars": "wrap-up --max-chars"}
#: keys whose value is a whole number
NUMBER_KEYS = ("wrap_up_chars",)


def find_project(cwd: Path | None = None) -> Path | None:
    """The nearest folder, from `cwd` up, that holds a `.memhall/` folder."""
    here = (cwd or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / STORE_DIR).is_dir():
            return folder
    return None


class Defaults(NamedTuple):
    """What a project sets once so that an agent's commands stay short; a flag
    or an environment variable always wins over it."""

    actor: str | None = None
    domain: str | None = None
    #: the longest wrap-up summary accepted (default: sessions.SUMMARY_CHARS)
    wrap_up_chars: int | None = None
    source: Path | None = None


def load_defaults(cwd: Path | None = None) -> Defaults:
    """The nearest project's `.memhall/config.toml`, or no defaults."""
    project = find_project(cwd)
    if project is None:
        return Defaults()
    path = project / STORE_DIR / CONFIG_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Defaults()
    import tomllib

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise InvalidValueError(f"{path} is not valid TOML: {error}") from None
    unknown = sorted(set(data) - set(CONFIG_KEYS))
    if unknown:
        raise InvalidValueError(
            f"{path}: unknown key {unknown[0]!r} (known: {', '.join(CONFIG_KEYS)})")
    for key, value in data.items():
        if key in NUMBER_KEYS:
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidValueError(f"{path}: {key} must be a whole number, like {key} = 1000")
        elif not isinstance(value, str):
            raise InvalidValueError(f"{path}: {key} must be a string, like {key} = \"name\"")
    return Defaults(actor=data.get("as"), domain=data.get("domain"),
                    wrap_up_chars=data.get("wrap_up_chars"), source=path)
