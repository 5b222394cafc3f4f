"""Plain `--help`: metavars users read (RUBRIC, N, PATH, FORMAT), never Python types.

Typer 0.2x prints `<bool>`, `<list[str]>`, `<int range> [x>=0]` and usage lines such as
`{rubric} {dataset}`, and wraps long choice lists mid-word. Every command is built with
PlainHelpCommand, which gives each parameter a plain metavar and moves its allowed values
(choices, ranges) into the help text, where they wrap between words.

Usage errors (an unknown flag, a bad value) are one line and exit 2, like every other error
(`autorubric: error: --limit: must be at least 1 (see autorubric run --help)`), never Click's
box with the validation library's words ("Input should be greater than or equal to 1").
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, get_args

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

# Click's exceptions, or the copy of Click that newer Typer versions vendor (typer._click)
CLICK_ERRORS = importlib.import_module(typer.BadParameter.__module__)

METAVAR_OF_TYPE: dict[Any, str] = {int: "N", float: "X"}


class PlainArgument(TyperArgument):
    def display_type_rich(self, ctx: Any) -> str | None:
        return None  # the name column already says RUBRIC; no `<path>` beside it

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        name = name if self.required else f"[{name}]"
        return name + ("..." if self.nargs != 1 else "")


class PlainOption(TyperOption):
    def display_type_rich(self, ctx: Any) -> str | None:
        return self.metavar or None

    def _get_number_range_help_str(self) -> str | None:
        return None  # said in words in the help text (plain())


def plain(param: object) -> None:
    """Give `param` a plain metavar and say its allowed values in its help."""
    if isinstance(param, TyperArgument):
        param.__class__ = PlainArgument
        if param.metavar is None:
            param.metavar = (param.name or "").upper()
        return
    if not isinstance(param, TyperOption):
        return
    param.__class__ = PlainOption
    allowed = allowed_values(param)
    if allowed and allowed not in (param.help or ""):
        param.help = f"{(param.help or '').rstrip()} {allowed}".strip()
    if param.is_flag or param.count:
        param.metavar = ""
    elif param.metavar is None:
        param.metavar = default_metavar(param)


def allowed_values(param: TyperOption) -> str:
    desc = param.type_descriptor
    if desc.is_choice:
        return (
            "One of: "
            + ", ".join(str(c.value if hasattr(c, "value") else c) for c in desc.choices or ())
            + "."
        )
    low, high = getattr(param, "min", None), getattr(param, "max", None)
    if low is not None and high is not None:
        return f"From {low} to {high}."
    if low is not None:
        return f"At least {low}."
    if high is not None:
        return f"At most {high}."
    return ""


def default_metavar(param: TyperOption) -> str:
    desc = param.type_descriptor
    if desc.is_path:
        return "PATH"
    kind = desc.annotation
    if desc.is_list:
        (kind,) = get_args(kind) or (str,)
    if not desc.is_choice and kind in METAVAR_OF_TYPE:
        return METAVAR_OF_TYPE[kind]
    return (param.name or "value").upper()


def plain_help_option(option: TyperOption | None) -> TyperOption | None:
    if option is not None:
        option.metavar = ""  # a flag: no `<bool>` beside it
    return option


KIND_OF_METAVAR = {"N": "a whole number", "X": "a number"}


def usage_message(exc: Any) -> str:
    """The one line for a usage error: the flag, then what it accepts."""
    param = exc.param if isinstance(exc, typer.BadParameter) else None
    if param is None or isinstance(exc, CLICK_ERRORS.MissingParameter):
        return " ".join(exc.format_message().split()).rstrip(".")
    name = (
        max(param.opts, key=len)
        if isinstance(param, TyperOption)
        else (param.metavar or str(param.name)).upper()
    )
    allowed = allowed_values(param) if isinstance(param, TyperOption) else ""
    if allowed.startswith("One of: "):
        return f"{name}: must be one of: {allowed.removeprefix('One of: ').rstrip('.')}"
    kind = KIND_OF_METAVAR.get(param.metavar or "")
    if kind is None:
        return f"{name}: {' '.join(exc.message.split())}"
    bound = f", {allowed[0].lower()}{allowed[1:].rstrip('.')}" if allowed else ""
    return f"{name}: must be {kind}{bound}"


def one_line_usage(method: Any) -> Any:
    """Wrap a command's `make_context` (or a group's `resolve_command`): a usage error prints
    one line and exits 2."""

    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except CLICK_ERRORS.NoArgsIsHelpError:
            raise  # `autorubric` alone prints the help
        except CLICK_ERRORS.UsageError as exc:
            path = ["autorubric", *exc.ctx.command_path.split()[1:]] if exc.ctx else []
            see = f" (see {' '.join(path)} --help)" if path else ""
            print(f"autorubric: error: {usage_message(exc)}{see}", file=sys.stderr)
            raise typer.Exit(2) from None

    return wrapped


class PlainHelpCommand(TyperCommand):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            plain(param)

    def get_help_option(self, ctx: Any) -> TyperOption | None:
        return plain_help_option(super().get_help_option(ctx))

    make_context = one_line_usage(TyperCommand.make_context)


class PlainHelpGroup(TyperGroup):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            plain(param)

    def get_help_option(self, ctx: Any) -> TyperOption | None:
        return plain_help_option(super().get_help_option(ctx))

    make_context = one_line_usage(TyperGroup.make_context)
    resolve_command = one_line_usage(TyperGroup.resolve_command)
