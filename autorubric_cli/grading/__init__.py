"""Grading: prompts, judge calls, shuffles, samples, ensemble and score for one item."""
