"""`memhall tour`: a short guided scenario on a scratch SQLite store."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import UUID

import click

from memhall.cli import render
from memhall.cli.context import App, emit, json_option
from memhall.cli.signing import signer
from memhall.domains.entry import draft
from memhall.domains.errors import MemhallError
from memhall.domains.values import Layer
from memhall.domains.belief import EvidenceKind
from memhall.domains.belief.drawing import as_text
from memhall.governance import beliefs, evidence, history, promotions, sessions
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.ledgers import markdown
from memhall.policies.sshkeys import create_key_file
from memhall.ledgers.materialize import materialize

TOUR_ROLES = """\
# The tour's own roles: one human owner, three agents, one domain.
domains: [company]
principals:
  maki: human
  claude: agent
  codex: agent
  gemini: agent
roles:
  company:
    ratify_owner: [maki]
    system_chair: [claude]
    session_chair: [codex]
    seat: [gemini]
"""


#: with --json the narration goes to stderr and stdout holds only the summary
_narration = {"err": False}
_summary: dict[str, list[str]] = {"steps": [], "refusals": []}


def _say(text: str) -> None:
    click.echo(text, err=_narration["err"])


def _step(title: str) -> None:
    _summary["steps"].append(title)
    _say(f"\n== {title}")


def _run(what: str, fn: Callable[[], Any]) -> Any:
    _say(f"$ {what}")
    return fn()


def _refused(what: str, fn: Callable[[], Any]) -> None:
    _say(f"$ {what}")
    try:
        fn()
    except MemhallError as error:
        _summary["refusals"].append(str(error))
        _say(f"error: {error}   (exit {error.exit_code}; recorded as a refusal event)")
    else:  # pragma: no cover - the tour's point is that this is refused
        raise click.ClickException(f"the tour expected a refusal: {what}")


def _hall(workdir: Path) -> Hall:
    from memhall.policies.engine import PolicySet, init_policy_dir

    policy = workdir / "memhall-policy"
    init_policy_dir(policy)
    (policy / "roles.yaml").write_text(TOUR_ROLES)
    _say(f"scratch store: {workdir / 'memhall.db'}\npolicy:        {policy}/ (roles.yaml below)")
    _say("".join(f"  {line}\n" for line in TOUR_ROLES.splitlines()[1:]).rstrip())
    # The owner signs: a key of its own in the scratch folder, registered in allowed_signers,
    # so the tour's ratification carries an SSH signature that `audit verify` checks.
    key = workdir / "maki_ed25519"
    public = create_key_file(key, comment="memhall:maki (tour)")
    (policy / "allowed_signers").write_text(f'maki namespaces="memhall" {public.openssh}\n')
    _say(f"signing key:   {key} (maki's, registered in {policy}/allowed_signers)")
    hall = Hall(Store(f"sqlite:///{workdir / 'memhall.db'}"), PolicySet.load(policy))
    if hall.seal is not None:
        hall.seal.signer = signer(key, ssh_keygen=False)
    return hall


@click.command()
@click.option("--dir", "workdir", type=click.Path(file_okay=False, path_type=Path),
              help="Keep the scratch store here (default: a temporary directory).")
@json_option
@click.pass_obj
def tour(app: App, workdir: Path | None) -> None:
    """A guided scenario: wrap-up, handoff, history search, refusals, promotion, beliefs."""
    _narration["err"] = app.json
    with tempfile.TemporaryDirectory(prefix="memhall-tour-") as scratch:
        folder = workdir or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        _tour(_hall(folder))
    if app.json:
        emit(app, _summary, lambda: "")


def _tour(hall: Hall) -> None:
    _step("1. The owner creates the domain: every domain is its own event stream")
    _run("memhall --as maki domain create company", lambda: hall.create_domain("maki", "company"))

    _step("2. Session one (codex) records an old lesson and wraps up")
    _run('memhall --as codex write --layer L2 --kind lesson "Where we left off on the billing migration: ..."',
         lambda: hall.write("codex", "company", draft(
             layer="L2", kind="lesson",
             text="Where we left off on the billing migration: the dry run failed, roll back first")))
    _run('memhall --as codex wrap-up -s "Billing migration paused after the failed dry run"',
         lambda: sessions.wrap_up(hall, "codex", "company", "Billing migration paused after the failed dry run"))

    _step("3. Session two (codex) picks up, ships, wraps up leaving an open loop")
    _run('memhall --as codex wrap-up -s "Invoices v2 live; next: reminder e-mails" --open "..."',
         lambda: sessions.wrap_up(hall, "codex", "company", "Invoices v2 live; next: reminder e-mails",
                                  opens=["send the first reminder e-mails"]))

    _step("4. Session three starts: handoff reads the LATEST state by time")
    view = _run("memhall --as codex --domain company handoff",
                lambda: sessions.handoff(hall, "codex", "company"))
    _say(render.handoff(view))
    shown = {e.kind for e in view.latest}
    _say(f"-> the old, more similar lesson is {'NOT ' if 'lesson' not in shown else ''}in the handoff.")

    _step("5. Search is history, labelled as such, never current state")
    found = _run('memhall --as codex search "where we left off billing migration"',
                 lambda: history.search(hall, "codex", "company", "where we left off billing migration"))
    _say(render.search(found))

    _step("6. Refusals: each is one clear line, an exit code, and an audit event")
    _refused('memhall --as codex --domain compnay write "typo in the domain"',
             lambda: hall.write("codex", "compnay", draft(text="typo in the domain")))
    _refused('memhall --as gemini write --layer L2 "a seat writing the hall"',
             lambda: hall.write("gemini", "company", draft(layer="L2", text="a seat writing the hall")))

    _step("7. Promotion: a seat's answer (L1) -> L2 -> L3, only the owner ratifies")
    answer = UUID(_run('memhall --as gemini write "Reminder e-mails go out at 09:00 local time"',
                       lambda: hall.write("gemini", "company", draft(
                           text="Reminder e-mails go out at 09:00 local time"))).entry_id)
    _run("memhall --as codex promote ID --useful yes --evidence ticket-88 --not-temporary yes --safe yes",
         lambda: promotions.promote(hall, "codex", "company", answer, useful=True, evidence=("ticket-88",),
                                    not_temporary=True, safe=True))
    nomination = _run('memhall --as claude nominate ID --to L3 --stale-fact "unchanged for a quarter"',
                      lambda: promotions.nominate(hall, "claude", "company", answer, Layer.L3,
                                                  "unchanged for a quarter"))
    _refused("memhall --as claude ratify PROMOTION   # the system chair organizes, never ratifies",
             lambda: promotions.ratify(hall, "claude", "company", nomination.id))
    _run("memhall --as maki ratify PROMOTION --key maki_ed25519   # signed: maki has a key",
         lambda: promotions.ratify(hall, "maki", "company", nomination.id))
    _say(render_layer(promotions.ratified(hall, "maki", "company", "L3")))
    _say(render_layer(promotions.ratified(hall, "maki", "company", "L4")))

    _step("8. Council materialization: what a seat may rely on, as ledgers A, B and C")
    _run('memhall --as maki write --layer L2 --kind quote "Reminders never go out on weekends."',
         lambda: hall.write("maki", "company", draft(layer="L2", kind="quote",
                                                     text="Reminders never go out on weekends.")))
    done = _run('memhall --as claude materialize --seat gemini --task "when do reminder e-mails go out"',
                lambda: materialize(hall, "claude", "company", seat="gemini",
                                    task="when do reminder e-mails go out"))
    _say(markdown.ledgers(done.ledgers))
    _refused("memhall --as gemini materialize --seat gemini --task ...   # no seat serves itself",
             lambda: materialize(hall, "gemini", "company", seat="gemini", task="anything"))

    _step("9. Beliefs move with evidence: a rumour is doubted, then corrected; `why` draws it")
    rumour = UUID(_run('memhall --as maki write --layer L2 --kind claim "The old mailer sends the reminders" '
                       "--source hearsay --source-agent codex --topic mail --to gemini",
                       lambda: hall.write("maki", "company", draft(
                           layer="L2", kind="claim", text="The old mailer sends the reminders",
                           tags={"topics": ("mail",)}, addressees=("gemini",),
                           provenance={"source_kind": "hearsay", "source_agent_id": "codex"}))).entry_id)
    for text in ("the old mailer has no reminder job", "the new queue sends the reminders"):
        revised = _run(f'memhall --as maki evidence ID --contradicts --text "{text}"',
                       lambda: evidence.record(hall, "maki", "company", rumour,
                                               EvidenceKind.CONTRADICTS, text=text))
        _say(f"-> {revised.revision}: {revised.state} {revised.confidence}"
             + "".join(f"; trust {t}" for t in revised.trust_changed))
    _run("memhall --as claude why ID", lambda: None)
    _say(as_text(beliefs.why_of(hall, "claude", "company", rumour)).rstrip())
    held = beliefs.belief_of(hall, "claude", "company", rumour, holder="gemini").belief
    _say(f"-> gemini, told the rumour but not the correction, still holds it: "
         f"{held['state']} {held['confidence']}: {held['subject']}")

    _step("10. Every event, allowed or refused, is in the domain's log")
    for event in history.log(hall, "maki", "company", limit=6):
        _say(render.event_line(event))
    _say("\nTour done. Next: `memhall init` in your project, then `memhall policy check`.")


def render_layer(view: Any) -> str:
    lines = [view.message] + [f"  [{e.layer}] {e.id}: {e.text}" for e in view.entries]
    return "\n".join(lines)
