"""The experiment directory and its runs: start, resume, open, lock, dry run."""
