"""The MCP server: one agent identity in one domain, the hall's use cases as tools.

Every tool calls the governance or ledgers function the CLI command of the
same purpose calls, with the server's fixed identity and domain, so the policy
decides exactly as it does for the CLI, and a refusal is recorded as it is
there. Annotations are honest: a tool that records something (a session, an
entry, a request) is not read-only; none erases anything (the log is
append-only), and none reaches outside the hall.
"""

from __future__ import annotations

from datetime import timedelta
from importlib.metadata import version
from typing import Annotated, Literal
from uuid import UUID

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from memhall.agents.agent import Agent
from memhall.agents.results import (
    PendingRequests,
    Promotions,
    PromotionStanding,
    PromotionStep,
    WhyGraph,
)
from memhall.domains.entry import draft
from memhall.domains.entry import tags as entry_tags
from memhall.domains.promotion import Stance
from memhall.domains.values import Kind, SourceKind
from memhall.domains.belief.drawing import as_dict
from memhall.governance import beliefs, history, promotions, requests, sessions
from memhall.governance.requests import RequestView
from memhall.governance.views import HandoffView, SearchView, ShowView, WrapUpResult, WriteResult
from memhall.ledgers.recall.observer import MAX_ITEMS, Recalled, recall as relevant

READS = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                        open_world_hint=False)
#: records something, but the same call again records nothing more
RECORDS_ONCE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                               open_world_hint=False)
#: records something each time it is called
RECORDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                          open_world_hint=False)

Names = tuple[str, ...]
SessionId = Annotated[str | None, Field(description="Defaults to the session get_handoff opened.")]


def instructions(agent: Agent) -> str:
    return f"""memhall: governed shared memory. You act as {agent.actor} in domain {agent.domain}; \
every call is checked by the domain's policy, and a refusal is recorded and returned as an error \
naming the rule.
- Start with get_handoff: the latest state of the domain by time (never by similarity), open loops, \
open requests, pending nominations. It opens your session.
- End with wrap_up: a short summary plus pointers to entries; loops you opened and closed.
- Every item carries its layer: L1 working candidates, L2 the hall, L3 knowledge, L4 canon. \
Never present a lower layer as a higher one; if L3/L4 has nothing, say so.
- recall ranks by relevance and search_history finds history: neither is current state.
- Missing memory? request_memory, and write what depends on it with pending=[its id] \
(MEMORY PENDING); never fill the gap with inference.
- There is no ratify tool: ratification is a human act, done by the domain's ratify owner \
with `memhall ratify`."""


