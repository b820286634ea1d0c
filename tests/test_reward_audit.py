"""The reward audit: it passes the grader on real episodes, and it catches a grader an optimiser could exploit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from supersede_env.cli import main as cli_main
from supersede_env.core import reward_audit
from supersede_env.core.episode import read_episodes
from supersede_env.core.grader import Verdict

REPO = Path(__file__).resolve().parents[1]
FROZEN = REPO / "data" / "synthetic_eval.jsonl"


@pytest.fixture(scope="module")
def episodes():
    return read_episodes(FROZEN)[:40]


def test_the_grader_passes_the_audit_on_frozen_episodes(episodes) -> None:
    result = reward_audit.audit(episodes)
    assert result.failures() == []
    assert result.episodes + result.skipped == 40
    best_blind = max(max(official, strict) - guess for _, official, strict, guess in result.blind())
    assert best_blind <= 1e-9


def test_a_grader_that_pays_any_mention_of_the_gold_fails_the_audit(episodes, monkeypatch) -> None:
    """A substring grader (the kind an optimiser beats by listing every value) is caught."""
    def naive(answer, episode, *, mode="official"):
        hit = episode.answer.lower() in answer.lower()
        return Verdict("current" if hit else "wrong", float(hit), 0.0, "substring", answer, mode)

    monkeypatch.setattr(reward_audit, "grade_episode", naive)
    result = reward_audit.audit(episodes)
    failures = " ".join(result.failures())
    assert "false pass in strict mode" in failures and "blind family" in failures


def test_withheld_candidates_are_graded_without_them(episodes) -> None:
    """The grader is not told the superseded values: it must find the rivals of a terse reply itself."""
    withheld = reward_audit.withheld(episodes[0])
    assert withheld.stale_values == () and "decoys" not in withheld.meta and withheld.answer == episodes[0].answer
    result = reward_audit.audit(episodes, withhold=True)
    assert result.false_pass("strict") < 0.03 and result.false_pass("official") < 0.03


def test_command_writes_json_and_exits_by_the_thresholds(tmp_path: Path) -> None:
    small = tmp_path / "small.jsonl"
    small.write_text("".join(FROZEN.read_text(encoding="utf-8").splitlines(keepends=True)[:20]), encoding="utf-8")
    out = tmp_path / "audit.json"
    assert cli_main(["reward-audit", "--episodes", str(small), "--json", str(out), "--no-examples"]) == 0
    data = json.loads(out.read_text())
    assert data["failures"] == [] and data["false_pass"]["strict"] == 0.0 and data["episodes"] == 20
