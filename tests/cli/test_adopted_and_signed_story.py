"""Issue 9 §6 and §7 as processes: the policy is adopted and pinned, and the owner's acts are signed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli.conftest import run_cli


def test_an_edited_policy_is_pinned_until_adopted_and_the_owners_acts_are_signed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    project = tmp_path / "project"
    project.mkdir()

    def memhall(*args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
        done = run_cli(list(args), cwd=project, env={"HOME": str(home), "MEMHALL_STORE": "",
                                                      "MEMHALL_KEY": ""})
        assert done.returncode == code, (args, done.stdout, done.stderr)
        return done

    memhall("init")
    memhall("--as", "maki", "domain", "create", "company")
    entry = json.loads(memhall("--as", "codex", "--domain", "company", "--json", "write", "--layer", "L2",
                               "--kind", "claim", "the build cache lives on the NAS").stdout)["entry_id"]
    nominated = memhall("--as", "claude", "--domain", "company", "--json", "nominate", entry, "--to", "L3",
                        "--stale-fact", "unchanged for a quarter")
    promotion = json.loads(nominated.stdout)["promotion_id"]

    # the owner registers a key: the policy folder changes, so it must be adopted before any write
    key = tmp_path / "maki_key"
    line = memhall("--as", "maki", "keys", "init", "--file", str(key), "--no-passphrase").stdout.strip()
    (project / "memhall-policy" / "allowed_signers").write_text(line + "\n")
    refused = memhall("--as", "codex", "--domain", "company", "write", "--layer", "L2", "another", code=3)
    assert refused.stderr.strip().endswith(
        "the policy on disk differs from the adopted policy "
        f"{_adopted(memhall)}: review with `memhall policy diff --adopted`, then `memhall policy adopt`")
    read = memhall("--as", "codex", "--domain", "company", "log", "--limit", "1")
    assert "differs from the adopted policy" in read.stderr
    memhall("--domain", "company", "policy", "diff", "--adopted")

    # who adopts is decided under the policy already adopted
    memhall("--as", "codex", "policy", "adopt", "--domain", "company", code=3)
    adopted = memhall("--as", "maki", "policy", "adopt")
    assert "adopted policy" in adopted.stdout and "company" in adopted.stdout
    memhall("--as", "codex", "--domain", "company", "write", "--layer", "L2", "another")

    # now maki has a key: the ratification is refused unsigned, accepted signed
    unsigned = memhall("--as", "maki", "--domain", "company", "ratify", promotion, code=3)
    assert "human-acts-are-signed" in memhall("--as", "maki", "--domain", "company", "audit", "log",
                                              "--decision", "refused").stdout, unsigned.stderr
    memhall("--as", "maki", "--domain", "company", "ratify", promotion, "--key", str(key))
    assert "[L3]" in memhall("--as", "maki", "--domain", "company", "knowledge").stdout

    verified = memhall("audit", "verify")
    assert "1 signature(s) verified" in verified.stdout
    adoptions = memhall("--as", "maki", "--domain", "company", "audit", "log", "--action", "policy_adopt",
                       "--decision", "allowed").stdout
    assert adoptions.count("policy_adopt") == 2  # trust on first use, then the owner's adoption

    # naming yourself owner in roles.yaml gets you nothing: the write path is closed, adoption refused
    roles = project / "memhall-policy" / "roles.yaml"
    roles.write_text(roles.read_text().replace("codex: agent", "codex: human")
                     .replace("ratify_owner: [maki]", "ratify_owner: [maki, codex]"))
    memhall("--as", "codex", "--domain", "company", "reject", promotion, "--reason", "mine now", code=3)
    memhall("--as", "codex", "policy", "adopt", code=3)


def _adopted(memhall: object) -> str:
    """The digest adopted at init: the defaults' (trust on first use)."""
    from memhall.policies.digest import digest_summary, policy_digest
    from memhall.policies.files import read_policy_dir

    return digest_summary(policy_digest(read_policy_dir(None)))
