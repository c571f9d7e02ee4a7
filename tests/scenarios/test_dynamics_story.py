"""The memory dynamics as a person meets them: real `memhall` processes, the days moved by freezegun.

The scene is written in-process; each command the story is about runs as its
own process, under a frozen clock where the day matters (the runner below
freezes time before the CLI starts), so the days pass as the log records them.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime, timedelta
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time

from memhall.domains.entry import draft
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.policies.engine import PolicySet
from tests.processes import run_memhall

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class Story:
    """A store arranged in-process (the writes that set the scene); every command the story
    is about runs as a real `memhall` process."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.store = folder / "memhall.db"
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "MEMHALL_DOMAIN": "company",
                    "MEMHALL_STORE": str(self.store), "HOME": str(folder)}
        for key in ("MEMHALL_AGENT", "MEMHALL_SESSION", "MEMHALL_POLICY"):
            self.env.pop(key, None)
        self.hall = Hall(Store(f"sqlite:///{self.store}"), PolicySet.load(None))
        self.hall.create_domain("maki", "company")

    def write(self, text: str, *, day: float = 0, **fields: Any) -> str:
        with freeze_time(T0 + timedelta(days=day)):
            return self.hall.write("codex", "company", draft(layer="L2", text=text, **fields)).entry_id

    def run(self, actor: str, *args: str, day: float | None = None, ok: bool = True) -> subprocess.CompletedProcess[str]:
        """`memhall --as ACTOR ARGS`, under a clock frozen at `day` when one is given."""
        clock = None if day is None else (T0 + timedelta(days=day)).isoformat()
        done = run_memhall(["--as", actor, *args], cwd=self.folder, env=self.env, clock=clock, timeout=300)
        if ok:
            assert done.returncode == 0, done.stderr
        return done

    def json(self, actor: str, *args: str, day: float | None = None) -> Any:
        return json.loads(self.run(actor, *args, "--json", day=day).stdout)


@pytest.fixture
def story(tmp_path: Path) -> Iterator[Story]:
    told = Story(tmp_path)
    yield told
    told.hall.store.dispose()


def test_a_memory_handed_out_daily_outlives_one_never_used(story: Story) -> None:
    billing = story.write("Billing runs on Fridays.", tags={"topics": ("billing",)}, addressees=("gemini",))
    cat = story.write("The office cat is grey.", tags={"topics": ("cats",)}, addressees=("gemini",))
    for day in range(1, 5):
        story.run("claude", "materialize", "--seat", "gemini", "--task", "when does billing run", day=day)

    held = story.json("gemini", "strength", billing, cat, "--as-of", (T0 + timedelta(days=30)).isoformat())

    assert [(v["reviews"], v["faded"]) for v in held] == [(4, False), (0, True)]
    assert held[0]["strength"] > 0.2 > held[1]["strength"]
    assert story.json("codex", "show", cat)["entry"]["status"] == "active"  # faded, never deleted


def test_five_episodes_about_one_person_become_one_cited_l1_note_that_is_not_l2(story: Story) -> None:
    texts = ["Xiaomei said she is on a diet.", "Xiaomei declined the afternoon tea.",
             "Xiaomei brought a salad for lunch.", "Xiaomei went to the doctor.",
             "Xiaomei has not felt well lately."]
    sources = [story.write(text, day=day, tags={"people": ("xiaomei",)}) for day, text in enumerate(texts)]
    as_of = (T0 + timedelta(days=6)).isoformat()

    done = story.json("codex", "consolidate", "--domain", "company", "--as-of", as_of)
    again = story.json("codex", "consolidate", "--domain", "company", "--as-of", as_of)

    [note] = done["notes"]
    assert sorted(note["source_ids"]) == sorted(sources) and again["notes"] == []
    refused = story.run("codex", "promote", note["entry_id"], "--useful", "yes", "--not-temporary", "no",
                        "--safe", "yes", "--evidence", sources[0], ok=False)
    assert refused.returncode == 3
    shown = story.json("codex", "show", note["entry_id"])["entry"]
    assert shown["layer"] == "L1" and sorted(shown["evidence_refs"]) == sorted(sources)


def test_the_same_seed_wanders_the_same_way_and_a_second_run_writes_nothing(story: Story) -> None:
    for people, topics in ((("ana", "bo"), ()), (("bo", "cy"), ()), ((), ("tea", "cake")),
                           ((), ("cake", "oven"))):
        story.write(f"a quiet note about {' and '.join(people + topics)}",
                    tags={"people": people, "topics": topics})

    first = story.json("codex", "wander", "--seed", "7", "--steps", "40")
    second = story.json("codex", "wander", "--seed", "7", "--steps", "40")

    assert first["insights"] and all(i["new"] for i in first["insights"])
    assert second["path"] == first["path"] and second["insights"] == []
    shown = story.json("codex", "show", first["insights"][0]["entry_id"])["entry"]
    assert shown["layer"] == "L1" and shown["confidence"] == 10


def test_a_contradiction_incubates_until_it_is_corrected(story: Story) -> None:
    claim = story.write("The build cache lives on the NAS.", kind="claim")
    story.run("codex", "evidence", claim, "--contradicts", "--ref", "ls /mnt/nas: no cache")

    doubted = story.json("codex", "handoff")["incubation"]
    story.run("codex", "evidence", claim, "--contradicts", "--ref", "ci.yaml: cache on the runner",
              "--text", "The build cache lives on the CI runner.")
    settled = story.json("codex", "handoff")["incubation"]

    assert [(i["reason"], i["ids"]) for i in doubted] == [("doubtful", [claim])]
    assert story.json("codex", "show", claim)["entry"]["state"] == "corrected"
    assert settled == []
