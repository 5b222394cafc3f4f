"""A criterion's outcome label, as the report's distributions, the HTML items and the cascade
calibration (against ground-truth labels) read it."""

from __future__ import annotations

from autorubric_cli.core.records import CriterionRecord, CriterionVerdict

CA = CriterionVerdict.CANNOT_ASSESS.value


def outcome_label(record: CriterionRecord) -> str:
    """The chosen option's label, else the verdict (CANNOT_ASSESS when there is none)."""
    if record.option is not None:
        return record.option.label
    if record.verdict is not None:
        return str(record.verdict)  # a StrEnum's str is its value, without `.value`'s cost
    return CA
