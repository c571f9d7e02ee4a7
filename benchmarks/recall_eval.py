"""Recall evaluation (issue 12, §5): run by hand, `python benchmarks/recall_eval.py`.

Ingests a dataset into a fresh SQLite store through the real hall (a domain
created by its owner maki, turns written with the governed batched path as
L2 episodes tagged with their speaker), asks every question of every recall
system, and prints R@1/5/10, abstention precision/recall, how often the top 5
holds something the asking observer never held (leak@5), and query latency.
Needs the eval extra: pip install -e '.[eval]'.

    python benchmarks/recall_eval.py                         # the multi-agent story
    python benchmarks/recall_eval.py --dataset locomo --locomo data/locomo10.zip
    python benchmarks/recall_eval.py --dataset perltqa --perltqa PerLTQA/Dataset/en_v2
    python benchmarks/recall_eval.py --size 100000 --systems fts,fused   # latency at 100k
    python benchmarks/recall_eval.py --size 100000 --keep DIR --repeat 3    # steadier latency
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.evaluation.datasets import Dataset, load_multiagent  # noqa: E402
from benchmarks.evaluation.public import load_locomo, load_perltqa  # noqa: E402
from benchmarks.evaluation.scores import as_json, evaluate, table  # noqa: E402
from benchmarks.evaluation.systems import SYSTEMS  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", choices=("multiagent", "perltqa", "locomo"), default="multiagent")
    parser.add_argument("--perltqa", type=Path, help="folder with perltmem*.json and perltqa*.json")
    parser.add_argument("--locomo", type=Path, help="locomo10.zip, locomo10.json or their folder")
    parser.add_argument("--limit", type=int, help="ask only the first N questions")
    parser.add_argument("--size", type=int, default=0, help="pad each store with N distractor entries")
    parser.add_argument("--systems", default=",".join(SYSTEMS),
                        help=f"comma-separated, from: {', '.join(SYSTEMS)}")
    parser.add_argument("--repeat", type=int, default=1,
                        help="ask each question N times in a row: the first answer is scored, its latency "
                             "is the median of the N (steadier on a shared machine)")
    parser.add_argument("--json", action="store_true", help="print the scores as JSON")
    parser.add_argument("--keep", type=Path, help="keep the stores here (a later run with the same data reopens them) instead of a temp dir")
    args = parser.parse_args(argv)
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown or not systems:
        parser.error(f"unknown system {', '.join(unknown) or '(none)'}; choose from {', '.join(SYSTEMS)}")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    dataset = _load(parser, args).limited(args.limit)
    if not dataset.questions:
        parser.error("no questions to ask")
    with tempfile.TemporaryDirectory(prefix="recall-eval-") as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        report = evaluate(dataset, systems, folder, distractors=args.size, repeat=args.repeat,
                          progress=lambda line: print(line, file=sys.stderr))
    print(json.dumps(as_json(report), indent=2) if args.json else table(report))
    return 0


def _load(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Dataset:
    if args.dataset == "perltqa":
        if not args.perltqa:
            parser.error("--dataset perltqa needs --perltqa PATH (see benchmarks/README.md)")
        return load_perltqa(args.perltqa)
    if args.dataset == "locomo":
        if not args.locomo:
            parser.error("--dataset locomo needs --locomo PATH (see benchmarks/README.md)")
        return load_locomo(args.locomo)
    return load_multiagent()


if __name__ == "__main__":
    sys.exit(main())
