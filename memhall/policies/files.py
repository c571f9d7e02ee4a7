"""A policy directory: reading every file of it (schema, rules, roles.yaml, cases, signers); creating one."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from memhall.domains.errors import InvalidValueError, PolicyConfigError

SCHEMA_FILE = "schema.cedarschema"
ROLES_FILE = "roles.yaml"
ALLOWED_SIGNERS_FILE = "allowed_signers"
TESTS_DIR = "tests"
_MAX_DEPTH = 8


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
class PolicyFile:
    """One file of a policy directory, as bytes, named by its `/`-separated path inside it."""

    path: str
    data: bytes


@dataclass(frozen=True)
class PolicySource:
    """Everything a policy directory holds, read once, nothing parsed yet.

    `files` is every file of the directory, the ones parsed here and any
    other, so that the policy's digest covers exactly the bytes that were read.
    """

    root: str
    schema: SourceFile
    rules: tuple[SourceFile, ...]
    roles: SourceFile
    tests: tuple[SourceFile, ...]
    files: tuple[PolicyFile, ...]
    allowed_signers: SourceFile | None = None


def packaged_defaults() -> Traversable:
    return files("memhall.policies").joinpath("defaults")


def read_policy_dir(directory: Path | Traversable | None) -> PolicySource:
    """Read a policy directory; None reads the defaults shipped with memhall.

    Names starting with `.` are neither read nor hashed: `.git`, `.DS_Store`
    and editor swap files are not policy, and skipping them here as well as in
    the digest keeps "what is hashed" equal to "what is in force".
    """
    root = packaged_defaults() if directory is None else directory
    if not root.is_dir():
        raise PolicyConfigError(f"{root}: no such policy directory")
    return policy_source(str(root), {path: blob for path, _, blob in _walk(root, "")})


def policy_source(root: str, files: Mapping[str, bytes]) -> PolicySource:
    """A policy directory from its files (path inside it -> bytes): read from
    disk, or as an adoption recorded them in the log."""
    found = sorted(files.items())
    top = [path for path, _ in found if "/" not in path]
    for required in (SCHEMA_FILE, ROLES_FILE):
        if required not in files:
            raise PolicyConfigError(f"{root}: missing {required}")

    def text(path: str) -> SourceFile:
        return _text(f"{root}/{path}", files[path])

    rules = tuple(text(path) for path in top if path.endswith(".cedar"))
    if not rules:
        raise PolicyConfigError(f"{root}: no *.cedar rule files")
    tests = tuple(
        text(path) for path, _ in found
        if path.startswith(f"{TESTS_DIR}/") and path.count("/") == 1 and path.endswith(".yaml")
    )
    return PolicySource(
        root=root,
        schema=text(SCHEMA_FILE),
        rules=rules,
        roles=text(ROLES_FILE),
        tests=tests,
        files=tuple(PolicyFile(path=path, data=blob) for path, blob in found),
        allowed_signers=text(ALLOWED_SIGNERS_FILE) if ALLOWED_SIGNERS_FILE in files else None,
    )


def _walk(directory: Traversable, prefix: str, depth: int = 0) -> Iterator[tuple[str, Traversable, bytes]]:
    if depth > _MAX_DEPTH:
        raise PolicyConfigError(f"{directory}: policy directory nested too deep (a symlink loop?)")
    for entry in directory.iterdir():
        if entry.name.startswith("."):
            continue
        path = f"{prefix}{entry.name}"
        if entry.is_dir():
            yield from _walk(entry, f"{path}/", depth + 1)
        elif entry.is_file():
            try:
                yield path, entry, entry.read_bytes()
            except OSError as exc:
                raise PolicyConfigError(f"{entry}: cannot read: {exc}") from None


def _text(name: str, data: bytes) -> SourceFile:
    """Decode as the loader always has: UTF-8, universal newlines."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PolicyConfigError(f"{name}: cannot read: {exc}") from None
    return SourceFile(name=name, text=text.replace("\r\n", "\n").replace("\r", "\n"))


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
    """Copy every file of the default policy to `target`, byte for byte, so the
    copy has the defaults' digest."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InvalidValueError(f"{target} already exists; not overwriting a policy directory")
    created: list[Path] = []
    for file in read_policy_dir(None).files:
        path = target.joinpath(*file.path.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(file.data)
        created.append(path)
    return created
