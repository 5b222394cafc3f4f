"""YAML loading that remembers the line of every key, for one-line error messages."""

from __future__ import annotations

from typing import Any

import yaml

from autorubric_cli.errors import InputError

Path = tuple[str | int, ...]


MAX_DEPTH = 100
MAX_NODES = 1_000_000
MERGE_TAG = "tag:yaml.org,2002:merge"
SCALAR_ERRORS = (yaml.YAMLError, ValueError, TypeError, OverflowError)


def load_yaml_with_lines(text: str, source: str) -> tuple[Any, dict[Path, int]]:
    """Parse YAML into plain Python data plus a map from key path to 1-based line.

    Merge keys (`<<: *base`) are applied (explicit keys win). Nesting deeper than MAX_DEPTH,
    an alias that contains itself, and more than MAX_NODES values after expanding aliases are
    InputErrors, so no YAML input can exhaust the stack or the memory.
    """
    _check_flow_depth(text, source)
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"YAML syntax error: {problem}", path=source, line=line) from None
    except RecursionError:
        raise InputError(f"YAML nesting is deeper than {MAX_DEPTH} levels", path=source) from None
    lines: dict[Path, int] = {}
    if node is None:
        return None, lines
    return _Builder(source, lines).build(node, (), ()), lines


def _check_flow_depth(text: str, source: str) -> None:
    """Reject deeply nested `[`/`{` before PyYAML, which slows down quadratically on them.

    Brackets inside quotes count too, so text with more than MAX_DEPTH unclosed brackets in a
    row is refused even when quoted; no rubric needs that.
    """
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    depth = 0
    for line_number, line in enumerate(text.splitlines(), start=1):
        for char in line:
            if char in "[{":
                depth += 1
                if depth > MAX_DEPTH:
                    raise InputError(
                        f"YAML nesting is deeper than {MAX_DEPTH} levels",
                        path=source,
                        line=line_number,
                    )
            elif char in "]}":
                depth = max(depth - 1, 0)


class _Builder:
    def __init__(self, source: str, lines: dict[Path, int]) -> None:
        self.source, self.lines, self.nodes = source, lines, 0

    def error(self, message: str, node: yaml.Node, path: Path = ()) -> InputError:
        return InputError(
            message, path=self.source, line=node.start_mark.line + 1, key=_dotted(path)
        )

    def build(self, node: yaml.Node, path: Path, ancestors: tuple[int, ...]) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self.error(f"YAML expands to more than {MAX_NODES} values (alias bomb?)", node)
        if len(ancestors) > MAX_DEPTH:
            raise self.error(f"YAML nesting is deeper than {MAX_DEPTH} levels", node, path)
        if id(node) in ancestors:
            raise self.error("recursive YAML alias (a value that contains itself)", node, path)
        self.lines.setdefault(path, node.start_mark.line + 1)
        inner = (*ancestors, id(node))
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, path, inner)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*path, i), inner) for i, item in enumerate(node.value)]
        try:
            return yaml.SafeLoader(stream="").construct_object(node)
        except SCALAR_ERRORS as exc:
            raise self.error(f"invalid value: {' '.join(str(exc).split())}", node, path) from None

    def mapping(self, node: yaml.MappingNode, path: Path, ancestors: tuple[int, ...]) -> Any:
        out: dict[Any, Any] = {}
        merges: list[yaml.Node] = []
        for key_node, value_node in node.value:
            if key_node.tag == MERGE_TAG:
                merges.append(value_node)
                continue
            key = self.key(key_node, path)
            if key in out:
                raise self.error(f"duplicate key {key!r}", key_node, (*path, key))
            self.lines[(*path, key)] = key_node.start_mark.line + 1
            out[key] = self.build(value_node, (*path, key), ancestors)
        for merge in merges:
            sources = merge.value if isinstance(merge, yaml.SequenceNode) else [merge]
            for source_node in sources:
                if not isinstance(source_node, yaml.MappingNode):
                    raise self.error("`<<` merges only mappings", source_node, path)
                merged = self.build(source_node, path, ancestors)
                for key, value in merged.items():
                    out.setdefault(key, value)
        return out

    def key(self, key_node: yaml.Node, path: Path) -> str | int:
        if not isinstance(key_node, yaml.ScalarNode):
            raise self.error("mapping keys must be strings", key_node, path)
        try:
            key = yaml.SafeLoader(stream="").construct_object(key_node)
        except SCALAR_ERRORS:
            key = None
        if isinstance(key, bool) or not isinstance(key, str | int):
            raise self.error("mapping keys must be strings", key_node, path)
        return key


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
