"""The MCP tools in-process, through the SDK's own client: each calls the hall's
use case as the server's agent, and the real default policy decides."""

from __future__ import annotations

from uuid import UUID

import pytest

from memhall.domains.entry import draft
from memhall.domains.values import Layer
from memhall.governance import history, promotions
from memhall.governance.hall import Hall
from tests.agents.conftest import Connect, error_text, structured

pytestmark = pytest.mark.anyio

COUNCIL = [{"member": "claude", "position": "abstain", "reason": "nominated it"},
           {"member": "codex", "position": "agree", "reason": "matches the runbook"},
           {"member": "gemini", "position": "disagree", "reason": "too early"}]


def sessions_opened(hall: Hall) -> int:
    return sum(e.topic == "memhall.Session.Opened" for e in history.log(hall, "maki", "company", limit=100))


def canon_nomination(hall: Hall) -> UUID:
    """An L3 entry nominated for L4 by the system chair."""
    entry = UUID(hall.write("codex", "company", draft(text="deploys go out on tuesdays", layer="L2")).entry_id)
    stale = promotions.nominate(hall, "claude", "company", entry, Layer.L3, "held for a quarter")
    promotions.ratify(hall, "maki", "company", stale.id)
    return promotions.nominate(hall, "claude", "company", entry, Layer.L4, "binding for every deploy").id


async def test_get_handoff_opens_one_session_however_often_it_is_called(hall: Hall, connect: Connect) -> None:
    async with connect("codex") as client:
        first = structured(await client.call_tool("get_handoff", {}))
        again = structured(await client.call_tool("get_handoff", {"limit": 3}))

    assert first["session_id"] is not None
    assert again["session_id"] == first["session_id"]
    assert sessions_opened(hall) == 1


async def test_a_retried_wrap_up_returns_the_first_and_the_next_handoff_opens_a_new_session(
        hall: Hall, connect: Connect) -> None:
    async with connect("codex") as client:
        opened = structured(await client.call_tool("get_handoff", {}))
        done = structured(await client.call_tool("wrap_up", {"summary": "shipped the fix",
                                                             "opens": ["watch the error rate"]}))
        retried = structured(await client.call_tool("wrap_up", {"summary": "shipped the fix",
                                                                "opens": ["watch the error rate"]}))
        reopened = structured(await client.call_tool("get_handoff", {}))

    assert done["session_id"] == opened["session_id"]
    assert retried["replayed"] and retried["entry_id"] == done["entry_id"]
    assert reopened["session_id"] != opened["session_id"]
    assert [e["id"] for e in reopened["latest"]] == [done["entry_id"]]
    assert [e["text"] for e in reopened["open_loops"]] == ["watch the error rate"]


async def test_an_entry_written_in_a_session_belongs_to_it(hall: Hall, connect: Connect) -> None:
    async with connect("codex") as client:
        session = structured(await client.call_tool("get_handoff", {}))["session_id"]
        written = structured(await client.call_tool("write_memory", {
            "text": "the cache key includes the locale", "layer": "L2", "kind": "lesson",
            "topics": ["cache"]}))
        shown = structured(await client.call_tool("show_memory", {"entry_id": written["entry_id"]}))

    assert shown["entry"]["session_id"] == session
    assert shown["entry"]["layer"] == "L2" and shown["entry"]["topics"] == ["cache"]
    assert shown["history"][0]["rule"] == "session-chair-writes-l2"


async def test_a_memory_written_to_a_thread_is_its_state_and_anothers_own_thread_is_refused(
        hall: Hall, connect: Connect) -> None:
    async with connect("codex") as client:
        written = structured(await client.call_tool("write_memory", {
            "text": "deploys move to fridays", "layer": "L2", "kind": "state", "thread": "deploy"}))
        handoff = structured(await client.call_tool("get_handoff", {}))
        refused = await client.call_tool("write_memory", {"text": "maki: ship it", "thread": "@maki"})

    assert [(e["thread"], e["id"]) for e in handoff["latest"]] == [("deploy", written["entry_id"])]
    assert refused.is_error and "[own-thread-only]" in error_text(refused)


