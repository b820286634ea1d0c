"""The runner's two drivers (lockstep batches, concurrent calls), crash + resume, and local generation."""

import asyncio
from dataclasses import replace

import pytest

from supersede_env.core.conditions import parse_condition
from supersede_env.evaluation.config import build_config
from supersede_env.evaluation import rundir
from supersede_env.evaluation.runner import expected_steps, plan_pairs, run_pairs
from supersede_env.core.records import RecordWriter, load_run, to_dict
from supersede_env.core.model_call import ModelReply
from tests.eval_support import city_episode, run_cli, scripted_reply, write_city_episodes


class ScriptedBackend:
    """An in-process-style backend answering like the scripted model; records the batch sizes."""

    def __init__(self, *, batch: bool = True, crash_after: int | None = None, raise_on: str | None = None):
        self.supports_batch = batch
        self.batches: list[int] = []
        self.crash_after = crash_after
        self.raise_on = raise_on

    def identity(self):
        return {"backend": "scripted", "model": "scripted"}

    def _reply(self, request):
        prompt = "\n".join(m["content"] for m in request.messages)
        if self.raise_on and self.raise_on in prompt:
            raise RuntimeError("scripted backend bug")
        return ModelReply(scripted_reply(prompt), tokens_in=len(prompt.split()), tokens_out=3, latency_s=0.0)

    def complete_batch(self, requests):
        if self.crash_after is not None and len(self.batches) >= self.crash_after:
            raise KeyboardInterrupt  # stands in for Ctrl-C or a kill: nothing may swallow it
        self.batches.append(len(requests))
        return [self._reply(r) for r in requests]

    async def complete(self, request):
        self.batches.append(1)
        return self._reply(request)

    async def aclose(self):
        pass


def start_run(tmp_path, name, episodes, conditions):
    config = build_config({}, {"model": "embedded", "source": "file", "path": str(episodes),
                               "conditions": tuple(conditions.split(",")), "out": str(tmp_path / name)})
    return rundir.open_run(config)


def execute(opened, backend, *, log=None, batch_size=4):
    plan = asyncio.run(plan_pairs(opened.episodes, opened.conditions, log))
    if log is None:
        rundir.create_run(opened, rundir.make_header(opened, backend.identity(), None)).release()
    with RecordWriter(opened.records_path) as writer:
        if log is not None:
            writer.append(rundir.resume_record(opened, backend.identity()))
        return plan, asyncio.run(run_pairs(plan, backend, writer, concurrency=4, batch_size=batch_size))


def verdicts(path):
    return {k: to_dict(v) for k, v in load_run(path).verdicts.items()}


def test_plan_counts_calls_and_pairs():
    episodes = [city_episode(i) for i in range(3)]
    conditions = [parse_condition("full"), parse_condition("memo:300")]
    plan = asyncio.run(plan_pairs(episodes, conditions))
    assert plan.pairs_total == 6 and len(plan.tasks) == 6 and plan.pairs_finished == 0
    assert plan.calls_expected == 3 * 1 + 3 * 4 == sum(expected_steps(e, c) for e in episodes for c in conditions)


def test_lockstep_batches_across_episodes_and_matches_the_concurrent_driver(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 6, abstention=(5,))
    batched = ScriptedBackend(batch=True)
    lock = start_run(tmp_path, "lockstep", episodes, "full,memo:300,ledger:300")
    _, stats = execute(lock, batched, batch_size=4)
    assert stats.calls_made == 6 + 24 + 24 and stats.pairs_finished == 18
    assert max(batched.batches) == 4 and len(batched.batches) < stats.calls_made / 2  # real batches
    single = ScriptedBackend(batch=False)
    conc = start_run(tmp_path, "concurrent", episodes, "full,memo:300,ledger:300")
    execute(conc, single)
    assert set(single.batches) == {1}
    assert verdicts(lock.records_path) == verdicts(conc.records_path)


def test_a_crash_mid_lockstep_resumes_to_the_same_results(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 5)
    reference = start_run(tmp_path, "reference", episodes, "full,memo:300")
    execute(reference, ScriptedBackend())
    crashed = start_run(tmp_path, "crashed", episodes, "full,memo:300")
    with pytest.raises(KeyboardInterrupt):
        execute(crashed, ScriptedBackend(crash_after=3), batch_size=2)
    partial = load_run(crashed.records_path)
    assert 0 < partial.n_call_records < 5 + 20 and len(partial.verdicts) < 10
    reopened = rundir.open_run(replace(crashed.config, resume=True), explicit=())
    plan, stats = execute(reopened, ScriptedBackend(), log=reopened.log)
    assert plan.calls_replayed == partial.n_call_records
    assert stats.calls_made == 25 - partial.n_call_records  # nothing asked twice
    assert verdicts(crashed.records_path) == verdicts(reference.records_path)


def test_a_backend_that_raises_gives_failed_rows_not_a_crash(tmp_path):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    for batch in (True, False):
        opened = start_run(tmp_path, f"raises-{batch}", episodes, "memo:300")
        _, stats = execute(opened, ScriptedBackend(batch=batch, raise_on="Boston"))  # e2's sessions
        log = load_run(opened.records_path)
        failed = log.verdict_for("e2", "memo:300")
        assert failed.status == "failed" and "backend raised RuntimeError: scripted backend bug" in failed.error
        assert len(log.verdicts) == 3 and stats.calls_failed >= 1  # no pair dropped
        if not batch:  # one call at a time: only e2's calls fail
            assert log.verdict_for("e1", "memo:300").status == "ok"


def _local_run(tmp_path, model_dir, conditions):
    episodes = write_city_episodes(tmp_path / "eps.jsonl", 3)
    out = tmp_path / "run"
    code, stdout, stderr = run_cli("eval", "--model", f"hf:{model_dir}", "--episodes", str(episodes),
                                   "--conditions", conditions, "--out", str(out), "--no-progress")
    assert code == 0, stderr
    assert "report:" in stdout
    log = load_run(out)
    assert log.header.model["backend"] == "hf" and log.header.model["generation"]["decoding"] == "greedy"
    assert all(s.tokens_out for key in log.calls for s in log.steps_for(*key) if s.status != "failed")
    return log


def test_local_hf_backend_through_the_cli(tmp_path, tiny_model_dir):
    """The in-process backend from the command line: one lockstep batch of three answers (~5 s)."""
    log = _local_run(tmp_path, tiny_model_dir, "full")
    assert len(log.verdicts) == 3 and log.n_call_records == 3


@pytest.mark.slow
def test_local_hf_backend_memo_rollouts(tmp_path, tiny_model_dir):
    """Memo rollouts in lockstep on a real (tiny) model: 4 rounds of batched generation (~20 s)."""
    log = _local_run(tmp_path, tiny_model_dir, "full,memo:300")
    assert len(log.verdicts) == 6 and log.n_call_records == 3 + 12
