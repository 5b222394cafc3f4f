"""Shell examples of the docs: split into commands, checked against the real CLI, and run.

Checking parses every `autorubric` command with the app's own parser (unknown flags, wrong
argument counts, bad choices and numbers fail) and every `pip install -e .[EXTRA]` against
pyproject's extras; a `pip install` of the package from an index fails (it is not published).
Running executes `autorubric` in-process through `tests.support.cli.cli`, `export` and `cd`
on the page's working directory; the install steps of a fresh machine are checked and skipped.
Shell variables (`$X`, `${X}`, `$((...))`, `${{ ... }}`) stand for `1` when checked.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import typer

from autorubric_cli.cli.app import app
from tests.docs.doc_blocks import ROOT
from tests.support.cli import cli

VARIABLE = re.compile(r"\$\(\([^)]*\)\)|\$\{\{[^}]*\}\}|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*")
SEPARATORS = {"&&", ";", "||", "|", "&"}
SETUP_PROGRAMS = {"python3", "python", ".", "source", "pip", "pip3"}
FILE_PROGRAMS = {"cat", "ls", "head"}


class ExampleError(AssertionError):
    """A docs example that does not work as written."""


@dataclass(frozen=True)
class Command:
    argv: list[str]
    piped: bool  # part of a pipeline (its output goes to, or comes from, another program)


def logical_lines(script: str) -> Iterator[str]:
    """Lines with backslash continuations joined, comments and blank lines dropped."""
    buffer = ""
    for raw in script.splitlines():
        line = raw.rstrip()
        if line.endswith("\\"):
            buffer += line[:-1] + " "
            continue
        line, buffer = buffer + line, ""
        if line.strip() and not line.lstrip().startswith("#"):
            yield line


def commands(script: str, *, checking: bool) -> list[Command]:
    """The simple commands of a script, in order; variables replaced by `1` when checking."""
    found: list[Command] = []
    for line in logical_lines(script):
        text = VARIABLE.sub("1", line) if checking else line
        lexer = shlex.shlex(text, posix=True, punctuation_chars="&|;")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        argv: list[str] = []
        piped = False
        for token in lexer:
            if token in SEPARATORS:
                if argv:
                    found.append(Command(argv, piped or token == "|"))
                piped, argv = token == "|", []
            elif token in {">", ">>", "<"} or token.startswith((">", "<")):
                raise ExampleError(f"redirection is not supported in examples: {line!r}")
            else:
                argv.append(token)
        if argv:
            found.append(Command(argv, piped))
    return found


def program(argv: list[str]) -> str:
    return argv[0]


def pending(context: object) -> list[str]:
    """The words a group's parser left for its subcommand (click keeps them in two lists)."""
    protected = getattr(context, "_protected_args", None) or getattr(context, "protected_args", [])
    return [*protected, *getattr(context, "args", [])]


def check_autorubric(argv: list[str]) -> None:
    """Parse `autorubric ARGS` with the app's own parser, as the console script would."""
    root = typer.main.get_command(app)
    try:
        context = root.make_context("autorubric", list(argv[1:]), resilient_parsing=False)
        command, names = root, pending(context)
        path = ["autorubric"]
        while hasattr(command, "commands") and names:
            name, sub, rest = command.resolve_command(context, names)
            if sub is None:
                raise ExampleError(f"no such command {name!r}")
            path.append(str(name))
            context = sub.make_context(str(name), rest, parent=context, resilient_parsing=False)
            command, names = sub, pending(context)
        if hasattr(command, "commands") and not names:
            raise ExampleError(f"`{' '.join(path)}` needs a subcommand")
    except typer.Exit as done:
        if done.exit_code == 0:
            return  # --help / --version: valid
        # a usage error: the app printed its one line (cli/help_style.py) and exits 2
        raise ExampleError(f"`{shlex.join(argv)}`: usage error (exit {done.exit_code})") from None
    except ExampleError:
        raise
    except Exception as exc:  # the parser's own usage errors
        error = exc
        message = error.format_message() if hasattr(error, "format_message") else str(error)
        raise ExampleError(f"`{shlex.join(argv)}`: {message}") from None


