"""Ingest: a conversation into a fresh SQLite store, through the governed
batched write path of the real hall, dated as the turns.

Each turn is written by its speaker (a principal of the store's roles.yaml:
the owner maki a human ratify owner who writes L2, every other speaker an
agent seat, who writes L1), to whom it was said and in whose presence, so the
store knows who said what and who holds what exactly as the dataset does.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import pkgutil
import random
import re
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from freezegun import freeze_time

from memhall.domains.entry import EntryDraft, Tags, draft
from memhall.domains.values import Kind, Layer
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.governance.streams import DomainStream
from memhall.policies.engine import PolicySet
from memhall.policies.files import packaged_defaults

import memhall

OWNER = "maki"
DOMAIN = "family"
DISTRACTOR_BATCH = 2000


@dataclass
class Context:
    """One ingested conversation, as the recall systems see it."""

    hall: Hall
    stream: DomainStream
    #: turn id -> entry id (turns with the same text share one entry)
    entry_of: dict[str, str]
    #: entry id -> the text memhall's full-text index holds for it (text and tags)
    documents: dict[str, str]
    #: entry id -> who holds it; empty means everyone
    holders: dict[str, frozenset[str]]
    #: per-system state built on first use (an index, a model)
    cache: dict[str, Any] = field(default_factory=dict)

    def held_by(self, entry_id: str, observer: str) -> bool:
        holders = self.holders.get(entry_id, frozenset())
        return not holders or observer in holders


def ingest(turns: list[Any], folder: Path, name: str, *, distractors: int = 0,
           seed: int = 12) -> Context:
    """A fresh store, or the one a previous run kept in `folder` for the same turns and
    distractors (a 100k-entry store takes a quarter of an hour to write)."""
    slug = re.sub(r'[^A-Za-z0-9_-]', '_', name)
    path, saved = folder / (slug + ".db"), folder / (slug + ".context.json")
    digest = _digest(turns, distractors, seed)
    speakers = sorted({principal(t.speaker) for t in turns})
    if path.exists() and saved.exists():
        kept = json.loads(saved.read_text(encoding="utf-8"))
        if kept.get("digest") == digest:
            hall = Hall(Store(f"sqlite:///{path}"), PolicySet.load(folder / f"{slug}-policy"))
            return Context(hall, hall.streams.stream(DOMAIN), kept["entry_of"], kept["documents"],
                           {i: frozenset(h) for i, h in kept["holders"].items()})
    for stale in (path, saved, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        stale.unlink(missing_ok=True)
    context = _written(turns, folder, slug, speakers, distractors, seed)
    saved.write_text(json.dumps({"digest": digest, "entry_of": context.entry_of, "documents": context.documents,
                                 "holders": {i: sorted(h) for i, h in context.holders.items()}}),
                     encoding="utf-8")
    return context


def _digest(turns: list[Any], distractors: int, seed: int) -> str:
    text = repr([(t.id, t.session, t.occurred_at.isoformat(), t.speaker, t.text, t.people, t.places,
                  t.topics, sorted(t.holders)) for t in turns]) + f"|{distractors}|{seed}"
    return hashlib.sha256(text.encode()).hexdigest()


def _imported() -> None:
    """Every memhall module, imported before the clock is frozen: a pydantic model whose
    module a use case imports lazily would take freezegun's FakeDatetime for `datetime`."""
    for module in pkgutil.walk_packages(memhall.__path__, "memhall."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)


def _written(turns: list[Any], folder: Path, slug: str, speakers: list[str], distractors: int,
             seed: int) -> Context:
    _imported()
    store = Store(f"sqlite:///{folder / (slug + '.db')}")
    hall = Hall(store, PolicySet.load(_policy(folder / f"{slug}-policy", speakers)))
    hall.create_domain(OWNER, DOMAIN)
    context = Context(hall, hall.streams.stream(DOMAIN), {}, {}, {})
    if distractors:
        _pad(context, turns, distractors, seed)
    for batch in _runs(turns):
        speaker = principal(batch[0].speaker)
        drafts = [_draft(t, speakers) for t in batch]
        with freeze_time(max(t.occurred_at for t in batch)):
            results = hall.write_many(speaker, DOMAIN, drafts)
        for turn, entry, result in zip(batch, drafts, results):
            context.entry_of[turn.id] = result.entry_id
            context.documents[result.entry_id] = _body(entry)
            context.holders[result.entry_id] = _joined(context.holders.get(result.entry_id),
                                                       turn.holders)
    return context


