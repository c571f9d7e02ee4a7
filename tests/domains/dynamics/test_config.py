"""The dynamics' numbers: the seed's defaults, and dynamics.yaml in the policy folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from memhall.domains.dynamics.config import DynamicsConfig
from memhall.domains.errors import PolicyConfigError
from memhall.policies.dynamics_file import load_dynamics
from memhall.policies.engine import init_policy_dir


def write(folder: Path, text: str) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "dynamics.yaml").write_text(text, encoding="utf-8")
    return folder


def test_the_defaults_are_the_seeds_numbers() -> None:
    config = DynamicsConfig()

    assert config.tiers.working == 10
    assert (config.tiers.preconscious_min, config.tiers.preconscious_max) == (50, 100)
    assert config.wandering.steps == 20
    assert config.wandering.insight_weight == 0.1
    assert config.reconsolidation.update_strength == 0.05


def test_the_shipped_dynamics_yaml_says_exactly_the_defaults() -> None:
    assert load_dynamics(None) == DynamicsConfig()


def test_a_policy_folder_without_dynamics_yaml_runs_on_the_defaults(tmp_path: Path) -> None:
    assert load_dynamics(tmp_path) == DynamicsConfig()
    assert load_dynamics(write(tmp_path / "empty", "# nothing yet\n")) == DynamicsConfig()


def test_a_new_policy_folder_gets_a_dynamics_yaml_to_edit(tmp_path: Path) -> None:
    init_policy_dir(tmp_path / "memhall-policy")

    assert (tmp_path / "memhall-policy" / "dynamics.yaml").is_file()
    assert load_dynamics(tmp_path / "memhall-policy") == DynamicsConfig()


def test_a_missing_policy_folder_is_an_error_not_the_defaults(tmp_path: Path) -> None:
    with pytest.raises(PolicyConfigError, match="no such policy directory"):
        load_dynamics(tmp_path / "nowhere")


def test_one_key_departs_from_the_defaults_and_the_rest_stay(tmp_path: Path) -> None:
    config = load_dynamics(write(tmp_path, "wandering:\n  steps: 40\n"))

    assert config.wandering.steps == 40
    assert config.wandering.exploration_rate == DynamicsConfig().wandering.exploration_rate
    assert config.forgetting == DynamicsConfig().forgetting


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("wandering:\n  steps: 20\n  stepz: 3\n", "dynamics.yaml:3: unknown key 'stepz' in wandering"),
        ("mood:\n  window: 5\nsleep:\n  at: 3\n", "dynamics.yaml:3: unknown key 'sleep' in top level"),
        ("reconsolidation:\n  update_strength: 0.2\n",
         "dynamics.yaml:2: reconsolidation.update_strength: Input should be less than or equal to 0.05"),
        ("tiers:\n  working: 60\n", "dynamics.yaml:1: tiers: Value error, tiers must satisfy"),
        ("forgetting: [1, 2\n", "invalid YAML"),
        ("- 1\n- 2\n", "dynamics.yaml:1: dynamics.yaml must be a mapping of sections"),
    ],
)
def test_a_broken_dynamics_yaml_names_its_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(PolicyConfigError) as raised:
        load_dynamics(write(tmp_path, text))

    assert message in str(raised.value)
    assert "\n" not in str(raised.value)
