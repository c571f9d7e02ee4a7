"""Role bindings: who holds which role in which domain (roles.yaml)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum

from pydantic import BaseModel, ConfigDict

from memhall.domains.errors import InvalidValueError
from memhall.domains.values import PrincipalType, domain_name, principal_name
from memhall.policies.files import SourceFile
from memhall.policies.yamlfile import Lines, Loc, config_error, load_yaml, validated


class Role(str, Enum):
    SYSTEM_CHAIR = "system_chair"
    SESSION_CHAIR = "session_chair"
    SEAT = "seat"
    RATIFY_OWNER = "ratify_owner"

    @property
    def attribute(self) -> str:
        """The principal attribute rules read: the set of domains holding this role."""
        return f"{self.value}_in"


class _DomainRoles(BaseModel):
    model_config = ConfigDict(extra="forbid")

    system_chair: list[str] = []
    session_chair: list[str] = []
    seat: list[str] = []
    ratify_owner: list[str] = []
    #: may act as system chair, but only while the ratify owner has handed the chair over
    backup_system_chair: list[str] = []


class _RolesFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    domains: list[str]
    principals: dict[str, PrincipalType]
    roles: dict[str, _DomainRoles] = {}


@dataclass(frozen=True)
class Roles:
    """Declared domains and principals, and the roles each principal holds per domain."""

    principals: Mapping[str, PrincipalType] = field(default_factory=dict)
    domains: tuple[str, ...] = ()
    bindings: Mapping[tuple[str, str], frozenset[Role]] = field(default_factory=dict)
    #: domain -> who may take over its system chair by a handover (not a role until then)
    backups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def of(self, principal: str, domain: str) -> frozenset[Role]:
        return self.bindings.get((principal, domain), frozenset())

    def domains_where(self, principal: str, role: Role) -> frozenset[str]:
        return frozenset(d for (p, d), roles in self.bindings.items() if p == principal and role in roles)


def load_roles(file: SourceFile) -> Roles:
    data, lines = load_yaml(file)
    if data is None:
        raise config_error(file, lines, (), "empty roles file: declare domains, principals and roles")
    model = validated(_RolesFile, file, data, lines)
    for index, name in enumerate(model.domains):
        _check_name(domain_name, name, file, lines, ("domains", index))
    for name in model.principals:
        _check_name(principal_name, name, file, lines, ("principals", name))
    bindings: dict[tuple[str, str], set[Role]] = {}
    for domain, holders in model.roles.items():
        if domain not in model.domains:
            raise config_error(file, lines, ("roles", domain), f"domain {domain!r} is not declared under domains")
        for role in Role:
            for index, principal in enumerate(getattr(holders, role.value)):
                loc = ("roles", domain, role.value, index)
                kind = model.principals.get(principal)
                if kind is None:
                    raise config_error(
                        file, lines, loc, f"principal {principal!r} is not declared under principals"
                    )
                if role is Role.RATIFY_OWNER and kind is not PrincipalType.HUMAN:
                    raise config_error(
                        file, lines, loc, f"ratify_owner must be a human; {principal!r} is an {kind.value}"
                    )
                bindings.setdefault((principal, domain), set()).add(role)
        for index, principal in enumerate(holders.backup_system_chair):
            if principal not in model.principals:
                raise config_error(file, lines, ("roles", domain, "backup_system_chair", index),
                                   f"principal {principal!r} is not declared under principals")
    return Roles(
        principals=dict(model.principals),
        domains=tuple(model.domains),
        bindings={key: frozenset(roles) for key, roles in bindings.items()},
        backups={domain: tuple(holders.backup_system_chair) for domain, holders in model.roles.items()
                 if holders.backup_system_chair},
    )


def _check_name(check: Callable[[str], str], name: str, file: SourceFile, lines: Lines, loc: Loc) -> None:
    try:
        check(name)
    except InvalidValueError as exc:
        raise config_error(file, lines, loc, str(exc)) from None
