"""The last reply, read from each agent's own transcript format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memhall.agents import transcript
from tests.agents.conftest import FIXTURES


@pytest.mark.parametrize("agent, reply", [
    ("claude", "Invoice totals now round half-even at the end; reminders are still open."),
    ("codex", "The ledger table is migrated; the backfill job is next."),
    ("gemini", "Release notes are in NOTES.md; the changelog link still has to be added."),
])
def test_the_last_reply_is_found_in_each_agents_transcript(agent: str, reply: str) -> None:
    assert transcript.last_assistant_message(FIXTURES / agent / "transcript.jsonl") == reply


def test_a_legacy_gemini_json_document_is_read_too(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_text(json.dumps({"sessionId": "s", "messages": [
        {"type": "user", "content": "hi"}, {"type": "gemini", "content": [{"text": "Hello"}, {"text": "there"}]},
        {"type": "info", "content": "saved"}]}))

    assert transcript.last_assistant_message(path) == "Hello\nthere"


def test_only_the_tail_of_a_huge_transcript_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.jsonl"
    old = {"type": "assistant", "message": {"content": [{"type": "text", "text": "old"}]}}
    new = {"type": "assistant", "message": {"content": [{"type": "text", "text": "new"}]}}
    path.write_text((json.dumps(old) + "\n") * 200 + json.dumps(new) + "\n")
    monkeypatch.setattr(transcript, "TAIL_BYTES", 500)

    assert transcript.last_assistant_message(path) == "new"


def test_no_transcript_is_no_reply(tmp_path: Path) -> None:
    assert transcript.last_assistant_message(None) is None
    assert transcript.last_assistant_message(tmp_path / "absent.jsonl") is None
