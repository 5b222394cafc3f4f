"""What differs between the two experiments of a comparison: allowed, never silent
(docs/guides/compare.md)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from autorubric_cli.experiment.opened import OpenedExperiment

OPERATIONAL = {
    *("judges", "seed"),  # warned about on their own
    *("concurrency", "timeout", "max_attempts", "retry", "cache", "batch", "workers"),
}
"""Settings left out of the generic `grader.<key> differs` warnings."""
SHOWN_IDS = 5


def named(ids: Collection[str]) -> str:
    """The first ids (sorted), and how many more."""
    total = len(ids)
    shown = sorted(ids)[:SHOWN_IDS]
    more = f", … ({total - len(shown)} more)" if total > len(shown) else ""
    return ", ".join(shown) + more


def setting_warnings(base: OpenedExperiment, new: OpenedExperiment) -> list[str]:
    """Rubric, criteria, dataset, judges, seed and grading settings that differ."""
    warnings = []
    bm, nm = base.manifest, new.manifest
    if bm.rubric.sha256 != nm.rubric.sha256:
        warnings.append(f"the rubrics differ ({bm.rubric.path} vs {nm.rubric.path})")
    warnings += criteria_warnings(base, new)
    if bm.dataset.sha256 != nm.dataset.sha256:
        warnings.append(f"the datasets differ ({bm.dataset.path} vs {nm.dataset.path})")
    base_judges, new_judges = judges(base), judges(new)
    if base_judges != new_judges:
        warnings.append(f"the judges differ: BASE {base_judges} vs NEW {new_judges}")
    if bm.seed != nm.seed:
        warnings.append(f"the seeds differ: BASE {bm.seed} vs NEW {nm.seed}")
    for key in sorted(set(bm.config) | set(nm.config)):
        if key not in OPERATIONAL and bm.config.get(key) != nm.config.get(key):
            warnings.append(
                f"grader.{key} differs: BASE {show(bm.config.get(key))} "
                f"vs NEW {show(nm.config.get(key))}"
            )
    for experiment, side in ((base, "BASE"), (new, "NEW")):
        if experiment.manifest.status != "completed":
            warnings.append(f"{side} experiment is {experiment.manifest.status}, not completed")
    return warnings


def criteria_warnings(base: OpenedExperiment, new: OpenedExperiment) -> list[str]:
    b = {c.name: c for c in base.rubric.criteria}
    n = {c.name: c for c in new.rubric.criteria}
    out = []
    for name in b.keys() - n.keys():
        out.append(f"criterion {name!r} is only in BASE")
    for name in n.keys() - b.keys():
        out.append(f"criterion {name!r} is only in NEW")
    for name in b.keys() & n.keys():
        if b[name].model_dump() != n[name].model_dump():
            out.append(f"criterion {name!r} differs (requirement, weight, kind or options)")
    return sorted(out)


def judges(experiment: OpenedExperiment) -> str:
    specs = experiment.rubric.grader.judges
    return ", ".join(f"{j.judge_id}={j.model} w{j.weight:g} x{j.samples}" for j in specs)


def show(value: Any) -> str:
    return "unset" if value is None else repr(value)
