"""Cedar rules: parsed together (one statement at a time where that fails), validated against the schema, named by @id."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import cedarpy

from memhall.domains.errors import PolicyConfigError
from memhall.policies.files import SourceFile, Statement, split_statements
from memhall.policies.model import PolicyRequest

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_TICKED = re.compile(r"`([^`]+)`")
_POLICY_REF = re.compile(r"(for )?policy `(policy\d+)`,? ?")
_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
#: Facts a @message may name: the request's fields.
MESSAGE_FIELDS = frozenset(PolicyRequest.model_fields)


@dataclass(frozen=True)
class Rule:
    """One Cedar policy and where it was written."""

    id: str
    effect: str  # "permit" | "forbid"
    message: str
    file: str
    line: int
    text: str
    #: the actions its scope names; None when it may apply to any action
    actions: frozenset[str] | None = None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    def explain(self, facts: dict[str, object]) -> str:
        """The @message with the request's facts filled in ("2 of 3 reminders")."""
        if not self.message:
            return f"{'permitted' if self.effect == 'permit' else 'forbidden'} by {self.id}"
        return _PLACEHOLDER.sub(lambda m: _fact(facts.get(m.group(1), m.group(0))), self.message)


def _fact(value: object) -> str:
    if value == "":
        return "none"
    if hasattr(value, "value"):
        return str(getattr(value, "value"))
    return str(value)


def load_schema(file: SourceFile) -> cedarpy.Schema:
    try:
        return cedarpy.Schema.from_str(file.text)
    except ValueError as exc:
        line = _locate(file.text, 1, str(exc))
        raise PolicyConfigError(f"{file.name}:{line}: invalid schema: {exc}") from None


def compile_rules(
    schema: cedarpy.Schema, schema_file: SourceFile, files: tuple[SourceFile, ...]
) -> tuple[cedarpy.PolicySet, tuple[Rule, ...]]:
    """Parse and validate every rule; the Cedar policy `policy<N>` is rules[N]."""
    statements = [s for file in files for s in split_statements(file)]
    rules = tuple(_rule(statement, policy) for statement, policy in zip(statements, _parsed(statements)))
    seen: dict[str, Rule] = {}
    for rule in rules:
        if rule.id in seen:
            raise PolicyConfigError(
                f"{rule.where}: duplicate rule id {rule.id!r} (first at {seen[rule.id].where})"
            )
        seen[rule.id] = rule
    text = "\n".join(s.text for s in statements)
    result = cedarpy.validate_policies(text, schema)
    if not result.validation_passed:
        error = result.errors[0]
        message = str(error.error)
        index = _policy_index(error.policy_id or message)
        if index is None:
            raise PolicyConfigError(f"{schema_file.name}: rules do not match the schema: {message}")
        statement, rule = statements[index], rules[index]
        line = _locate(statement.text, statement.line, message)
        raise PolicyConfigError(f"{statement.file.name}:{line}: rule {rule.id}: {_without_policy_ref(message)}")
    policies = cedarpy.PolicySet.from_str(text)
    if len(policies) != len(rules):  # pragma: no cover - guards our statement splitting
        raise PolicyConfigError(f"{files[0].name}: read {len(rules)} rules, Cedar saw {len(policies)}")
    return policies, rules


def _parsed(statements: list[Statement]) -> list[dict[str, Any] | None]:
    """Each statement's policy as Cedar's JSON, all parsed in one call (one call a statement
    cost twice as much: ~20 ms of every policy load). None for each where that call fails or
    does not give one policy a statement: then each is parsed alone (`_rule`), which names
    the statement at fault."""
    try:
        parsed = json.loads(cedarpy.policies_to_json_str("\n".join(s.text for s in statements)))
    except ValueError:
        return [None] * len(statements)
    policies = parsed.get("staticPolicies", {})
    if parsed.get("templates") or set(policies) != {f"policy{i}" for i in range(len(statements))}:
        return [None] * len(statements)
    return [policies[f"policy{i}"] for i in range(len(statements))]


def _rule(statement: Statement, policy: dict[str, Any] | None = None) -> Rule:
    if policy is None:
        policy = _alone(statement)
    annotations: dict[str, str] = policy.get("annotations", {})
    rule_id = annotations.get("id", "")
    if not rule_id:
        raise PolicyConfigError(f'{statement.where}: every rule needs an @id("...") naming it')
    if not _ID.match(rule_id):
        raise PolicyConfigError(
            f"{statement.where}: rule id {rule_id!r} must be lowercase words joined by '-'"
        )
    message = annotations.get("message", "")
    unknown = sorted(set(_PLACEHOLDER.findall(message)) - MESSAGE_FIELDS)
    if unknown:
        raise PolicyConfigError(
            f"{statement.where}: @message names unknown fact(s) {', '.join(unknown)}"
            f" (known: {', '.join(sorted(MESSAGE_FIELDS))})"
        )
    return Rule(
        id=rule_id,
        effect=str(policy["effect"]),
        message=message,
        file=statement.file.name,
        line=statement.line,
        text=statement.text,
        actions=_scoped_actions(policy.get("action", {})),
    )


def _alone(statement: Statement) -> dict[str, Any]:
    """The statement's one policy, parsed alone; what is wrong with it, said."""
    try:
        parsed = json.loads(cedarpy.policies_to_json_str(statement.text))
    except ValueError as exc:
        line = _locate(statement.text, statement.line, str(exc))
        raise PolicyConfigError(f"{statement.file.name}:{line}: cannot parse rule: {exc}") from None
    if parsed.get("templates"):
        raise PolicyConfigError(f"{statement.where}: templates (?principal, ?resource) are not supported")
    policies = list(parsed.get("staticPolicies", {}).values())
    if len(policies) != 1:
        raise PolicyConfigError(f"{statement.where}: expected one policy, found {len(policies)}")
    policy: dict[str, Any] = policies[0]
    return policy


def _scoped_actions(scope: dict[str, object]) -> frozenset[str] | None:
    if scope.get("op") == "==":
        entity = scope.get("entity")
        return frozenset({str(entity["id"])}) if isinstance(entity, dict) else None
    entities = scope.get("entities")
    if scope.get("op") == "in" and isinstance(entities, list):
        return frozenset(str(e["id"]) for e in entities if isinstance(e, dict))
    return None


def _policy_index(text: str) -> int | None:
    match = re.search(r"policy(\d+)", text)
    return int(match.group(1)) if match else None


def _without_policy_ref(message: str) -> str:
    return _POLICY_REF.sub("", message, count=1)


def _locate(text: str, first_line: int, message: str) -> int:
    """Best guess at the line an error is about: the first line naming a `token` it quotes.

    Cedar reports what is wrong without a position; a misspelled attribute or
    type is quoted in the message, so the line that contains it is the one.
    """
    tokens = [t for t in _TICKED.findall(message) if not re.fullmatch(r"policy\d+", t)]
    if not tokens and ": " in message:  # "failed to resolve types: Lon, Lon"
        tokens = [t for t in message.rsplit(": ", 1)[1].split(", ") if re.fullmatch(r"[\w:]+", t)]
    lines = text.splitlines()
    for token in tokens:
        bare = token.split("::")[-1].strip('"')
        pattern = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(bare)}(?![A-Za-z0-9_])")
        for offset, line in enumerate(lines):
            code = line.split("//", 1)[0]
            if pattern.search(code):
                return first_line + offset
    return first_line
