"""Ledgers as Markdown for a seat's prompt: every item cited by id and tagged with its layer."""

from __future__ import annotations

from memhall.ledgers.ledger import Explained, Fact, Ledgers, Quote


def ledgers(view: Ledgers) -> str:
    """The same ledgers always render to the same bytes (no clock, no locale)."""
    spent = view.budget
    lines = [
        f"# Council materialization for {view.seat} in {view.domain}",
        "",
        f"Task: {view.task}",
        f"As of log position {view.as_of_position}. Budget: B at most {spent.max_items} facts, "
        f"{spent.max_tokens} tokens ({spent.used_tokens} used). Digest: sha256:{view.digest}",
    ]
    if view.tags:
        lines.append(f"Task tags: {', '.join(view.tags)}")
    lines += ["", "## A. The human's own words (verbatim; [\u2026] marks a cut at an end)", ""]
    lines += [line for q in view.a for line in _quote(q)] or ["(none)"]
    lines += ["", "## B. Facts you may rely on (cite by id; trust the layer tag, nothing else)", ""]
    if not view.knowledge_available:
        lines += ["K unavailable: no L3/L4 knowledge for this task. What follows is L2 hall "
                  "material (recorded, not verified), labelled as such.", ""]
    lines += [line for f in view.b for line in _fact(f)] or ["(none)"]
    lines += ["", "## C. Related but not materialized (do not rely on these)", ""]
    lines += [f"- {x.id} [{x.layer}] {x.kind}: {x.reason}" for x in view.c] or ["(none)"]
    lines += [
        "", "## Missing memory?", "",
        f"Do not fill a gap with inference. Ask: `memhall request --seat {view.seat} --need \"...\"`, "
        "mark the dependent parts MEMORY PENDING, and finish the rest.",
    ]
    if view.explain is not None:
        lines += ["", "## Explain (channel rank:score, fused, salience, recency, final)", ""]
        lines += [_explained(e) for e in view.explain]
    return "\n".join(lines)


def _indented(text: str, prefix: str) -> list[str]:
    return [prefix + line if line else prefix.rstrip() for line in text.split("\n")]


def _quote(q: Quote) -> list[str]:
    return [f"- [{q.layer}] quote {q.id} by {q.author}:", *_indented(q.text, "  > ")]


def _fact(f: Fact) -> list[str]:
    p = f.provenance
    source = p.source_kind + (f" from {p.source_agent_id}" if p.source_agent_id else "")
    cites = [f"written {p.written_at:%Y-%m-%d} at position {p.written_position}"]
    if p.evidence_refs:
        cites.append("evidence " + ", ".join(p.evidence_refs))
    if p.claim_root_id:
        cites.append(f"claim {p.claim_root_id}")
    return [
        f"- [{f.layer}] {f.kind} {f.id} by {f.author}; {source}; confidence {f.confidence}; "
        f"{f.state}; {'; '.join(cites)}",
        *_indented(f.text, "  "),
        *(_indented(f"now understood: {f.understanding}", "  ") if f.understanding else []),
    ]


def _explained(e: Explained) -> str:
    channels = " ".join(f"{name}#{int(v['rank'])}:{v['score']:g}" for name, v in e.channels.items())
    where = e.ledger + (f" ({e.reason})" if e.reason else "")
    return (f"- {e.id} [{e.layer}] {channels} | fused {e.fused:.6f} salience {e.salience:g} "
            f"recency {e.recency:.3f} final {e.final:.6f} -> {where}")
