"""Option types the commands share: enumerations as choices, numbers with bounds.

A bad value is a usage error (exit 2) that lists what is allowed, found while
the command line is parsed, before anything is opened or stored.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
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


class Moment(click.ParamType):  # type: ignore[type-arg]  # generic only in click >= 8.3
    """An ISO-8601 date or time; without a zone it is UTC. Years 1900-9000: a window
    reaching below year 1 would not be a date."""

    name = "TIME"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> datetime:
        if isinstance(value, datetime):
            return value
        try:
            moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError:
            self.fail(f"{value!r} is not an ISO-8601 date or time (e.g. 2026-03-02 or "
                      "2026-03-02T09:00:00Z)", param, ctx)
        if not 1900 <= moment.year <= 9000:
            self.fail(f"{value!r} is out of range (years 1900 to 9000)", param, ctx)
        return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


MOMENT = Moment()


class AsOfCut(click.ParamType):  # type: ignore[type-arg]  # generic only in click >= 8.3
    """`--as-of TIME` (the log as recorded up to TIME) or `--as-of @N` (up to position N)."""

    name = "TIME|@N"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        if value.startswith("@"):
            try:
                position = int(value[1:])
            except ValueError:
                self.fail(f"{value!r} is not @POSITION (e.g. @42)", param, ctx)
            if not 0 <= position <= BIGINT:
                self.fail(f"{value!r} is out of range", param, ctx)
            return position
        return MOMENT.convert(value, param, ctx)


AS_OF = AsOfCut()


def as_of_option(help_text: str = "Answer from the log as it stood then: a TIME, or @POSITION.") -> Callable[[F], F]:
    return click.option("--as-of", "as_of", type=AS_OF, help=help_text)
