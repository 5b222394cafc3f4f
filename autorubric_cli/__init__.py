"""autorubric: rubric-based LLM-as-a-judge evaluation that never loses work.

Public names are re-exported here; the grader is loaded lazily so that importing the package
(and `autorubric --help`) never imports litellm.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from autorubric_cli.grading.grader import CriterionGrader

__version__ = "0.1.0"

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
    if name == "CriterionGrader":
        from autorubric_cli.grading.grader import CriterionGrader

        return CriterionGrader
    raise AttributeError(name)
