"""The one stored form of a moment: UTC, microseconds, fixed width, sortable as text."""

from __future__ import annotations

from datetime import datetime, timezone


def iso(moment: datetime | str) -> str:
    """`2026-11-30T15:01:43.123456Z`: the same text for the same instant, whatever its offset."""
    if isinstance(moment, str):
        if len(moment) == 27 and moment[26] == "Z" and moment[10] == "T" and moment[19] == ".":
            return moment  # already the stored form (most event timestamps): parsing is most of the cost
        moment = datetime.fromisoformat(moment)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    moment = moment.astimezone(timezone.utc)
    # the year by hand: strftime's %Y leaves a year before 1000 unpadded ('1-01-01T…'), which
    # neither sorts nor parses
    return f"{moment.year:04d}-" + moment.strftime("%m-%dT%H:%M:%S.%fZ")


def from_iso(text: str) -> datetime:
    if text[:4].isdigit() or "-" not in text[:4]:
        return datetime.fromisoformat(text).astimezone(timezone.utc)
    year, rest = text.split("-", 1)  # stored unpadded by an older version
    return datetime.fromisoformat(f"{int(year):04d}-{rest}").astimezone(timezone.utc)


def as_utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def age(moment: datetime, now: datetime) -> str:
    """How long ago, in the largest whole unit: `3d ago`, `5m ago`."""
    seconds = max(0, int((now - moment).total_seconds()))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return f"{seconds}s ago"
