"""Grading: prompts, judge calls, shuffles, samples, ensemble and score for one item."""

from autorubric_cli.core.config import FewShotConfig, JudgeSpec, LLMConfig
from autorubric_cli.grading.grader import CriterionGrader
from autorubric_cli.judges import CallStats, JudgeAuthError, RetryPolicy

__all__ = [
    "CallStats",
    "CriterionGrader",
    "FewShotConfig",
    "JudgeAuthError",
    "JudgeSpec",
    "LLMConfig",
    "RetryPolicy",
]
