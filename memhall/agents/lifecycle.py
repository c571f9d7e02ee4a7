"""What each hook does in the hall: brief at start, draft as turns end, wrap up at the end.

- session-start opens (or finds open) the memhall session keyed by the agent's
  session id and returns the budgeted handoff.
- stop (a turn ended: Claude `Stop`, Codex `Stop`, Gemini `AfterAgent`) and
  pre-compact rewrite the session's one draft wrap-up; they never close anything.
- session-end records the wrap-up and closes the session. Its summary is, in
  order: a wrap-up file the agent wrote during this session (what the agent
  chose to hand over), else the transcript's last reply (always there, and the
  freshest account), else the reply the hook carries, else the draft. A session
  that left none of them is closed with no wrap-up: a line saying it left
  nothing would supersede the thread's last wrap-up and be handed over as
  where work was left.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from memhall.agents import briefing, transcript
from memhall.agents.payload import HookInput
from memhall.domains.entry import draft
from memhall.domains.values import Kind, Layer, scrubbed
from memhall.governance import agent_sessions, promotions, sessions
from memhall.governance.agent_sessions import KeyedSession
from memhall.governance.hall import Hall
from memhall.governance.keyed import session_key

#: a wrap-up stays short; a longer summary is stored whole and pointed to
SUMMARY_CHARS = sessions.SUMMARY_CHARS
WRAP_UP_DIR = ".memhall"


@dataclass(frozen=True)
class HookRun:
    hall: Hall
    actor: str
    domain: str
    #: --summary-file: where the agent leaves its wrap-up (default: .memhall/wrap-up[.AGENT].md)
    summary_file: Path | None = None


def run(job: HookRun, hook: HookInput) -> str | None:
    """Do what the hook's event asks; return what goes on stdout, if anything."""
    key = session_key(hook.agent, hook.session_id, job.domain, job.actor)
    if hook.event == "session-start":
        return start(job, key)
    if hook.event == "stop":
        reply = hook.last_message or transcript.last_assistant_message(hook.transcript)
        _draft(job, key, reply)
    elif hook.event == "pre-compact":
        # The context is about to be condensed: keep the newest reply as the
        # draft, and the start that follows the compaction briefs again.
        _draft(job, key, transcript.last_assistant_message(hook.transcript))
    elif hook.event == "session-end":
        end(job, hook, key)
    return None


def start(job: HookRun, key: str) -> str:
    keyed = agent_sessions.open_keyed(job.hall, job.actor, job.domain, key)
    view = sessions.handoff(job.hall, job.actor, job.domain, open_session=False)
    canon = promotions.ratified(job.hall, job.actor, job.domain, "L4").entries
    knowledge = promotions.ratified(job.hall, job.actor, job.domain, "L3").entries
    return briefing.budgeted(view, canon, knowledge, actor=job.actor, session_id=keyed.id)


def unopened(job: HookRun, why: str) -> str:
    """session-start when no session could be opened (the store was busy): the same handoff,
    read only, saying so."""
    view = sessions.handoff(job.hall, job.actor, job.domain, open_session=False)
    canon = promotions.ratified(job.hall, job.actor, job.domain, "L4").entries
    knowledge = promotions.ratified(job.hall, job.actor, job.domain, "L3").entries
    return briefing.budgeted(view, canon, knowledge, actor=job.actor, session_id=None, unopened=why)


def _draft(job: HookRun, key: str, reply: str | None) -> None:
    if reply:
        agent_sessions.save_draft(job.hall, job.actor, job.domain, key, clip(scrubbed(reply), SUMMARY_CHARS))


def end(job: HookRun, hook: HookInput, key: str) -> agent_sessions.Closing:
    stream, keyed = agent_sessions.find_keyed(job.hall, job.actor, job.domain, key)
    with job.hall.store.read() as conn:
        active, _ = agent_sessions.current_draft(conn, stream, keyed.id)
    text = (summary_from_file(job, hook, keyed)
            or transcript.last_assistant_message(hook.transcript)
            or hook.last_message
            or (agent_sessions.draft_body(active.text) if active else None))
    if not (text and text.strip()):
        return agent_sessions.close_keyed(job.hall, job.actor, job.domain, key, None)
    summary, pointers = _fitted(job, keyed, scrubbed(text))
    return agent_sessions.close_keyed(job.hall, job.actor, job.domain, key, summary, pointers)


def summary_files(job: HookRun, hook: HookInput) -> list[Path]:
    if job.summary_file is not None:
        return [job.summary_file if job.summary_file.is_absolute() or hook.cwd is None
                else hook.cwd / job.summary_file]
    base = (hook.cwd or Path.cwd()) / WRAP_UP_DIR
    return [base / f"wrap-up.{hook.agent}.md", base / "wrap-up.md"]


def summary_from_file(job: HookRun, hook: HookInput, keyed: KeyedSession) -> str | None:
    """A wrap-up file written during this session (an older one belongs to another)."""
    for path in summary_files(job, hook):
        if path.is_file():
            written = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
            text = path.read_text(encoding="utf-8", errors="replace").strip()
            if text and written >= keyed.opened_at.replace(microsecond=0):
                return text
    return None


def _fitted(job: HookRun, keyed: KeyedSession, text: str) -> tuple[str, tuple[str, ...]]:
    """A short summary; longer text is kept whole in an L2 episode it points to."""
    text = text.strip()
    if len(text) <= SUMMARY_CHARS:
        return text, ()
    whole = draft(layer=Layer.L2.value, kind=Kind.EPISODE.value, text=text, session_id=keyed.id,
                  idempotency_key=f"hook-wrap-up-text:{keyed.id}")
    kept = job.hall.write(job.actor, job.domain, whole)
    note = f" … (whole text: {kept.entry_id})"
    return clip(text, SUMMARY_CHARS - len(note)) + note, (kept.entry_id,)


def clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
