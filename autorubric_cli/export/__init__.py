"""Where a run's data leaves for other tools: OpenTelemetry traces and MLflow runs, each behind
an optional extra (docs/guides/tracing.md)."""
