"""Recall as real processes: two agents recall the same event differently, each from what it
holds; a seat cannot search or show what it never held; opinions and relationships show in
`about`; and `audit verify` recomputes the new read models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.conftest import run_cli


def test_two_agents_recall_the_same_event_differently(store_url: str, tmp_path: Path) -> None:
    def memhall(actor: str, *args: str, ok: bool = True) -> Any:
        done = run_cli(["--store", store_url, "--domain", "company", "--as", actor, "--json", *args],
                       cwd=tmp_path)
        if not ok:
            return done
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    run_cli(["--store", store_url, "--as", "maki", "domain", "create", "company"], cwd=tmp_path)
    told = memhall("maki", "write", "--layer", "L2", "the router cutover failed twice before it worked",
                   "--topic", "router", "--to", "gemini")["entry_id"]
    own = memhall("codex", "write", "--layer", "L2", "the router cutover went smoothly on friday",
                  "--topic", "router")["entry_id"]

    gemini = memhall("gemini", "recall", "how did the router cutover go?")
    codex = memhall("codex", "recall", "how did the router cutover go?", "--explain")
    attributed = memhall("gemini", "recall", "did codex say the router cutover went smoothly?")
    searched = memhall("gemini", "search", "router cutover smoothly")
    hidden = memhall("gemini", "show", own, ok=False)
    log = memhall("gemini", "log")
    memhall("gemini", "opinion", "codex", "--category", "candour", "--statement", "reports failures late",
            "--stance", "negative", "--evidence", told[:8])
    memhall("gemini", "relate", "codex", "router", "--kind", "operates", "--visibility", "private",
            "--evidence", told)
    about = memhall("gemini", "about", "codex")
    verified = run_cli(["--store", store_url, "--as", "maki", "audit", "verify"], cwd=tmp_path)

    assert [i["id"] for i in gemini["items"]] == [told]
    assert {i["id"] for i in codex["items"]} == {told, own}
    assert all("lexical_match" in e["channels"] for e in codex["explain"])
    assert attributed["abstained"] and attributed["answer"] == "no memory of codex saying that"
    assert [r["id"] for r in searched["results"]] == [told]
    assert hidden.returncode == 3 and "seats-see-what-they-hold" in hidden.stderr
    assert own not in {e["stream_id"] for e in log}
    assert [(o["category"], o["stance"]) for o in about["portrait"]] == [("candour", "negative")]
    assert [(r["kind"], r["visibility"]) for r in about["relationships"]] == [("operates", "private")]
    assert set(about["evidence"]) == {told}
    assert verified.returncode == 0, verified.stdout + verified.stderr
