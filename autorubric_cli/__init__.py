"""autorubric: rubric-based LLM-as-a-judge evaluation that never loses work.

Public names are re-exported here; the grader is loaded lazily so that importing the package
(and `autorubric --help`) never imports litellm.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autorubric_cli.core.config import (
        CannotAssessConfig,
        CannotAssessStrategy,
        FewShotConfig,
        JudgeSpec,
        LengthPenalty,
        LLMConfig,
    )
    from autorubric_cli.core.records import CriterionVerdict
    from autorubric_cli.core.rubric import Criterion, CriterionOption, Rubric
    from autorubric_cli.grading.grader import CriterionGrader

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
}

__all__ = [
    "CannotAssessConfig",
    "CannotAssessStrategy",
    "Criterion",
    "CriterionGrader",
    "CriterionOption",
    "CriterionVerdict",
    "FewShotConfig",
    "JudgeSpec",
    "LLMConfig",
    "LengthPenalty",
    "Rubric",
    "__version__",
]


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(name)
