"""`policy diff`: what each principal gained or lost between two policy sets."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TypeVar

import cedarpy
from pydantic import BaseModel

from memhall.policies import grid
from memhall.policies.engine import PolicySet
from memhall.policies.model import Action, ResourceType
from memhall.policies.revision import export_policy_dir

T = TypeVar("T")
NO_CHANGE = "No effective change in permissions."
_MAX_VARIANTS = 6


class Change(BaseModel):
    principal: str
    change: str  # "gained" | "lost"
    action: str
    resource: str
    domains: list[str]
    text: str


class PolicyDiff(BaseModel):
    changes: list[Change] = []
    requests_compared: int = 0
    rules_added: list[str] = []
    rules_removed: list[str] = []
    rules_changed: list[str] = []

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def markdown(self) -> str:
        lines = ["### memhall policy diff", ""]
        if not self.changes:
            lines.append(f"**{NO_CHANGE}**")
        for principal, changes in itertools.groupby(self.changes, key=lambda c: c.principal):
            lines += [f"**{principal}**", ""]
            lines += [f"- {change.text}" for change in changes]
            lines.append("")
        edits = [
            ("added", self.rules_added), ("removed", self.rules_removed), ("changed", self.rules_changed)
        ]
        rules = "; ".join(f"{verb}: {', '.join(ids)}" for verb, ids in edits if ids)
        if rules:
            lines += ["", f"Rules {rules}."]
        lines += [
            "",
            f"<sub>Compared {self.requests_compared:,} requests per policy set: every principal x "
            "action x resource type x layer move x domain, with evidence yes/no, entry kinds for "
            "writes, 0-3 reminder sessions, dissent yes/no, nominator self/other, and false "
            "payload claims.</sub>",
        ]
        return "\n".join(lines).rstrip() + "\n"

    def to_json(self) -> str:
        data = self.model_dump()
        data["changed"] = self.changed
        return json.dumps(data, indent=2)


def diff(base_dir: Path | None, head_dir: Path | None) -> PolicyDiff:
    """Diff two policy directories (None: the packaged defaults)."""
    return diff_sets(PolicySet.load(base_dir), PolicySet.load(head_dir))


def diff_against_git(rev: str, directory: Path) -> PolicyDiff:
    """Diff `directory` against the same directory at git revision `rev`.

    A directory that did not exist at `rev` is an empty base: everything is gained.
    """
    with TemporaryDirectory(prefix="memhall-policy-base-") as temp:
        base_dir = Path(temp) / "policy"
        found = export_policy_dir(rev, directory, base_dir)
        base = PolicySet.load(base_dir) if found else None
        return diff_sets(base, PolicySet.load(directory))


def diff_sets(base: PolicySet | None, head: PolicySet) -> PolicyDiff:
    """Evaluate both sets over the grid (see `grid`) and report what changed."""
    sets = [s for s in (base, head) if s is not None]
    principals = _union(s.principals for s in sets)
    domains = _union(s.domains for s in sets)
    applies = {
        action: _union(s.applies[action] for s in sets) for action in Action
    }
    points = grid.points(principals, domains, applies)
    before = _allowed(base, points)
    after = _allowed(head, points)
    # Claims can only take permissions away: try them where either set allows.
    claimed = [p.with_claim(c) for p, b, a in zip(points, before, after) if b or a for c in grid.CLAIMS]
    before += _allowed(base, claimed)
    after += _allowed(head, claimed)
    everything = points + claimed
    flips = {
        point: now for point, was, now in zip(everything, before, after) if was != now
    }
    result = PolicyDiff(changes=_describe(flips), requests_compared=len(everything))
    _rule_edits(result, base, head)
    return result


def _union(groups: Iterable[Iterable[T]]) -> tuple[T, ...]:
    seen: dict[T, None] = {}
    for group in groups:
        seen.update(dict.fromkeys(group))
    return tuple(seen)


def _allowed(policy_set: PolicySet | None, points: list[grid.Point]) -> list[bool]:
    if policy_set is None:
        return [False] * len(points)
    requests = []
    valid = []
    for point in points:
        ok = point.resource_type in policy_set.applies[point.action]
        valid.append(ok)
        if ok:
            requests.append(point.request())
    verdicts = iter(policy_set.allows_many(requests))
    return [next(verdicts) if ok else False for ok in valid]


def _describe(flips: dict[grid.Point, bool]) -> list[Change]:
    """Group flipped grid points into lines a reviewer can read."""
    by_situation: dict[tuple[str, bool, Action, ResourceType, str, str, str, str], set[grid.Variant]] = {}
    for point in flips:
        key = (point.principal, flips[point], point.action, point.resource_type,
               point.layer, point.target_layer, point.claim, point.domain)
        by_situation.setdefault(key, set()).add(point.variant)
    lines: dict[tuple[str, str], Change] = {}
    for key, changed in by_situation.items():
        principal, gained, action, rtype, layer, target, claim, domain = key
        verb = "gained" if gained else "lost"
        resource = _resource_phrase(rtype, layer, target)
        text = f"{verb} `{action.value}` on {resource}"
        qualifier = _variants_phrase(grid.variants(action, rtype), changed)
        if qualifier:
            text += f" ({qualifier})"
        if claim:
            text += f" when the payload claims another {claim}"
        line = lines.get((principal, text))
        if line is None:
            lines[(principal, text)] = Change(
                principal=principal, change=verb, action=action.value,
                resource=resource, domains=[domain], text=text,
            )
        else:
            line.domains.append(domain)
    principals = list(dict.fromkeys(change.principal for change in lines.values()))
    ordered = sorted(lines.values(), key=lambda c: (principals.index(c.principal), c.change != "gained"))
    for change in ordered:
        change.text += f" in {', '.join(change.domains)}"
    return ordered


def _resource_phrase(rtype: ResourceType, layer: str, target: str) -> str:
    if rtype is ResourceType.PROMOTION:
        return f"promotions {layer} -> {target}"
    if rtype is ResourceType.DOMAIN:
        return "the domain"
    if not layer:
        return f"new {target} entries"
    if not target:
        return f"{layer} entries"
    return f"{layer} entries moving to {target}"


def _variants_phrase(full: list[grid.Variant], changed: set[grid.Variant]) -> str:
    """"" when every variant changed; else the facts under which it changed."""
    if len(changed) == len(full) or not full or not full[0]:
        return ""
    names = [name for name, _ in full[0]]
    all_values = [list(dict.fromkeys(v[i][1] for v in full)) for i in range(len(names))]
    seen = [list(dict.fromkeys(v[i][1] for v in full if v in changed)) for i in range(len(names))]
    product = 1
    for values in seen:
        product *= len(values)
    if product == len(changed):  # the changed set is a product: name each narrowed fact once
        parts = [
            " or ".join(_fact_phrase(name, value) for value in values)
            for name, values, every in zip(names, seen, all_values)
            if len(values) != len(every)
        ]
        return ", ".join(parts)
    listed = [v for v in full if v in changed]
    phrases = ["; ".join(", ".join(_fact_phrase(n, x) for n, x in v) for v in listed[:_MAX_VARIANTS])]
    if len(listed) > _MAX_VARIANTS:
        phrases.append(f"and {len(listed) - _MAX_VARIANTS} more")
    return " ".join(phrases)


def _fact_phrase(name: str, value: object) -> str:
    if name == "has_evidence":
        return "with evidence" if value else "without evidence"
    if name == "kind":
        return f"kind {value}" if value else "no kind"
    if name == "reminder_sessions":
        return f"{value} reminder session{'' if value == 1 else 's'}"
    if name == "dissent_recorded":
        return "dissent recorded" if value else "no dissent"
    if name == "nominated_by":
        return "nominated by itself" if value == "self" else "nominated by another"
    return f"{name}={value}"


def _rule_edits(result: PolicyDiff, base: PolicySet | None, head: PolicySet) -> None:
    before = {rule.id: rule.text for rule in base.rules} if base else {}
    after = {rule.id: rule.text for rule in head.rules}
    result.rules_added = [rule for rule in after if rule not in before]
    result.rules_removed = [rule for rule in before if rule not in after]
    result.rules_changed = [
        rule for rule in after
        if rule in before and _ast(before[rule]) != _ast(after[rule])
    ]


def _ast(text: str) -> object:
    """A rule's meaning without its comments and layout."""
    return json.loads(cedarpy.policies_to_json_str(text))