def check_setup(argv: list[str]) -> None:
    """The install steps of a fresh machine: a venv, its activation, pip from the checkout."""
    name = program(argv)
    if name in {".", "source"}:
        if len(argv) != 2 or not argv[1].endswith("bin/activate"):
            raise ExampleError(f"unexpected activation: {shlex.join(argv)}")
        return
    pip_args = (
        argv[1:] if name.startswith("pip") else argv[3:] if argv[1:3] == ["-m", "pip"] else None
    )
    if pip_args is None:
        if argv[1:3] != ["-m", "venv"]:
            raise ExampleError(f"unexpected python command: {shlex.join(argv)}")
        return
    if not pip_args or pip_args[0] != "install":
        raise ExampleError(f"unexpected pip command: {shlex.join(argv)}")
    for target in pip_args[1:]:
        if target.startswith("-") and target != "-e":
            continue
        if target.startswith("autorubric"):
            raise ExampleError(
                f"`{shlex.join(argv)}`: autorubric is not published; install the checkout"
            )
        match = re.fullmatch(r"\.(?:\[([a-z0-9,_-]+)\])?", target)
        if target != "-e" and match and match.group(1):
            check_extras(match.group(1).split(","))


def check_extras(extras: list[str]) -> None:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        declared = tomllib.load(handle)["project"]["optional-dependencies"]
    for extra in extras:
        if extra not in declared:
            raise ExampleError(f"pyproject.toml has no extra {extra!r}")


def check_script(script: str) -> None:
    """Check every command of a script that will not be run."""
    for command in commands(script, checking=True):
        name = program(command.argv)
        if name == "autorubric":
            check_autorubric(command.argv)
        elif name in SETUP_PROGRAMS:
            check_setup(command.argv)


class ShellSession:
    """Runs the commands of a page's shell examples, one page in one working directory."""

    def __init__(self, workdir: Path, env: dict[str, str], replace: dict[str, str]) -> None:
        self.workdir = workdir
        self.cwd = workdir
        self.env = env
        self.replace = replace
        self.printed = ""  # what the last shell block's commands printed, stdout and stderr

    def run(self, script: str, expect_exit: int, where: str) -> None:
        for text, value in self.replace.items():
            script = script.replace(text, value)
        check_script(script)
        steps = commands(script, checking=False)
        self.printed = ""
        runnable = [c for c in steps if program(c.argv) not in SETUP_PROGRAMS]
        for command in steps:
            if command.piped:
                raise ExampleError(f"{where}: pipelines cannot run here; annotate not-run")
            code = self.execute(command.argv, where)
            expected = expect_exit if runnable and command is runnable[-1] else 0
            if code is not None and code != expected:
                raise ExampleError(
                    f"{where}: `{shlex.join(command.argv)}` exited {code}, not {expected}"
                )

    def execute(self, argv: list[str], where: str) -> int | None:

        name = program(argv)
        if name in SETUP_PROGRAMS:
            return None
        if name == "export":
            for assignment in argv[1:]:
                key, _, value = assignment.partition("=")
                self.env[key] = value
            return 0
        if name == "cd":
            self.cwd = (self.cwd / argv[1]).resolve()
            if not self.cwd.is_relative_to(self.workdir):
                raise ExampleError(f"{where}: `cd` leaves the example's directory")
            return 0
        if name in FILE_PROGRAMS:
            paths = [a for a in argv[1:] if not a.startswith("-")]
            missing = [p for p in paths if not (self.cwd / p).exists()]
            return 1 if missing else 0
        if name != "autorubric":
            raise ExampleError(f"{where}: `{name}` cannot run in the docs tests; annotate not-run")
        try:
            result = cli(*argv[1:], env=self.env, cwd=self.cwd)
        except Exception as exc:
            raise ExampleError(f"{where}: `{shlex.join(argv)}` raised {exc!r}") from exc
        self.printed += result.output
        if result.exit_code not in (0,):
            print(result.output)
        return result.exit_code


def check_printed(quoted: str, printed: str) -> None:
    """Each line of output a page quotes is in what its commands printed (spaces collapsed:
    Rich wraps a long line where the page's does not)."""
    said = " ".join(printed.split())
    for line in quoted.splitlines():
        if line.strip() and " ".join(line.split()) not in said:
            raise ExampleError(f"the commands above did not print {line.strip()!r}")
