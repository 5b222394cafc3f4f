"""autorubric: rubric-based LLM-as-a-judge evaluation that never loses work.

Public names are re-exported here; the grader is loaded lazily so that importing the package
(and `autorubric --help`) never imports litellm.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autorubric_cli.api import (
        Experiment,
        aresume,
        arun,
        load_dataset,
        load_rubric,
        open_experiment,
        resume,
        run,
    )
    from autorubric_cli.core.config import (
        CannotAssessConfig,
        CannotAssessStrategy,
        FewShotConfig,
        JudgeSpec,
        LengthPenalty,
        LLMConfig,
    )
    from autorubric_cli.core.items import Item, Submission
    from autorubric_cli.core.records import CriterionVerdict, ItemRecord
    from autorubric_cli.core.rubric import Criterion, CriterionOption, Rubric
    from autorubric_cli.errors import (
        AutorubricError,
        InputError,
        JudgeError,
        RunInterrupted,
        RunStopped,
        StorageError,
    )
    from autorubric_cli.experiment.session import JudgeRunStopped
    from autorubric_cli.grading.grader import CriterionGrader
    from autorubric_cli.report.models import Report
    from autorubric_cli.report.models_compare import CompareResult

__version__ = "0.1.0"

# Public name -> the module defining it. Loaded on first use (PEP 562): a command that fails
# early (a busy experiment directory) or `--help` does not pay for pydantic models it never uses.
_PUBLIC = {
    "CannotAssessConfig": "autorubric_cli.core.config",
    "CannotAssessStrategy": "autorubric_cli.core.config",
    "Criterion": "autorubric_cli.core.rubric",
    "CriterionGrader": "autorubric_cli.grading.grader",
    "CriterionOption": "autorubric_cli.core.rubric",
    "CriterionVerdict": "autorubric_cli.core.records",
    "FewShotConfig": "autorubric_cli.core.config",
    "JudgeSpec": "autorubric_cli.core.config",
    "LLMConfig": "autorubric_cli.core.config",
    "LengthPenalty": "autorubric_cli.core.config",
    "Rubric": "autorubric_cli.core.rubric",
    "Item": "autorubric_cli.core.items",
    "Submission": "autorubric_cli.core.items",
    "ItemRecord": "autorubric_cli.core.records",
    "InputError": "autorubric_cli.errors",
    "StorageError": "autorubric_cli.errors",
    "RunInterrupted": "autorubric_cli.errors",
    "RunStopped": "autorubric_cli.errors",
    "JudgeError": "autorubric_cli.errors",
    "AutorubricError": "autorubric_cli.errors",
    "JudgeRunStopped": "autorubric_cli.experiment.session",
    "Experiment": "autorubric_cli.api",
    "run": "autorubric_cli.api",
    "resume": "autorubric_cli.api",
    "arun": "autorubric_cli.api",
    "aresume": "autorubric_cli.api",
    "open_experiment": "autorubric_cli.api",
    "load_rubric": "autorubric_cli.api",
    "load_dataset": "autorubric_cli.api",
    "Report": "autorubric_cli.report.models",
    "CompareResult": "autorubric_cli.report.models_compare",
}

__all__ = [
    "AutorubricError",
    "JudgeError",
    "RunStopped",
    "CannotAssessConfig",
    "CompareResult",
    "Experiment",
    "InputError",
    "Item",
    "ItemRecord",
    "JudgeRunStopped",
    "RunInterrupted",
    "StorageError",
    "Submission",
    "aresume",
    "arun",
    "load_dataset",
    "load_rubric",
    "open_experiment",
    "resume",
    "run",
    "CannotAssessStrategy",
    "Criterion",
    "CriterionGrader",
    "CriterionOption",
    "CriterionVerdict",
    "FewShotConfig",
    "JudgeSpec",
    "LLMConfig",
    "LengthPenalty",
    "Report",
    "Rubric",
    "__version__",
]


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(name)
