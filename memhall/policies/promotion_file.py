"""The policy folder's promotion.yaml: settings of the promotion path, with file:line errors."""

from __future__ import annotations

from datetime import timedelta

from pydantic import BaseModel, ConfigDict, Field

from memhall.domains.errors import PolicyConfigError
from memhall.policies.files import PolicySource, SourceFile
from memhall.policies.yamlfile import config_error, load_yaml, validated

PROMOTION_FILE = "promotion.yaml"


class ReminderSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    #: reminders count only from sessions opened at least this far apart (0: no minimum)
    min_hours_between_sessions: float = Field(default=0.0, ge=0.0, le=24.0 * 366)


class PromotionSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    reminders: ReminderSettings = ReminderSettings()

    @property
    def min_reminder_gap(self) -> timedelta:
        return timedelta(hours=self.reminders.min_hours_between_sessions)


def load_promotion_settings(source: PolicySource) -> PromotionSettings:
    """The folder's promotion.yaml; a folder without one runs on the defaults."""
    found = next((f for f in source.files if f.path == PROMOTION_FILE), None)
    if found is None:
        return PromotionSettings()
    name = f"{source.root}/{PROMOTION_FILE}"
    try:
        text = found.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PolicyConfigError(f"{name}: cannot read: {exc}") from None
    return parse_promotion_settings(SourceFile(name=name, text=text))


def parse_promotion_settings(file: SourceFile) -> PromotionSettings:
    data, lines = load_yaml(file)
    if data is None:
        return PromotionSettings()
    if not isinstance(data, dict):
        raise config_error(file, lines, (), "promotion.yaml must be a mapping of sections")
    return validated(PromotionSettings, file, data, lines)