async def test_the_same_memory_written_twice_is_stored_once(connect: Connect) -> None:
    async with connect("gemini") as client:
        first = structured(await client.call_tool("write_memory", {"text": "the build is green"}))
        second = structured(await client.call_tool("write_memory", {"text": "The build is  green"}))

    assert second["duplicate_of"] == first["entry_id"]


async def test_recall_returns_related_active_memories_the_agent_holds_each_with_its_layer(
        hall: Hall, connect: Connect) -> None:
    told = ("gemini",)
    hall.write("codex", "company", draft(text="the invoice export times out after 30 s", layer="L2",
                                         addressees=told))
    hall.write("gemini", "company", draft(text="maybe the invoice export needs paging"))
    old = hall.write("codex", "company", draft(text="the invoice export was slow in May", layer="L2",
                                               addressees=told))
    hall.retire("maki", "company", UUID(old.entry_id), "fixed since")
    hall.write("codex", "company", draft(text="the invoice export is owned by codex", layer="L2"))
    hall.write("codex", "company", draft(text="lunch is at noon", layer="L2", addressees=told))

    async with connect("gemini") as client:
        found = structured(await client.call_tool("recall", {"query": "invoice export", "max_items": 5}))

    assert {(i["layer"], i["text"]) for i in found["items"]} == {
        ("L2", "the invoice export times out after 30 s"), ("L1", "maybe the invoice export needs paging")}
    assert all("lexical_match" in i["found_by"] for i in found["items"])
    assert "neither where things stand (handoff, get_handoff)" in found["notice"]


async def test_recall_with_nothing_to_look_for_is_a_tool_error(connect: Connect) -> None:
    async with connect("gemini") as client:
        result = await client.call_tool("recall", {"query": "the of and"})

    assert result.is_error
    assert "recall needs at least one word or tag" in error_text(result)


async def test_search_history_says_it_is_not_current_state(hall: Hall, connect: Connect) -> None:
    hall.write("codex", "company", draft(text="the staging database moved", layer="L2", addressees=("gemini",)))
    hall.write("codex", "company", draft(text="the staging database is codex's secret", layer="L2"))

    async with connect("gemini") as client:
        found = structured(await client.call_tool("search_history", {"query": "staging database"}))

    assert [r["text"] for r in found["results"]] == ["the staging database moved"]
    assert "not current state" in found["notice"]


async def test_an_unknown_entry_is_a_tool_error_with_the_halls_own_line(connect: Connect) -> None:
    async with connect("gemini") as client:
        result = await client.call_tool("show_memory", {"entry_id": "00000000-0000-0000-0000-000000000001"})

    assert result.is_error
    assert "no entry 00000000-0000-0000-0000-000000000001 in this domain" in error_text(result)


async def test_a_seat_asks_for_memory_and_the_request_is_pending(connect: Connect) -> None:
    async with connect("gemini") as client:
        asked = structured(await client.call_tool("request_memory", {"need": "who owns billing"}))
        pending = structured(await client.call_tool("list_pending", {}))

    assert asked["seat"] == "gemini" and asked["status"] == "open"
    assert [r["id"] for r in pending["requests"]] == [asked["id"]]


async def test_a_seat_asking_for_another_seat_is_refused_and_recorded(hall: Hall, connect: Connect) -> None:
    async with connect("gemini") as client:
        result = await client.call_tool("request_memory", {"need": "who owns billing", "seat": "claude"})

    assert result.is_error
    assert "refused: no rule permits request for gemini in company" in error_text(result)
    refusal = history.log(hall, "maki", "company", limit=1)[0]
    assert (refusal.topic, refusal.actor, refusal.rule) == ("memhall.Refusal.Recorded", "gemini", "no-rule-permits")


