"""The package's import graph: no cycle between modules, no arrow pointing up the
layers of DESIGN.md. Only imports that run count: those under `if TYPE_CHECKING:` are types."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "autorubric_cli"

# DESIGN.md's layers, top first; a module may import its own layer and the ones below it.
LAYERS = [
    ["cli", "__main__"],
    ["api"],
    ["rubric_review"],
    ["export"],
    ["pairwise"],
    ["report"],
    ["labels"],
    ["validate"],
    ["experiment"],
    ["grading"],
    ["judges"],
    ["loading"],
    ["metrics"],
    ["core"],
    ["errors"],
]
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def runtime_imports(tree: ast.AST, modules: set[str]) -> set[str]:
    """Modules of the package imported at run time; `from pkg import sub` names the submodule."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and is_type_checking(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names if a.name in modules)
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                for alias in child.names:
                    sub = f"{child.module}.{alias.name}"
                    found.add(sub if sub in modules else child.module)
            visit(child)

    visit(tree)
    return found & modules


def import_graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(files)
    return {m: runtime_imports(ast.parse(p.read_text()), modules) - {m} for m, p in files.items()}


def layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None  # the package root is below every layer


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_the_walk_sees_the_package() -> None:
    graph = import_graph()
    assert len(graph) > 100
    assert "autorubric_cli.core.rubric" in graph["autorubric_cli.core.evaluate"]
    assert all(layer(m) in RANK for m in graph if layer(m) is not None), sorted(
        {layer(m) for m in graph} - set(RANK) - {None}
    )


def test_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_no_upward_import_between_layers() -> None:
    upward = [
        f"{a} -> {b}"
        for a, targets in import_graph().items()
        for b in targets
        if layer(a) is not None and layer(b) is not None and RANK[layer(b)] < RANK[layer(a)]  # type: ignore[index]
    ]
    assert upward == []


def test_a_cycle_and_an_upward_arrow_are_found() -> None:
    graph = {
        "autorubric_cli.core.a": {"autorubric_cli.core.b"},
        "autorubric_cli.core.b": {"autorubric_cli.core.a"},
        "autorubric_cli.report.x": set(),
    }
    assert cycles(graph) == [["autorubric_cli.core.a", "autorubric_cli.core.b"]]
    assert RANK["report"] < RANK["core"]
