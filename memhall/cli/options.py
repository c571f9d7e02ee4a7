"""Option types the commands share: enumerations as choices, numbers with bounds.

A bad value is a usage error (exit 2) that lists what is allowed, found while
the command line is parsed, before anything is opened or stored.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

import click

from memhall.domains.values import Kind, Layer, SourceKind

F = TypeVar("F", bound=Callable[..., Any])

class LayerChoice(click.Choice):  # type: ignore[type-arg]  # generic only in newer click
    """Layers as written (L1..L4), lowercase accepted."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return super().convert(value.upper() if isinstance(value, str) else value, param, ctx)


def layers(*allowed: Layer) -> click.Choice[str]:
    return LayerChoice([layer.value for layer in allowed or tuple(Layer)])


LAYERS = layers()
KINDS = click.Choice([kind.value for kind in Kind], case_sensitive=False)
SOURCES = click.Choice([source.value for source in SourceKind], case_sensitive=False)
#: the largest number any count or position option takes (SQL's BIGINT)
BIGINT = 2**63 - 1
#: a memory request stays open at most ten years
MAX_EXPIRY_HOURS = 24 * 365 * 10


def limit_option(default: int, most: int, help_text: str) -> Callable[[F], F]:
    """`--limit N`, between 1 and `most`."""
    return click.option("--limit", type=click.IntRange(1, most), default=default,
                        show_default=True, help=help_text)


class FiniteRange(click.FloatRange):
    """A FloatRange that also refuses nan (which compares false with any bound)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if isinstance(number, float) and not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


HOURS = FiniteRange(min=0, min_open=True, max=MAX_EXPIRY_HOURS)
