"""The last thing the agent said, read from its session transcript.

Three shapes are recognised, one per agent: Claude Code's JSONL (`{"type":
"assistant", "message": {"content": [{"type": "text", "text": …}]}}`), Codex's
rollout JSONL (`{"type": "response_item", "payload": {"type": "message",
"role": "assistant", "content": [{"type": "output_text", …}]}}` and
`event_msg` / `agent_message`), and Gemini CLI's conversation record (JSONL
records, or a legacy JSON document with `messages`, whose replies have
`"type": "gemini"`). Transcripts grow large, so only their tail is read.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

TAIL_BYTES = 4 * 1024 * 1024


def last_assistant_message(path: Path | None) -> str | None:
    """The newest non-empty reply in the transcript, or None (no file, nothing found)."""
    if path is None or not path.is_file():
        return None
    found: str | None = None
    for record in _records(path):
        text = _reply(record)
        if text:
            found = text
    return found


def _records(path: Path) -> Iterator[Any]:
    size = path.stat().st_size
    with path.open("rb") as handle:
        if size > TAIL_BYTES:
            handle.seek(size - TAIL_BYTES)
            handle.readline()  # a partial line
        raw = handle.read().decode("utf-8", errors="replace")
    if size <= TAIL_BYTES and raw.lstrip().startswith("{"):
        try:
            document = json.loads(raw)
        except ValueError:
            pass  # JSONL: one object a line
        else:
            yield from _flatten(document)
            return
    for line in raw.splitlines():
        if line.strip():
            try:
                yield from _flatten(json.loads(line))
            except ValueError:
                continue


def _flatten(record: Any) -> Iterator[Any]:
    """A record, or the messages a Gemini document or checkpoint holds."""
    if isinstance(record, dict):
        update = record.get("$set")
        holder: dict[str, Any] = update if isinstance(update, dict) else record
        messages = holder.get("messages")
        if isinstance(messages, list) and "type" not in record:
            yield from messages
            return
    yield record


def _reply(record: Any) -> str | None:
    if not isinstance(record, dict):
        return None
    kind = record.get("type")
    if kind == "assistant" and isinstance(record.get("message"), dict):  # Claude Code
        return _text(record["message"].get("content"))
    if kind == "gemini":  # Gemini CLI
        return _text(record.get("content"))
    payload = record.get("payload")
    if isinstance(payload, dict):  # Codex
        if payload.get("type") == "message" and payload.get("role") == "assistant":
            return _text(payload.get("content"))
        if payload.get("type") == "agent_message":
            return _text(payload.get("message"))
    return None


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content.strip() or None
    if isinstance(content, list):
        parts = _parts(content)
        text = "\n".join(p for p in parts if p).strip()
        return text or None
    return None


def _parts(content: Iterable[Any]) -> Iterator[str]:
    for part in content:
        if isinstance(part, str):
            yield part
        elif isinstance(part, dict) and part.get("type", "text") in ("text", "output_text"):
            text = part.get("text")
            if isinstance(text, str):
                yield text