def build_server(agent: Agent, *, verbose: bool = False) -> MCPServer:
    """The server for one agent; every tool acts as `agent.actor` in `agent.domain`.
    Its logs go to stderr: warnings, and with `verbose` every refused call too."""
    server: MCPServer = MCPServer("memhall", title=f"memhall ({agent.actor} in {agent.domain})",
                                  version=version("memhall"), instructions=instructions(agent),
                                  log_level="INFO" if verbose else "WARNING")
    hall, actor, domain, governed = agent.hall, agent.actor, agent.domain, agent.governed

    @server.tool(title="Handoff: where the domain was left", annotations=RECORDS_ONCE)
    def get_handoff(limit: Annotated[int, Field(ge=1, le=50)] = sessions.HANDOFF_LATEST) -> HandoffView:
        """Session start: the newest state / wrap-up / handoff entries by time, open loops, open
        requests and pending nominations. Opens your session once; later calls return the same."""
        return governed(lambda: agent.handoff(limit))

    @server.tool(title="Wrap up the session", annotations=RECORDS_ONCE)
    def wrap_up(summary: Annotated[str, Field(min_length=1)],
                pointers: Annotated[Names, Field(description="Entry ids this state points to.")] = (),
                closes: Annotated[tuple[UUID, ...],
                                  Field(description="Open loops this session closes.")] = (),
                opens: Annotated[Names, Field(description="Open loops this session leaves.")] = (),
                session_id: SessionId = None) -> WrapUpResult:
        """Session end: an L2 wrap-up (short summary + pointers), loops opened and closed; closes
        the session. Retrying the same wrap-up returns the first one."""
        return governed(lambda: agent.wrap_up(summary, session_id=session_id, pointers=pointers,
                                              closes=closes, opens=opens))

    @server.tool(title="Write a memory", annotations=RECORDS_ONCE)
    def write_memory(
        text: Annotated[str, Field(min_length=1)],
        layer: Annotated[Literal["L1", "L2"], Field(description="L1 candidate or L2 hall.")] = "L1",
        kind: Kind = Kind.EPISODE,
        people: Names = (), places: Names = (), topics: Names = (),
        thread: Annotated[str | None, Field(min_length=1, max_length=128, description=(
            "The thread this continues (default: the first topic, else your own, @NAME)."))] = None,
        source: SourceKind = SourceKind.FIRSTHAND,
        source_agent: Annotated[str | None, Field(description="Who said it (hearsay only).")] = None,
        evidence: Names = (),
        claim_root: Annotated[str | None, Field(description="The claim this is evidence for.")] = None,
        confidence: Annotated[int | None, Field(ge=0, le=100)] = None,
        interpretation: Annotated[str | None, Field(description="What you infer, apart from "
                                                                "what you observed.")] = None,
        supersedes: Annotated[UUID | None, Field(description="An entry this replaces.")] = None,
        reason: Annotated[str, Field(description="Why the superseded entry no longer holds "
                                                 "(superseding needs it or evidence).")] = "",
        pending: Annotated[Names, Field(description="Open MEMORY REQUEST ids this depends on.")] = (),
        idempotency_key: Annotated[str | None, Field(max_length=128)] = None,
        session_id: SessionId = None,
    ) -> WriteResult:
        """Write an L1 or L2 entry. The same memory written twice is stored once."""
        def write() -> WriteResult:
            entry = draft(
                layer=layer, kind=kind, text=text, interpretation=interpretation,
                tags={"people": people, "places": places, "topics": topics}, thread=thread,
                provenance={"source_kind": source, "source_agent_id": source_agent,
                            "evidence_refs": evidence, "claim_root_id": claim_root},
                confidence=confidence, session_id=agent.session(session_id),
                pending_requests=pending, idempotency_key=idempotency_key,
            )
            return hall.write(actor, domain, entry, supersedes=supersedes, reason=reason)

        return governed(write)

    @server.tool(title="Recall related memories", annotations=RECORDS)
    def recall(query: Annotated[str, Field(min_length=1)], people: Names = (), places: Names = (),
               topics: Names = (),
               max_items: Annotated[int, Field(ge=1, le=MAX_ITEMS)] = 10) -> Recalled:
        """Memories you hold that are relevant to a query, best first, each with its layer; or
        "no memory of that". Relevance, not current state: use get_handoff for where things
        stand. Records once which memories it handed you."""
        return governed(lambda: relevant(hall, actor, domain, query, max_items=max_items,
                                         tags=entry_tags(people=tuple(people), places=tuple(places),
                                                         topics=tuple(topics))))

    @server.tool(title="Search history", annotations=READS)
    def search_history(query: Annotated[str, Field(min_length=1)],
                       limit: Annotated[int, Field(ge=1, le=100)] = 20) -> SearchView:
        """Full-text search of the domain's history (never current state)."""
        return governed(lambda: history.search(hall, actor, domain, query, limit))

    @server.tool(title="Show an entry and its history", annotations=READS)
    def show_memory(entry_id: UUID) -> ShowView:
        """One entry and its whole event history: who wrote it, under which rule, what changed."""
        return governed(lambda: history.show(hall, actor, domain, entry_id))

    @server.tool(title="Why is this believed", annotations=READS)
    def why(entry_id: UUID,
            mine: Annotated[bool, Field(description="Your own belief (from the evidence you "
                                                    "were exposed to) instead of the hall's.")] = False,
            as_of: Annotated[str | None, Field(description="An ISO time or @POSITION: the log "
                                                           "as it stood then.")] = None) -> WhyGraph:
        """Why do I (or the hall) believe this, who told it, how sure: the evidence graph
        (supports, contradicts, heard_from, witnessed, inferred_from, corrected_by,
        corroborated_by) and the belief's history. Answered from the events, never generated."""
        def answer() -> WhyGraph:
            graph = beliefs.why_of(hall, actor, domain, entry_id, holder=actor if mine else None,
                                   as_of=beliefs.parse_as_of(as_of))
            return WhyGraph(**as_dict(graph))

        return governed(answer)

    @server.tool(title="Request missing memory", annotations=RECORDS)
    def request_memory(need: Annotated[str, Field(min_length=1)],
                       seat: Annotated[str | None, Field(description="The seat missing the "
                                                                       "memory (default: you).")] = None,
                       expires_in_hours: Annotated[float, Field(gt=0, le=24 * 90)] = 72.0) -> RequestView:
        """Record a MEMORY REQUEST instead of filling a gap with inference."""
        return governed(lambda: requests.request_memory(hall, actor, domain, seat or actor, need,
                                                        timedelta(hours=expires_in_hours)))

    @server.tool(title="Open memory requests", annotations=READS)
    def list_pending(seat: str | None = None) -> PendingRequests:
        """Open MEMORY REQUESTs, oldest first (an expired request is not open)."""
        return governed(lambda: PendingRequests(
            domain=domain, requests=requests.pending(hall, actor, domain, seat=seat)))

    @server.tool(title="Nominations and their standing", annotations=READS)
    def list_promotions(include_closed: bool = False) -> Promotions:
        """Nominations and what each has gathered (reminders, dissent)."""
        return governed(lambda: Promotions(domain=domain, promotions=[
            PromotionStanding.of(p) for p in promotions.promotions(hall, actor, domain,
                                                                    all_=include_closed)]))

    @server.tool(title="Remind of a nomination", annotations=RECORDS)
    def remind(promotion_id: UUID, note: str = "", session_id: SessionId = None) -> PromotionStep:
        """Record a reminder for a nomination; one counts per session."""
        return governed(lambda: PromotionStep.of(promotions.remind(
            hall, actor, domain, promotion_id, agent.reminder_session(session_id), note)))

    @server.tool(title="Record your dissent position", annotations=RECORDS)
    def record_dissent(promotion_id: UUID, position: Stance,
                       reason: Annotated[str, Field(min_length=1)]) -> PromotionStep:
        """Record your own position on a canon nomination (council members only); recording
        again revises it until the decision. Nobody records another member's position."""
        return governed(lambda: PromotionStep.of(promotions.dissent(hall, actor, domain,
                                                                    promotion_id, position, reason)))

    return server


def serve(agent: Agent, *, verbose: bool = False) -> None:
    """Serve `agent` over stdio until the client closes the pipe."""
    build_server(agent, verbose=verbose).run("stdio")

