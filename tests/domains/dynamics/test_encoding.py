"""The default encoder: anchoring in time and people, and a lexicon's emotion tag."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhall.domains.dynamics.encoding import Encoder, LexiconEncoder, appraise, tokens
from tests.domains.dynamics.memories import T0


@pytest.mark.parametrize(
    ("text", "valence", "arousal", "tags", "significance"),
    [
        # no affect word: neutral, a little aroused, 0.2 + 0.3 · 0.1
        ("we moved to the new place", 0.0, 0.1, (), 0.23),
        # happy = (0.8, 0.7, joy); significance 0.2 + 0.3·0.8 + 0.3·0.7
        ("I am happy", 0.8, 0.7, ("joy",), 0.65),
        # negated: valence × −0.5, arousal × 0.5, no tag
        ("I am not happy", -0.4, 0.35, (), 0.425),
        ("I don't feel happy at all", -0.4, 0.35, (), 0.425),
        # the clause break ends the negation: "happy" counts as itself
        ("not now, I am happy", 0.8, 0.7, ("joy",), 0.65),
        # very ×1.3 (valence clamped to 1), "!" adds 0.1 arousal
        ("very happy!", 1.0, 1.0, ("joy",), 0.8),
        # slightly ×0.6 on sad (−0.7, 0.3)
        ("slightly sad", -0.42, 0.18, ("sadness",), 0.38),
        # two hits: the mean
        ("happy but tired", 0.2, 0.45, ("joy", "sadness"), 0.395),
        # suffixes find the stem: worried → worry
        ("she worried", -0.6, 0.8, ("fear",), 0.62),
        # a significance marker adds 0.2 whatever the emotion
        ("This is an important decision", 0.0, 0.1, (), 0.43),
        # Chinese: 很 ×1.3 on 轻松 (0.3, 0.1, calm)
        ("搬了，很轻松", 0.39, 0.13, ("calm",), 0.356),
        # Chinese negation: 不 before 开心
        ("我不开心", -0.4, 0.35, (), 0.425),
        # a whole word wins over its negator: 不太好 is itself in the lexicon
        ("小美说最近身体不太好", -0.4, 0.2, ("sadness",), 0.38),
    ],
)
def test_the_lexicon_rates_valence_arousal_tags_and_significance(
    text: str, valence: float, arousal: float, tags: tuple[str, ...], significance: float
) -> None:
    emotion = appraise(text)

    assert emotion.valence == pytest.approx(valence)
    assert emotion.arousal == pytest.approx(arousal)
    assert emotion.tags == tags
    assert emotion.significance == pytest.approx(significance)


def test_chinese_runs_are_cut_by_the_longest_known_word() -> None:
    assert tokens("我没有很开心") == ["我", "没有", "很", "开心"]


def test_a_write_is_anchored_in_time_speaker_addressee_and_participants() -> None:
    encoding = LexiconEncoder().encode("Moved in with Alice near @huayang, all calm.", speaker="xiaomei",
                                       addressee="liu", participants=["maki"], occurred_at=T0)

    assert encoding.content == ("On 2026-03-02 xiaomei told liu (with maki): "
                                "Moved in with Alice near @huayang, all calm.")
    assert encoding.participants == ("liu", "maki", "xiaomei")
    assert encoding.entities == ("alice", "huayang", "liu", "maki", "xiaomei")
    assert (encoding.encoder, encoding.encoder_version) == ("lexicon", "1")
    assert encoding.emotion.tags == ("calm",)


def test_a_remark_to_nobody_in_particular_is_said_not_told() -> None:
    encoding = LexiconEncoder().encode("rain again", speaker="maki", addressee=None,
                                       participants=(), occurred_at=T0)

    assert encoding.content == "On 2026-03-02 maki said: rain again"


def test_the_lexicon_encoder_is_an_encoder() -> None:
    encoder: Encoder = LexiconEncoder()

    assert encoder.name == "lexicon"


@given(st.text(max_size=200))
def test_any_text_gets_an_emotion_within_its_ranges_and_always_the_same(text: str) -> None:
    first, second = appraise(text), appraise(text)

    assert first == second
    assert -1 <= first.valence <= 1
    assert 0 <= first.arousal <= 1
    assert 0 <= first.significance <= 1


@given(st.text(alphabet=st.sampled_from("aZ'qQ .,!?;:-é中文很好") , max_size=40))
def test_ascii_and_other_text_are_cut_into_the_same_tokens_match_by_match(text: str) -> None:
    from memhall.domains.dynamics.encoding import _TOKEN, _cut

    expected: list[str] = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        expected.extend([token.lower()] if token.isascii() else _cut(token))

    assert tokens(text) == expected


@given(st.lists(st.sampled_from(["a", "Z", "'", " ", ".", ",", "!", "?", "中文", "很好", "happy ", "very ",
                                  "not ", "furious ", "Maki ", "@liu ", "#ops ", "sad ", "extremely "]),
                min_size=1, max_size=30).map("".join))
def test_an_encoding_is_what_validating_its_fields_would_make(text: str) -> None:
    encoding = LexiconEncoder().encode(text, speaker="codex", addressee="liu", participants=("maki",),
                                       occurred_at=T0)

    validated = type(encoding).model_validate(encoding.model_dump())

    assert encoding.model_dump_json() == validated.model_dump_json()
    assert list(vars(encoding)) == list(vars(validated)) and encoding == validated
    assert vars(encoding.emotion) == vars(validated.emotion)
    assert all(type(getattr(encoding.emotion, f)) is float for f in ("valence", "arousal", "significance"))


def test_an_encoding_at_a_naive_time_is_refused() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        LexiconEncoder().encode("hi", speaker="codex", addressee=None, participants=(),
                                occurred_at=T0.replace(tzinfo=None))
