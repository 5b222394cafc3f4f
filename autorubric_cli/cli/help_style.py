"""Plain `--help`: metavars users read (RUBRIC, N, PATH, FORMAT), never Python types.

Typer 0.2x prints `<bool>`, `<list[str]>`, `<int range> [x>=0]` and usage lines such as
`{rubric} {dataset}`, and wraps long choice lists mid-word. Every command is built with
PlainHelpCommand, which gives each parameter a plain metavar and moves its allowed values
(choices, ranges) into the help text, where they wrap between words.
"""

from __future__ import annotations

from typing import Any, get_args

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

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


class PlainHelpCommand(TyperCommand):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            plain(param)

    def get_help_option(self, ctx: Any) -> TyperOption | None:
        return plain_help_option(super().get_help_option(ctx))


class PlainHelpGroup(TyperGroup):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            plain(param)

    def get_help_option(self, ctx: Any) -> TyperOption | None:
        return plain_help_option(super().get_help_option(ctx))