def _joined(before: frozenset[str] | None, now: frozenset[str]) -> frozenset[str]:
    """Holders of an entry that several turns share; empty (everyone) wins."""
    if before is None:
        return now
    return before | now if before and now else frozenset()


def principal(speaker: str) -> str:
    """A speaker's principal name (letters, digits and _.@- only)."""
    return re.sub(r"[^A-Za-z0-9_.@-]", "_", speaker.strip()) or "someone"


def _policy(folder: Path, speakers: list[str]) -> Path:
    """The shipped policy, with roles.yaml naming the dataset's speakers: maki the human
    ratify owner, everyone else an agent seat (who holds only what it was exposed to)."""
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(str(packaged_defaults()), folder)
    agents = [s for s in speakers if s != OWNER]
    roles = {"domains": [DOMAIN], "principals": {OWNER: "human", **{a: "agent" for a in agents}},
             "roles": {DOMAIN: {"ratify_owner": [OWNER], **({"seat": agents} if agents else {})}}}
    (folder / "roles.yaml").write_text(yaml.safe_dump(roles), encoding="utf-8")
    return folder


def _draft(turn: Any, speakers: list[str]) -> EntryDraft:
    """An episode said by its speaker, to and before those who hold it (everyone in the
    conversation when the dataset names no one); the speaker is a people tag too."""
    speaker = principal(turn.speaker)
    held = {principal(h) for h in turn.holders} if turn.holders else set(speakers)
    return draft(layer=Layer.L2 if speaker == OWNER else Layer.L1, kind=Kind.EPISODE, text=turn.text,
                 session_id=turn.session, occurred_at=turn.occurred_at,
                 participants=tuple(sorted(held - {speaker})),
                 tags=Tags(people=(turn.speaker, *turn.people), places=turn.places, topics=turn.topics))


def _body(entry: EntryDraft) -> str:
    """What the SQLite projection puts in the full-text index (projections.py)."""
    return " ".join([entry.text, entry.interpretation or "", *entry.tags.all()])


def _runs(turns: list[Any]) -> list[list[Any]]:
    """Consecutive turns of one speaker in one session: one batch each, in order."""
    runs: list[list[Any]] = []
    for turn in turns:
        if runs and (runs[-1][0].session, runs[-1][0].speaker) == (turn.session, turn.speaker):
            runs[-1].append(turn)
        else:
            runs.append([turn])
    return runs


def _pad(context: Context, turns: list[Any], n: int, seed: int) -> None:
    """n distractor entries, older than every turn: everyday chatter drawn from
    VOCABULARY with Zipf weights, so common words are common (long posting
    lists, as in a real store) while the dataset's own topics stay rare."""
    rng = random.Random(seed)
    weights = [1 / rank for rank in range(1, len(VOCABULARY) + 1)]
    speakers = sorted({t.speaker for t in turns}) or [OWNER]
    first: datetime = min(t.occurred_at for t in turns)
    for start in range(0, n, DISTRACTOR_BATCH):
        size = min(DISTRACTOR_BATCH, n - start)
        moment = first - timedelta(days=365) + timedelta(days=365 * start / n)
        drafts = [draft(layer=Layer.L2, kind=Kind.EPISODE,
                        text=" ".join(rng.choices(VOCABULARY, weights, k=rng.randint(8, 24)))
                        + f" ({start + i})",
                        session_id=f"distractor-{start // DISTRACTOR_BATCH}",
                        tags=Tags(people=(rng.choice(speakers),)))
                  for i in range(size)]
        with freeze_time(moment):
            results = context.hall.write_many(OWNER, DOMAIN, drafts)
        for entry, result in zip(drafts, results):
            context.documents[result.entry_id] = _body(entry)


#: everyday words, most frequent first
VOCABULARY = """
the i to and a you it we that of is in was for on my so just but have be this
with not do at yeah are they about what all get like can out when one go if
know really good think time there your day well now from had would more some
then them going me got see how been back today who also too want work still
thanks maybe little week home much lot make new need right us tomorrow could
people did said next our last morning first feel great thing nice long here
something better sure call take made after always before around again night
evening friend family weekend lunch dinner coffee tea walk train bus car
school office meeting email phone message book film music song game park
shop market kitchen garden window door table chair bed room house street
city town river beach mountain weather rain sun snow wind cold warm hot
birthday party holiday trip ticket plan idea story picture photo color
dog cat bird tree flower grass food bread rice soup cake fruit apple
doctor teacher student neighbour brother sister mother father child baby
run swim cook read write paint draw sing dance drive fly travel visit
happy tired busy early late quick slow quiet loud small big old young
monday tuesday wednesday thursday friday saturday sunday spring summer autumn
""".split()
