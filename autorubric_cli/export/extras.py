"""Optional extras: an installed one, or an input error naming the pip command. Checked without
importing the package (`--help` and plain runs never load it)."""

from __future__ import annotations

import importlib.util

from autorubric_cli.errors import InputError

EXTRAS = {
    "otel": ("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.http"),
    "mlflow": ("mlflow",),
}


def installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def require_extra(extra: str, flag: str) -> None:
    """InputError unless every package of `extra` is installed."""
    if not all(installed(module) for module in EXTRAS[extra]):
        raise InputError(f'{flag} needs the {extra} extra: pip install "autorubric-cli[{extra}]"')