async def test_a_principal_with_no_role_gets_no_handoff(connect: Connect) -> None:
    async with connect("grok") as client:
        result = await client.call_tool("get_handoff", {})

    assert result.is_error
    assert "grok holds no role there" in error_text(result)


async def test_a_reminder_needs_the_agents_session_and_counts_once_per_session(hall: Hall, connect: Connect) -> None:
    promotion = str(canon_nomination(hall))

    async with connect("codex") as client:
        without = await client.call_tool("remind", {"promotion_id": promotion})
        await client.call_tool("get_handoff", {})
        once = structured(await client.call_tool("remind", {"promotion_id": promotion, "note": "came up"}))
        twice = structured(await client.call_tool("remind", {"promotion_id": promotion}))

    assert without.is_error and "call get_handoff first" in error_text(without)
    assert once["reminder_sessions"] == twice["reminder_sessions"] == 1
    assert twice["standing"] == "1 of 3 reminders; no dissent recorded (missing claude, codex, gemini)"


async def test_each_council_member_records_its_own_dissent_and_it_is_listed(hall: Hall, connect: Connect) -> None:
    promotion = str(canon_nomination(hall))

    for member in COUNCIL:
        async with connect(member["member"]) as client:
            step = structured(await client.call_tool("record_dissent", {
                "promotion_id": promotion, "position": member["position"], "reason": member["reason"]}))
    async with connect("claude") as client:
        listed = structured(await client.call_tool("list_promotions", {}))

    assert step["dissent_recorded"] and step["to_layer"] == "L4"
    (row,) = listed["promotions"]
    assert row["id"] == promotion and row["standing"] == "0 of 3 reminders; dissent recorded (3 positions)"


async def test_there_is_no_ratify_tool_and_the_instructions_say_it_is_a_human_act(connect: Connect) -> None:
    async with connect("claude") as client:
        names = {t.name for t in (await client.list_tools()).tools}
        instructions = client.instructions or ""

    assert not {n for n in names if "ratif" in n}
    assert "ratification is a human act" in instructions
    assert "You act as claude in domain company" in instructions


async def test_why_answers_from_the_evidence_graph_for_the_hall_and_for_the_agent(
        hall: Hall, connect: Connect) -> None:
    from memhall.domains.belief import EvidenceKind
    from memhall.governance import evidence

    rumour = UUID(hall.write("maki", "company", draft(
        layer="L2", kind="claim", text="the NAS is backed up nightly", addressees=("gemini",),
        provenance={"source_kind": "hearsay", "source_agent_id": "codex"})).entry_id)
    evidence.record(hall, "maki", "company", rumour, EvidenceKind.CONTRADICTS, text="no job")

    async with connect("gemini") as client:
        hall_view = structured(await client.call_tool("why", {"entry_id": str(rumour)}))
        own = structured(await client.call_tool("why", {"entry_id": str(rumour), "mine": True}))

    assert hall_view["belief"]["state"] == "doubtful"
    assert {e["kind"] for e in hall_view["edges"]} == {"heard_from", "contradicts", "witnessed"}
    assert (own["belief"]["state"], own["belief"]["confidence"]) == ("influencing", 58)


async def test_a_domain_being_rebuilt_is_a_tool_error_saying_so_and_nothing_is_handed_out(
        hall: Hall, connect: Connect) -> None:
    from memhall.governance import rebuilding

    hall.write("codex", "company", draft(text="the release is on Friday", kind="state", layer="L2"))
    rebuilding.mark(hall.store, "company")
    async with connect("codex") as client:
        handoff = await client.call_tool("get_handoff", {})
        write = await client.call_tool("write_memory", {"text": "meanwhile"})
    rebuilding.clear(hall.store, "company")

    for result in (handoff, write):
        assert result.is_error and "'company' is being rebuilt (since" in error_text(result)
    assert "the release is on Friday" not in error_text(handoff)
