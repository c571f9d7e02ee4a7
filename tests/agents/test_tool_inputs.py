"""Every MCP tool, every text it takes holding a NUL: an answer or a tool error with the
hall's one line, never the store's own error (PostgreSQL cannot store a NUL, and a query
parameter holding one fails there) nor the SDK's "Error executing tool" of an exception
the tool did not expect."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

import pytest

from memhall.governance.hall import Hall
from tests.agents.conftest import Connect, error_text

pytestmark = pytest.mark.anyio

NUL = "the disk\x00is full"


def _value(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """A plausible value of a JSON schema (the first of an enum, an empty list)."""
    if "$ref" in schema:
        return _value(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        return _value(next(s for s in schema["anyOf"] if s.get("type") != "null"), defs)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "string":
        return str(uuid4()) if schema.get("format") == "uuid" else "x"
    if kind == "array":
        return []
    if kind == "integer":
        return max(1, int(schema.get("minimum", 1)))
    if kind == "boolean":
        return False
    return None


def _texts(schema: dict[str, Any], defs: dict[str, Any]) -> str | None:
    """'string' or 'array' when a parameter takes free text (not a uuid, not an enum)."""
    if "$ref" in schema:
        return _texts(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        return next((t for s in schema["anyOf"] if (t := _texts(s, defs))), None)
    if schema.get("type") == "string" and "enum" not in schema and schema.get("format") != "uuid":
        return "string"
    if schema.get("type") == "array" and _texts(schema.get("items", {}), defs) == "string":
        return "array"
    return None


async def test_text_holding_a_nul_never_reaches_the_store(hall: Hall, connect: Connect) -> None:
    async with connect("codex") as client:
        tools = (await client.list_tools()).tools
        asked, failed = 0, []
        for tool in tools:
            schema = tool.input_schema
            defs = schema.get("$defs", {})
            properties = schema.get("properties", {})
            base = {name: _value(properties[name], defs) for name in schema.get("required", [])}
            for name, prop in properties.items():
                kind = _texts(prop, defs)
                if kind is None:
                    continue
                arguments = {**base, name: NUL if kind == "string" else [NUL]}
                result = await client.call_tool(tool.name, arguments)
                asked += 1
                text = error_text(result) if result.is_error else ""
                if "cannot be used" in text or "internal" in text.lower() or text.strip() == f"Error executing tool {tool.name}":
                    failed.append((tool.name, name, text))

    assert not failed
    assert asked >= 20
