"""The public-benchmark loaders map turns and reference memories to evidence,
shown on tiny files of the benchmarks' own shapes (the data stays out of git)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from benchmarks.evaluation.public import load_locomo, load_perltqa

PERLTMEM = {
    "Aiko": {
        "profile": {"Protagonist": "Aiko"},
        "events": {"E1": {"content": "Aiko won the city marathon in spring.",
                          "Characters": "Aiko, Ben", "Creation Time": "2021-04-11"}},
        "dialogues": {"D1": {"contents": {"2021-05-02 10:00:00": [
            "Aiko: I started painting lakes at sunrise.",
            "AI assistant: That sounds peaceful. Which lake?",
            "Aiko: Lake Biwa, mostly."]}}},
    }
}
PERLTQA = [{"Aiko": {
    "profile": [{"Question": "How old is Aiko?", "Answer": "30", "Reference Memory": "age"}],
    "events": [{"E1": [{"Question": "What race did Aiko win?", "Answer": "the marathon",
                        "Reference Memory": "E1", "Memory Anchors": []}]}],
    "dialogues": [{"D1": [{"Question": "Which lake does Aiko paint?", "Answer": "Lake Biwa",
                           "Reference Memory": "D1",
                           "Memory Anchors": [{"Lake Biwa": [0, 9]}]}]}],
}}]


def test_perltqa_points_event_and_dialogue_questions_at_their_memories(tmp_path: Path) -> None:
    (tmp_path / "perltmem_en_v2.json").write_text(json.dumps(PERLTMEM))
    (tmp_path / "perltqa_en_v2.json").write_text(json.dumps(PERLTQA))

    dataset = load_perltqa(tmp_path)

    aiko = dataset.conversations[0]
    turns = {t.id: t for t in aiko.turns}
    event, dialogue = aiko.questions
    assert turns[event.evidence[0]].text == "Aiko won the city marathon in spring."
    assert [turns[e].text for e in dialogue.evidence] == ["Lake Biwa, mostly."]
    assert turns["dialogue/D1/1"].speaker == "AI assistant"
    assert turns["dialogue/D1/0"].occurred_at.isoformat() == "2021-05-02T10:00:00+00:00"
    assert "1 profile" in dataset.notes[0]


def test_perltqa_reads_the_first_release_that_keeps_characters_in_a_list(tmp_path: Path) -> None:
    (tmp_path / "perltmem_en.json").write_text(json.dumps(list(PERLTMEM.values())))
    (tmp_path / "perltqa_en.json").write_text(json.dumps(PERLTQA))

    dataset = load_perltqa(tmp_path)

    assert [c.name for c in dataset.conversations] == ["Aiko"]


def test_locomo_asks_adversarial_questions_as_abstentions(tmp_path: Path) -> None:
    sample = {
        "speaker_a": "Caroline", "speaker_b": "Melanie",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "Caroline", "dia_id": "D1:1", "text": "I went to a support group."},
                      {"speaker": "Melanie", "dia_id": "D1:2", "text": "I painted a sunrise.",
                       "blip_caption": "a painting of a lake"}],
        "qa": [{"question": "When did Melanie paint a sunrise?", "answer": "2022",
                "evidence": ["D1:2"], "category": 2},
               {"question": "What did Melanie say about the support group?",
                "adversarial_answer": "nothing", "evidence": ["D1:1"], "category": 5}],
    }
    archive = tmp_path / "locomo10.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("data/locomo10_v2/26.json", json.dumps(sample))

    dataset = load_locomo(archive)

    talk = dataset.conversations[0]
    temporal, adversarial = talk.questions
    assert temporal.evidence == ("D1:2",) and not temporal.abstain
    assert adversarial.abstain and adversarial.evidence == ()
    assert talk.turns[1].text.endswith("[shares a photo: a painting of a lake]")
    assert talk.turns[0].occurred_at.isoformat() == "2023-05-08T13:56:00+00:00"
