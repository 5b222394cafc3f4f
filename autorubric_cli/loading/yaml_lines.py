"""YAML loading that remembers the line of every key, for one-line error messages."""

from __future__ import annotations

from typing import Any

import yaml

from autorubric_cli.errors import InputError

Path = tuple[str | int, ...]


def load_yaml_with_lines(text: str, source: str) -> tuple[Any, dict[Path, int]]:
    """Parse YAML into plain Python data plus a map from key path to 1-based line."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"YAML syntax error: {problem}", path=source, line=line) from None
    lines: dict[Path, int] = {}
    if node is None:
        return None, lines
    return _construct(node, (), lines, source), lines


def _construct(node: yaml.Node, path: Path, lines: dict[Path, int], source: str) -> Any:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = yaml.SafeLoader(stream="").construct_object(key_node)
            if not isinstance(key, str | int):
                raise InputError(
                    "mapping keys must be strings", path=source, line=key_node.start_mark.line + 1
                )
            if key in out:
                raise InputError(
                    f"duplicate key {key!r}",
                    path=source,
                    line=key_node.start_mark.line + 1,
                    key=_dotted((*path, key)),
                )
            lines[(*path, key)] = key_node.start_mark.line + 1
            out[key] = _construct(value_node, (*path, key), lines, source)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(item, (*path, i), lines, source) for i, item in enumerate(node.value)]
    try:
        return yaml.SafeLoader(stream="").construct_object(node)
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        raise InputError(
            f"invalid value: {exc}",
            path=source,
            line=node.start_mark.line + 1,
            key=_dotted(path),
        ) from None


def line_for(path: Path, lines: dict[Path, int]) -> int | None:
    """The line of the longest known prefix of `path`."""
    for end in range(len(path), -1, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


def _dotted(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


dotted = _dotted
