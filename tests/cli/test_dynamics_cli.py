"""The dynamics commands at their edges: times out of range, unknown entities, other observers."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import Result

from memhall.policies.engine import PolicySet
from tests.cli.world import World, build_world, invoke


@pytest.fixture
def world(tmp_path: Path, policies: PolicySet) -> World:
    return build_world(f"sqlite:///{tmp_path / 'memhall.db'}", policies)


def run(policies: PolicySet, world: World, *args: str) -> Result:
    return invoke(policies, ["--store", world.url, "--domain", "company", *args])


@pytest.mark.parametrize("moment", ["0001-01-01", "yesterday", "2026-13-01"])
def test_a_time_that_is_no_date_is_a_usage_error(policies: PolicySet, world: World, moment: str) -> None:
    done = run(policies, world, "--as", "codex", "consolidate", "--as-of", moment)

    assert done.exit_code == 2


def test_an_unknown_entity_is_not_found(policies: PolicySet, world: World) -> None:
    done = run(policies, world, "--as", "codex", "graph", "--entity", "nobody")

    assert done.exit_code == 1 and "no entity nobody" in done.output


def test_the_graph_draws_in_mermaid_with_the_entity_s_neighbours(policies: PolicySet, world: World) -> None:
    run(policies, world, "--as", "codex", "write", "--layer", "L2", "--person", "bob", "--topic", "tennis",
        "Bob won the tennis match")

    done = run(policies, world, "--as", "codex", "graph", "--entity", "bob", "--format", "mermaid")

    assert done.exit_code == 0 and done.output.startswith("graph LR")
    assert '"tennis (topic)"' in done.output


def test_a_seat_asking_after_another_s_memory_is_refused(policies: PolicySet, world: World) -> None:
    done = run(policies, world, "--as", "gemini", "strength", world.claim, "--for", "codex")

    assert done.exit_code == 3


def test_strength_shows_reviews_and_never_hides_a_faded_memory(policies: PolicySet, world: World) -> None:
    done = run(policies, world, "--as", "codex", "strength", world.claim, "--as-of", "2099-01-01", "--json")

    assert done.exit_code == 0
    assert '"faded": true' in done.output and '"held": true' in done.output
