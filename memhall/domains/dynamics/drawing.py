"""Drawing a tag graph for a person to look at: Graphviz dot and Mermaid, wandering links dashed."""

from __future__ import annotations

from memhall.domains.dynamics.graph import Link, Node, TagGraph


def to_dot(graph: TagGraph, *, name: str = "memory") -> str:
    lines = [f"graph {_dot_id(name)} {{", "  node [shape=box, style=rounded];"]
    for node in graph.nodes():
        lines.append(f"  {_dot_id(str(node))} [label={_dot_id(_label(node))}];")
    for link in _ordered(graph):
        style = ", style=dashed" if link.wandering_only else ""
        lines.append(f"  {_dot_id(str(link.a))} -- {_dot_id(str(link.b))} "
                     f"[label={_dot_id(_relations(link))}{style}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_mermaid(graph: TagGraph) -> str:
    ids = {node: f"n{index}" for index, node in enumerate(graph.nodes())}
    lines = ["graph LR"]
    for node, ident in ids.items():
        lines.append(f'  {ident}["{_mermaid_text(_label(node))}"]')
    for link in _ordered(graph):
        text = _mermaid_text(_relations(link))
        joint = f"-. {text} .-" if link.wandering_only else f"---|{text}|"
        lines.append(f"  {ids[link.a]} {joint} {ids[link.b]}")
    return "\n".join(lines) + "\n"


def _ordered(graph: TagGraph) -> list[Link]:
    return [graph.links[key] for key in sorted(graph.links)]


def _label(node: Node) -> str:
    return f"{node.name} ({node.kind.value})"


def _relations(link: Link) -> str:
    return ", ".join(sorted(r.value for r in link.relations))


def _dot_id(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _mermaid_text(text: str) -> str:
    """Mermaid has no backslash escapes; its entity codes keep quotes and brackets literal."""
    for raw, code in (("#", "#35;"), ('"', "#quot;"), ("|", "#124;"), ("<", "#lt;"), (">", "#gt;")):
        text = text.replace(raw, code)
    return text
