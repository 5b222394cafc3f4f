"""Rubrics worth trusting (docs/guides/rubric-quality.md): `review` (a rubric graded against a
meta-rubric), `split` (train and test parts without leakage) and `improve` (criteria reworded
against labels, judged on held-out items). Each runs through the engine `run` uses."""
