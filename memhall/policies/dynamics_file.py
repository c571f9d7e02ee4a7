"""The policy folder's dynamics.yaml: the numbers of the memory dynamics, with file:line errors."""

from __future__ import annotations

from importlib.resources.abc import Traversable
from pathlib import Path

from memhall.domains.dynamics.config import DynamicsConfig
from memhall.domains.errors import PolicyConfigError
from memhall.policies.files import SourceFile, packaged_defaults
from memhall.policies.yamlfile import config_error, load_yaml, validated

DYNAMICS_FILE = "dynamics.yaml"


def load_dynamics(directory: Path | Traversable | None) -> DynamicsConfig:
    """The dynamics of a policy directory; None reads the shipped defaults.

    A directory without dynamics.yaml, or with an empty one, runs on the
    defaults: the file only says where a domain departs from them.
    """
    root = packaged_defaults() if directory is None else directory
    if not root.is_dir():
        raise PolicyConfigError(f"{root}: no such policy directory")
    entry = root.joinpath(DYNAMICS_FILE)
    if not entry.is_file():
        return DynamicsConfig()
    try:
        file = SourceFile(name=str(entry), text=entry.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyConfigError(f"{entry}: cannot read: {exc}") from None
    return parse_dynamics(file)


def parse_dynamics(file: SourceFile) -> DynamicsConfig:
    data, lines = load_yaml(file)
    if data is None:
        return DynamicsConfig()
    if not isinstance(data, dict):
        raise config_error(file, lines, (), "dynamics.yaml must be a mapping of sections")
    return validated(DynamicsConfig, file, data, lines)
