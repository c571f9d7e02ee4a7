"""Issue 13's figures, by hand (never in the suite):

    python benchmarks/handoff_bench.py [--size 100000] [--keep DIR]

- import rate: `memhall import` of SIZE JSONL lines (50 topics) into a fresh SQLite store,
  wall and CPU time of the process;
- a busy hall: the store also holds open nominations (L3 and L4), open memory requests,
  open questions (incubating) and ratified knowledge, so every handoff section has rows;
- handoff as a process: the median of 10 runs of `memhall handoff` (plain, then `--json`,
  alternating; one session, continued) beside the median of 10 runs of `python -c pass`
  measured in the same run, and `--help` / `--version`;
- `memhall hook session-start --agent A` as a process, for each agent: the median of 10 runs,
  each a new agent session (so each opens a memhall session: one event), the hook JSON on stdin;
- `memhall state` in-process: the median of 200 calls of `sessions.current_state`.

Every figure is printed beside its goal. The machine's load shows in the `python -c pass`
baseline: compare the difference, not only the absolute time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def lines(size: int) -> bytes:
    out = []
    for i in range(size):
        topic = f"topic{i % 50}"
        out.append(json.dumps({"text": f"note {i} on {topic}: step {i} went fine",
                               "kind": "state" if i % 10 == 0 else "episode", "layer": "L2",
                               "tags": [topic], "author": "gemini" if i % 2 else "codex", "key": f"n{i}"}))
    return ("\n".join(out) + "\n").encode()


#: CPU seconds (user + system) of each process `run` started, in order
CPU: dict[str, list[float]] = {}


def run(args: list[str], env: dict[str, str], label: str = "", stdin: bytes | None = None) -> float:
    """Wall seconds of one process; its CPU seconds go to CPU[label]."""
    start = time.perf_counter()
    process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
                               stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL)
    if process.stdin is not None:
        process.stdin.write(stdin or b"")
        process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    took = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{args}: {process.stderr.read().decode() if process.stderr else ''}")
    if process.stderr:
        errors = process.stderr.read()
        process.stderr.close()
        if label.startswith("hook") and errors:
            raise SystemExit(f"{args}: {errors.decode()}")  # a hook exits 0 whatever happens
    CPU.setdefault(label, []).append(usage.ru_utime + usage.ru_stime)
    return took


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def busy(store: Path) -> None:
    """Rows in every handoff section (once per store): nominations, requests, questions, knowledge."""
    from uuid import UUID

    from memhall.domains.entry import draft
    from memhall.domains.values import Layer
    from memhall.governance import promotions, requests
    from memhall.governance.hall import Hall
    from memhall.governance.store import Store
    from memhall.policies.engine import PolicySet

    hall = Hall(Store(f"sqlite:///{store}"), PolicySet.load(None))
    if promotions.promotions(hall, "maki", "company", all_=True):
        hall.store.dispose()
        return
    facts = [UUID(hall.write("codex", "company", draft(text=f"settled fact {i}: deploys are on tuesdays",
                                                       layer="L2")).entry_id) for i in range(4)]
    for fact in facts:
        promotions.nominate(hall, "claude", "company", fact, Layer.L3, "held for a quarter")
    for promotion in promotions.promotions(hall, "maki", "company")[:2]:
        promotions.ratify(hall, "maki", "company", UUID(promotion.id))
    promotions.nominate(hall, "claude", "company", facts[0], Layer.L4, "binding for every deploy")
    for i in range(3):
        requests.request_memory(hall, "codex", "company", "gemini", f"who owns the export job {i}")
        hall.write("codex", "company", draft(text=f"why does export {i} drift?", kind="open-loop", layer="L2"))
    hall.store.dispose()


def hook_input(agent: str, session: str) -> bytes:
    return json.dumps({"session_id": session, "transcript_path": "", "cwd": str(ROOT),
                       "hook_event_name": "SessionStart", "source": "startup"}).encode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="keep (or reuse) the store in this folder")
    options = parser.parse_args()
    folder = options.keep or Path(tempfile.mkdtemp(prefix="memhall-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    store = folder / "bench.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MEMHALL_STORE": str(store), "MEMHALL_DOMAIN": "company"}
    env.pop("MEMHALL_SESSION", None)
    memhall = [sys.executable, "-m", "memhall"]

    if not store.exists():
        run([*memhall, "--as", "maki", "domain", "create", "company"], env)
        source = folder / "lines.jsonl"
        source.write_bytes(lines(options.size))
        cpu = children_cpu()
        wall = run([*memhall, "--as", "codex", "import", str(source)], env)
        cpu = children_cpu() - cpu
        print(f"import {options.size:,} lines: {options.size / wall:,.0f} entries/s wall "
              f"({options.size / cpu:,.0f}/s of CPU)   goal >= 10,000/s")

    busy(store)
    pass_runs = [run([sys.executable, "-c", "pass"], env, "pass") for _ in range(10)]
    run([*memhall, "--as", "codex", "handoff"], env)  # the first one caches the policy's decision
    handoff_runs = [run([*memhall, "--as", "codex", "handoff", *(["--json"] if i % 2 else [])], env, "handoff")
                    for i in range(10)]
    main_runs = [run([*memhall, "--as", "codex", "handoff"], {**env, "MEMHALL_FAST_HANDOFF": "0"}, "main")
                 for _ in range(3)]
    agents = ("claude", "codex", "gemini")
    stamp = time.time_ns()
    hook_runs: dict[str, list[float]] = {}
    for agent in agents:  # the first start of each caches the policy's answers
        run([*memhall, "--as", agent, "hook", "session-start", "--agent", agent], env, "hook-first",
            hook_input(agent, f"bench-{stamp}-{agent}-first"))
    for i in range(10):
        for agent in agents:
            hook_runs.setdefault(agent, []).append(run(
                [*memhall, "--as", agent, "hook", "session-start", "--agent", agent], env, f"hook-{agent}",
                hook_input(agent, f"bench-{stamp}-{agent}-{i}")))
    hook_main = [run([*memhall, "--as", "claude", "hook", "session-start", "--agent", "claude"],
                     {**env, "MEMHALL_FAST_HANDOFF": "0"}, "hook-main", hook_input("claude", f"bench-{stamp}-main-{i}"))
                 for i in range(3)]
    help_runs = [run([*memhall, "--help"], env, "help") for _ in range(5)]
    version_runs = [run([*memhall, "--version"], env, "version") for _ in range(5)]
    base = median_ms(pass_runs)

    def cpu(label: str) -> str:
        return f"CPU {median_ms(CPU[label]):6.1f} ms"

    print(f"python -c pass          {base:7.1f} ms wall, {cpu('pass')} (median of 10)")
    print(f"memhall handoff         {median_ms(handoff_runs):7.1f} ms wall, {cpu('handoff')} (median of 10; "
          f"{median_ms(handoff_runs) - base:.1f} ms wall over python -c pass)   goal <= 150 ms")
    print(f"  main path (no cache)  {median_ms(main_runs):7.1f} ms wall, {cpu('main')} (median of 3)")
    for agent in agents:
        print(f"hook session-start {agent:6} {median_ms(hook_runs[agent]):5.1f} ms wall, {cpu('hook-' + agent)} "
              f"(median of 10, each a new session; {median_ms(hook_runs[agent]) - base:.1f} ms wall over "
              "python -c pass)   goal <= 150 ms")
    print(f"  main path             {median_ms(hook_main):7.1f} ms wall, {cpu('hook-main')} (median of 3)")
    print(f"memhall --help          {median_ms(help_runs):7.1f} ms wall, {cpu('help')}   goal <= 300 ms")
    print(f"memhall --version       {median_ms(version_runs):7.1f} ms wall, {cpu('version')}   goal <= 300 ms")

    from memhall.governance import sessions
    from memhall.governance.hall import Hall
    from memhall.governance.store import Store
    from memhall.policies.engine import PolicySet

    hall = Hall(Store(f"sqlite:///{store}"), PolicySet.load(None))
    sessions.current_state(hall, "codex", "company")
    every, one = [], []
    for _ in range(200):
        start = time.perf_counter()
        sessions.current_state(hall, "codex", "company")
        every.append(time.perf_counter() - start)
        start = time.perf_counter()
        sessions.current_state(hall, "codex", "company", topic="topic7")
        one.append(time.perf_counter() - start)
    print(f"state (50 topics)       {median_ms(every):7.2f} ms in-process (median of 200)   goal <= 2 ms")
    print(f"state --topic T         {median_ms(one):7.2f} ms in-process (median of 200)   goal <= 2 ms")
    print(f"store: {store}")


if __name__ == "__main__":
    main()
