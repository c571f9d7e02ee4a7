"""YAML policy files validated by pydantic, with errors that name file and line."""

from __future__ import annotations

from typing import TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from memhall.domains.errors import PolicyConfigError
from memhall.policies.files import SourceFile

#: libyaml's parser where PyYAML was built with it (a policy load parsed its files in pure
#: Python twice: a quarter of the load, ~60 ms of every command that loads the policy)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

Loc = tuple[str | int, ...]
Lines = dict[Loc, int]
M = TypeVar("M", bound=BaseModel)


def load_yaml(file: SourceFile) -> tuple[object, Lines]:
    """Parse YAML safely, remembering the line of every key and list item."""
    loader = _LOADER(file.text)
    try:
        node = loader.get_single_node()  # parsed once: the data is built from the same nodes
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise PolicyConfigError(f"{file.name}:{line}: invalid YAML: {problem}") from None
    finally:
        loader.dispose()
    lines: Lines = {(): 1}
    if node is not None:
        _record(file, node, (), lines)
    return data, lines


def _record(file: SourceFile, node: yaml.Node, path: Loc, lines: Lines) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise PolicyConfigError(f"{file.name}:{line}: duplicate key {key!r}")
            seen.add(key)
            lines[(*path, key)] = line
            _record(file, value_node, (*path, key), lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            lines[(*path, index)] = item.start_mark.line + 1
            _record(file, item, (*path, index), lines)


def line_of(lines: Lines, loc: Loc) -> int:
    """The line of `loc`, or of its nearest ancestor that has one."""
    for end in range(len(loc), -1, -1):
        if loc[:end] in lines:
            return lines[loc[:end]]
    return 1


def config_error(file: SourceFile, lines: Lines, loc: Loc, message: str) -> PolicyConfigError:
    return PolicyConfigError(f"{file.name}:{line_of(lines, loc)}: {message}")


def validated(model: type[M], file: SourceFile, data: object, lines: Lines) -> M:
    """Validate `data` with `model`; the first error becomes a PolicyConfigError."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc: Loc = tuple(error["loc"])
        where = ".".join(str(part) for part in loc) or "top level"
        if error["type"] == "extra_forbidden":
            message = f"unknown key {loc[-1]!r} in {'.'.join(map(str, loc[:-1])) or 'top level'}"
            allowed = ", ".join(_fields_at(model, loc[:-1]))
            if allowed:
                message += f" (expected one of {allowed})"
        else:
            message = f"{where}: {error['msg']}"
        raise config_error(file, lines, loc, message) from None


def _fields_at(model: type[BaseModel], loc: Loc) -> list[str]:
    """Field names of the model that sits at `loc`, to suggest what was meant."""
    current: type[BaseModel] | None = model
    for part in loc:
        if current is None or isinstance(part, int):
            continue
        field = current.model_fields.get(part)
        if field is None:
            continue  # a dict key or list index: keep looking one level down
        annotation = field.annotation
        current = _model_in(annotation)
    return list(current.model_fields) if current is not None else []


def _model_in(annotation: object) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_in(arg)
        if found is not None:
            return found
    return None
