"""A policy directory: reading its schema, rules, roles.yaml and cases; creating one."""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from memhall.domains.errors import InvalidValueError, PolicyConfigError

SCHEMA_FILE = "schema.cedarschema"
ROLES_FILE = "roles.yaml"
TESTS_DIR = "tests"
#: the policy directory a project keeps beside its code
POLICY_DIR = "memhall-policy"


@dataclass(frozen=True)
class SourceFile:
    """A file's text and the name errors should point at."""

    name: str
    text: str

    @property
    def basename(self) -> str:
        return self.name.replace("\\", "/").rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Statement:
    """One Cedar policy as written, with the line it starts on."""

    file: SourceFile
    line: int
    text: str

    @property
    def where(self) -> str:
        return f"{self.file.name}:{self.line}"


@dataclass(frozen=True)
class PolicySource:
    """Everything a policy directory holds, read once, nothing parsed yet."""

    root: str
    schema: SourceFile
    rules: tuple[SourceFile, ...]
    roles: SourceFile
    tests: tuple[SourceFile, ...]


def packaged_defaults() -> Traversable:
    return files("memhall.policies").joinpath("defaults")


def locate_policy_dir(arg: str | None, cwd: Path) -> Path | None:
    """--policy / MEMHALL_POLICY, else ./memhall-policy/ if present, else None (the defaults)."""
    if arg:
        path = Path(arg)
        if not path.is_dir():
            raise InvalidValueError(f"policy directory not found: {path}")
        return path
    local = cwd / POLICY_DIR
    return local if local.is_dir() else None


def read_policy_dir(directory: Path | Traversable | None) -> PolicySource:
    """Read a policy directory; None reads the defaults shipped with memhall."""
    root = packaged_defaults() if directory is None else directory
    if not root.is_dir():
        raise PolicyConfigError(f"{root}: no such policy directory")
    names = {entry.name: entry for entry in root.iterdir() if entry.is_file()}
    for required in (SCHEMA_FILE, ROLES_FILE):
        if required not in names:
            raise PolicyConfigError(f"{root}: missing {required}")
    rules = tuple(_read(names[n]) for n in sorted(names) if n.endswith(".cedar"))
    if not rules:
        raise PolicyConfigError(f"{root}: no *.cedar rule files")
    tests_dir = root.joinpath(TESTS_DIR)
    tests: tuple[SourceFile, ...] = ()
    if tests_dir.is_dir():
        cases = sorted(
            (e for e in tests_dir.iterdir() if e.is_file() and e.name.endswith(".yaml")),
            key=lambda e: e.name,
        )
        tests = tuple(_read(e) for e in cases)
    return PolicySource(
        root=str(root),
        schema=_read(names[SCHEMA_FILE]),
        rules=rules,
        roles=_read(names[ROLES_FILE]),
        tests=tests,
    )


def _read(entry: Traversable) -> SourceFile:
    try:
        return SourceFile(name=str(entry), text=entry.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyConfigError(f"{entry}: cannot read: {exc}") from None


def split_statements(file: SourceFile) -> list[Statement]:
    """Cut a .cedar file at each top-level `;`, so errors can name a line.

    Cedar's parser reports what is wrong but not where; parsing one statement
    at a time tells us which policy, and so which line, is broken.
    """
    statements: list[Statement] = []
    text = file.text
    first_code: int | None = None
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if char == '"':
            first_code = i if first_code is None else first_code
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if not char.isspace() and first_code is None:
            first_code = i
        if char == ";":
            statements.append(_statement(file, i + 1, i if first_code is None else first_code))
            first_code = None
        i += 1
    if first_code is not None:
        # Trailing text without `;`: hand it on so that parsing reports it.
        statements.append(_statement(file, n, first_code))
    return statements


def _statement(file: SourceFile, end: int, first_code: int) -> Statement:
    line = file.text.count("\n", 0, first_code) + 1
    return Statement(file=file, line=line, text=file.text[first_code:end])


def init_policy_dir(target: Path) -> list[Path]:
    """Copy the default policy (schema, rules, roles.yaml, tests) to `target`."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InvalidValueError(f"{target} already exists; not overwriting a policy directory")
    defaults = packaged_defaults()
    created: list[Path] = []
    for sub in ("", "tests"):
        source_dir = defaults.joinpath(sub) if sub else defaults
        destination = target / sub if sub else target
        destination.mkdir(parents=True, exist_ok=True)
        for entry in sorted(source_dir.iterdir(), key=lambda e: e.name):
            if entry.is_file() and entry.name.endswith((".cedar", ".cedarschema", ".yaml")):
                path = destination / entry.name
                path.write_text(entry.read_text(encoding="utf-8"), encoding="utf-8")
                created.append(path)
    return created
