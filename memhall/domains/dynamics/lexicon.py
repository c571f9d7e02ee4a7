"""A small valence/arousal lexicon of our own (English and Chinese), with negators and intensifiers.

Why our own: the permissive lexicons on the registry give valence only (VADER,
MIT; AFINN, Apache-2.0) and the ones with arousal or emotion categories (NRC,
ANEW, Warriner) forbid commercial use or redistribution. So the words below are
grouped in bands that share a (valence, arousal, emotion tag) judgement of ours;
coarse, honest, and pinned by the encoder's version so a rebuild reproduces it.
Nothing is read at import time: `lexicon()` builds the table on first use.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple


class Sense(NamedTuple):
    valence: float
    arousal: float
    #: an emotion tag, or "" for words that only carry valence
    tag: str


#: (tag, valence, arousal, words separated by spaces)
_BANDS: tuple[tuple[str, float, float, str], ...] = (
    ("joy", 0.8, 0.7,
     "happy happier happiest delighted joyful thrilled excited exciting ecstatic elated overjoyed "
     "wonderful fantastic amazing awesome brilliant celebrate celebration hooray yay fun "
     "开心 高兴 快乐 兴奋 激动 太好了 好极了 棒 欢乐 喜悦"),
    ("joy", 0.6, 0.4,
     "good great nice pleased pleasant glad enjoy enjoyable lovely cheerful beautiful "
     "perfect excellent fine cool smile smiled laugh laughed win won 不错 喜欢 满意 愉快 美好 顺利"),
    ("love", 0.8, 0.5,
     "love loved loving lovingly adore adored affection affectionate caring warm warmth "
     "friendly sweet dear hug kindness 爱 喜爱 温暖 关心 想念 亲爱"),
    ("pride", 0.7, 0.6,
     "proud pride accomplished achievement achieved succeed succeeded success successful "
     "promoted praise praised 骄傲 自豪 成功 成就 表扬"),
    ("trust", 0.5, 0.3,
     "trust trusted trustworthy reliable honest loyal safe secure support supported "
     "helpful thank thanks thankful grateful appreciate appreciated agree agreed "
     "信任 感谢 谢谢 可靠 支持 安全 同意"),
    ("calm", 0.3, 0.1,
     "calm calmly peaceful relaxed relaxing quiet serene settled steady comfortable cozy "
     "rest rested ease 平静 轻松 安心 放松 舒服 稳定 安静 踏实"),
    ("relief", 0.5, 0.3,
     "relief relieved finally resolved fixed solved recovered healed better "
     "终于 解决 放心 好转 康复"),
    ("anticipation", 0.4, 0.6,
     "hope hoped hopeful eager curious interested anticipate ready wish "
     "期待 希望 盼望 好奇 准备"),
    ("surprise", 0.1, 0.8,
     "surprise surprised surprising unexpected unexpectedly suddenly astonished amazed "
     "惊讶 意外 吃惊 没想到 突然"),
    ("sadness", -0.7, 0.3,
     "sad sadly unhappy sorrow depressed depressing miserable lonely grief grieving "
     "cry cried crying tears disappointed disappointing heartbroken regret regretted "
     "gloomy hopeless 难过 伤心 悲伤 失望 孤独 遗憾 哭 沮丧 心碎"),
    ("sadness", -0.4, 0.2,
     "tired exhausted bored boring dull sick ill unwell weak sorry miss missed lost "
     "累 疲惫 无聊 生病 不舒服 不太好 可惜"),
    ("fear", -0.6, 0.8,
     "afraid scared fear feared frightened terrified anxious anxiety worried worry "
     "worrying nervous panic panicked alarmed threat threatened danger dangerous "
     "emergency 害怕 担心 紧张 焦虑 恐惧 危险 慌"),
    ("fear", -0.3, 0.6,
     "risk risky uncertain unsure doubt doubtful concern concerned urgent deadline pressure "
     "stress stressed 风险 压力 着急 担忧"),
    ("anger", -0.7, 0.8,
     "angry anger mad furious annoyed annoying irritated frustrated frustrating outraged "
     "hate hated hostile rage upset resent unfair betrayed betrayal "
     "生气 愤怒 讨厌 恼火 气死 烦 不公平 背叛"),
    ("disgust", -0.6, 0.5,
     "disgust disgusted disgusting gross awful terrible horrible nasty vile "
     "恶心 糟糕 可怕 差劲"),
    ("shame", -0.6, 0.5,
     "ashamed shame embarrassed embarrassing guilty humiliated 尴尬 惭愧 丢脸 内疚"),
    ("", -0.5, 0.4,
     "bad worse worst wrong poor fail failed failure broken problem problems mistake "
     "mistakes error errors bug bugs trouble pain painful hurt hurts injured conflict "
     "refused rejected reject 不好 问题 错误 失败 麻烦 痛 疼 冲突 拒绝"),
)

#: Words that flip what follows (within NEGATION_SCOPE tokens, up to a clause break).
NEGATORS = frozenset(
    "not no never nothing nobody none neither nor without hardly barely cannot cant "
    "dont doesnt didnt isnt wasnt arent werent wont wouldnt shouldnt couldnt "
    "不 没 没有 别 未 无 不是 并不 从不 从没".split()
)
NEGATION_SCOPE = 3

#: Multipliers of the next hit's valence and arousal.
INTENSIFIERS: dict[str, float] = {
    **dict.fromkeys(
        "very really so extremely too super incredibly totally absolutely deeply highly truly "
        "很 非常 特别 太 十分 超级 极其 真 挺 相当 最".split(), 1.3),
    **dict.fromkeys("slightly somewhat kinda 有点 稍微 有些 略".split(), 0.6),
}

#: Words that make a memory matter more, whatever its emotion.
SIGNIFICANCE_MARKERS = frozenset(
    "important importantly critical crucial decided decision decide promise promised "
    "deadline urgent emergency always must birthday wedding married died death funeral "
    "born hired fired resigned diagnosed "
    "重要 决定 承诺 紧急 关键 生日 婚礼 结婚 去世 出生 辞职 确诊".split()
)

#: Tokens that end a negation's scope.
CLAUSE_BREAKS = frozenset(".,;:!?，。；：！？、 but however 但 但是 可是 不过".split())


@cache
def lexicon() -> dict[str, Sense]:
    table: dict[str, Sense] = {}
    for tag, valence, arousal, words in _BANDS:
        for word in words.split():
            table.setdefault(word, Sense(valence, arousal, tag))
    return table


@cache
def cjk_vocabulary() -> tuple[frozenset[str], int]:
    """Every Chinese word the tokenizer should keep whole, and the longest length."""
    words = {w for w in (*lexicon(), *NEGATORS, *INTENSIFIERS, *SIGNIFICANCE_MARKERS,
                         *CLAUSE_BREAKS) if w and not w.isascii()}
    return frozenset(words), max(len(w) for w in words)
