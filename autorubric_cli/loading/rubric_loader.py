"""Load and validate a rubric file; every error names file, line and key.

Our YAML shape (docs/reference/rubric-file.md) and the `autorubric` library's rubric shapes (a
top-level list,
`sections:`, `rubric:`; see `library_format`) are accepted.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from autorubric_cli.core.rubric import Rubric
from autorubric_cli.errors import InputError, ValueAt, unknown_name_message
from autorubric_cli.loading.library_format import library_rubric
from autorubric_cli.loading.yaml_lines import dotted, line_for, load_yaml_with_lines

MAX_RUBRIC_BYTES = 16 * 1024 * 1024


def read_text_file(path: Path, what: str, max_bytes: int) -> str:
    source = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{what} file not found", path=source) from None
    except IsADirectoryError:
        raise InputError(f"{what} path is a directory, not a file", path=source) from None
    except OSError as exc:
        raise InputError(f"cannot read {what} file: {exc.strerror}", path=source) from None
    if len(data) > max_bytes:
        raise InputError(f"{what} file is larger than {max_bytes} bytes", path=source)
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InputError(f"{what} file is binary (contains NUL bytes)", path=source, line=line)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"{what} file is not UTF-8 text", path=source, line=line) from None


def load_rubric(path: str | Path) -> Rubric:
    path = Path(path)
    text = read_text_file(path, "rubric", MAX_RUBRIC_BYTES)
    return parse_rubric(text, str(path))


def parse_rubric(text: str, source: str) -> Rubric:
    raw, lines = load_yaml_with_lines(text, source)
    if raw is None:
        raise InputError("rubric file is empty; it needs a `criteria:` list", path=source, line=1)
    data, remap = library_rubric(raw)
    if not isinstance(data, dict):
        raise InputError("a rubric must be a YAML mapping with `criteria:`", path=source, line=1)
    try:
        return Rubric.model_validate(data)
    except ValidationError as exc:
        raise _located(exc, data, lines, source, remap) from None


def _located(
    exc: ValidationError,
    data: dict[str, Any],
    lines: dict[Any, int],
    source: str,
    remap: Callable[[tuple[Any, ...]], tuple[Any, ...]],
) -> InputError:
    message, loc = validation_problem(exc, data, Rubric)
    loc = remap(_refine_duplicate(loc, message, data))
    return InputError(message, path=source, line=line_for(loc, lines), key=dotted(loc))


def validation_problem(
    exc: ValidationError, data: Any, model: type[BaseModel]
) -> tuple[str, tuple[Any, ...]]:
    """(one-line message, path in `data`) of the first error of validating `data` as `model`:
    an unknown key with the closest known one, a missing key at its place, a model-level
    message at the key it names."""
    error = _first_error(exc)
    raw_loc = tuple(error["loc"])
    cause = (error.get("ctx") or {}).get("error")
    if isinstance(cause, ValueAt):  # a model-level check that names the key it is about
        raw_loc = cause.loc
    loc = _data_path(raw_loc, data)
    message = error["msg"].removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        message = unknown_key_message(str(raw_loc[-1]), allowed_keys(raw_loc[:-1], model))
    elif error["type"] == "missing":
        message = f"missing required key {raw_loc[-1]!r}"
        loc = (*loc, raw_loc[-1])
    return message, _refine_key(loc, message, data)


def _first_error(exc: ValidationError) -> Any:
    """The first error, except that a misspelt key explains a missing one beside it."""
    errors = exc.errors()
    first = errors[0]
    if first["type"] == "missing":
        parent = tuple(first["loc"])[:-1]
        for error in errors:
            if error["type"] == "extra_forbidden" and tuple(error["loc"])[:-1] == parent:
                return error
    return first


def unknown_key_message(key: str, allowed: list[str]) -> str:
    if difflib.get_close_matches(key, allowed, n=1, cutoff=0.6):
        return unknown_name_message("key", key, allowed)
    return f"unknown key {key!r}"


def allowed_keys(loc: tuple[Any, ...], root: type[BaseModel] = Rubric) -> list[str]:
    """The keys the model at a pydantic location accepts (walking `root`'s field types)."""
    model: type[BaseModel] | None = root
    for part in loc:
        if model is None or isinstance(part, int):
            continue
        field = model.model_fields.get(str(part))
        if field is not None:
            model = _model_in(field.annotation)
    return list(model.model_fields) if model is not None else []


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _data_path(loc: tuple[Any, ...], data: Any) -> tuple[Any, ...]:
    """The longest prefix of a pydantic location that exists in the data (drops union tags)."""
    node, kept = data, []
    for part in loc:
        in_dict = isinstance(node, dict) and part in node
        in_list = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if in_dict or in_list:
            node = node[part]
        else:
            break
        kept.append(part)
    return tuple(kept)


def _refine_duplicate(loc: tuple[Any, ...], message: str, data: dict[str, Any]) -> tuple[Any, ...]:
    """Model-level duplicate checks report no location; point at the second occurrence."""
    if "duplicate criterion name" in message:
        names: list[Any] = [
            c.get("name") if isinstance(c, dict) else None for c in data["criteria"]
        ]
        names = [n if n else f"c{i + 1}" for i, n in enumerate(names)]
        for i, name in enumerate(names):
            if name in names[:i]:
                return ("criteria", i, "name")
    if "duplicate judge id" in message:
        judges = data.get("grader", {}).get("judges", [])
        ids = [j.get("id") or j.get("model") for j in judges if isinstance(j, dict)]
        for i, judge_id in enumerate(ids):
            if judge_id in ids[:i]:
                return ("grader", "judges", i)
    return loc


def _refine_key(loc: tuple[Any, ...], message: str, data: Any) -> tuple[Any, ...]:
    """A model-level message that names one of the object's keys points at that key."""
    node = data
    for part in loc:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return loc
    if not isinstance(node, dict):
        return loc
    words = message.replace("`", " ").replace(",", " ").split()
    return next(((*loc, w) for w in words if w in node), loc)
