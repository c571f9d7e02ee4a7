"""MCP fixtures: an agent bound to the hall, and the SDK's own client connected
to its server, in-process (the SDK's in-memory session)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from memhall.agents.agent import Agent
from memhall.agents.mcp_server import build_server
from memhall.governance.hall import Hall

Connect = Callable[..., AbstractAsyncContextManager[Client]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def connect(hall: Hall) -> Connect:
    """`async with connect("codex") as client:` a client of codex's server in company."""

    @asynccontextmanager
    async def connected(actor: str, domain: str = "company") -> AsyncIterator[Client]:
        async with Client(build_server(Agent(hall, actor, domain))) as client:
            yield client

    return connected


def structured(result: CallToolResult) -> dict[str, Any]:
    """The tool's structured result; a tool error fails the test with its text."""
    assert not result.is_error, error_text(result)
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, TextContent))
