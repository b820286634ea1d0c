"""A run killed at a random point and resumed gives the same results as an uninterrupted run."""

import os
import random
import subprocess
import time

from supersede_env.core.records import RECORDS_FILE, load_run
from tests.eval_support import cli_command, read_report, run_cli, scripted_reply, verdict_rows, write_city_episodes
from tests.fakeserver import FakeChatServer

CONDITIONS = "full,memo:300,ledger:300,memo:300+contract"
N_EPISODES = 10
EXPECTED_CALLS = N_EPISODES * 1 + 3 * N_EPISODES * 4  # full: 1 call; memo modes: 3 sessions + answer


def lines_in(path):
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_resume_after_a_kill_at_a_random_point_matches_an_uninterrupted_run(tmp_path):
    seed = int.from_bytes(os.urandom(4), "little")
    rng = random.Random(seed)
    episodes = write_city_episodes(tmp_path / "eps.jsonl", N_EPISODES, abstention=(N_EPISODES - 1,))
    with FakeChatServer(reply=scripted_reply, latency_s=0.02) as server:
        common = ("--model", f"openai:fake@{server.url}", "--episodes", str(episodes), "--conditions", CONDITIONS,
                  "--concurrency", "3", "--no-progress")
        reference = tmp_path / "reference"
        assert run_cli("eval", *common, "--out", str(reference))[0] == 0

        killed = tmp_path / "killed"
        records = killed / RECORDS_FILE
        kill_at = rng.randint(3, EXPECTED_CALLS)  # a record count, header included
        log = (tmp_path / "killed.log").open("w")
        proc = subprocess.Popen(cli_command("eval", *common, "--out", str(killed)), stdout=log, stderr=log)
        deadline = time.monotonic() + 120
        while proc.poll() is None and lines_in(records) < kill_at and time.monotonic() < deadline:
            time.sleep(0.002)
        proc.kill()
        proc.wait()
        assert proc.returncode == -9, f"seed {seed}: the run ended before the kill at record {kill_at}"
        written = lines_in(records)
        # what a kill in the middle of a write leaves behind: a partial last line
        with records.open("a") as handle:
            handle.write('{"kind":"call","schema_version":1,"episode_id":"e')

        code, _, stderr = run_cli("eval", "--resume", "--out", str(killed), "--no-progress")
        assert code == 0, f"seed {seed}: {stderr}"

    resumed = load_run(killed)
    assert resumed.resumes[-1].truncated_tail, f"seed {seed}"
    assert verdict_rows(killed) == verdict_rows(reference), f"seed {seed}, killed at record {written}"
    # nothing duplicated: exactly one call record per step of every pair, none lost
    assert resumed.n_call_records == EXPECTED_CALLS, f"seed {seed}, killed at record {written}"
    original = load_run(reference)
    for key in original.calls:
        assert [(s.step, s.prompt_hash, s.output) for s in original.steps_for(*key)] == \
               [(s.step, s.prompt_hash, s.output) for s in resumed.steps_for(*key)], f"seed {seed}: {key}"
    ref, got = read_report(reference), read_report(killed)
    assert got["conditions"] == ref["conditions"] or _same_numbers(got, ref), f"seed {seed}"
    assert got["paired"] == ref["paired"] and got["diagnostics"] == ref["diagnostics"], f"seed {seed}"


def _same_numbers(got, ref):
    """Conditions equal except call latencies (a resumed run's calls took other times)."""
    def strip(report):
        return [{k: v for k, v in c.items() if k != "mean_latency_s"} for c in report["conditions"]]
    return strip(got) == strip(ref)
