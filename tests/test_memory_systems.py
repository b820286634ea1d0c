"""The memory-system contract, its driver and the built-in systems (rag, facts), without a server."""

import asyncio

import pytest

from supersede_env.core.conditions import parse_condition
from supersede_env.core.errors import ConditionError
from supersede_env.core.memory_builtin import FactsSystem, RagSystem, apply_fact_ops, parse_fact_ops
from supersede_env.core.memory_rollout import ResumeMismatch, run_system
from supersede_env.core.memory_system import Fact, MemoryOp, MemorySystemError, ModelCallFailed, check_system
from supersede_env.core.model_call import ChatRequest, ModelReply
from supersede_env.core import retrieval, rollout
from supersede_env.baselines.policies import get_policy
from tests.eval_support import city_episode


def recency(request):
    return ModelReply(get_policy("recency").reply(request.call.messages[0]["content"]), tokens_in=3, tokens_out=2)


def drive(system, episode, condition, *, live, **options):
    """The driver on an event loop of its own, ``live`` a plain function of the request (each call
    yields to the loop once, as a real one does)."""
    async def call(request):
        await asyncio.sleep(0)
        return live(request)

    return asyncio.run(run_system(system, episode, condition, live=call, **options))


# -- conditions -----------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["rag:300", "rag:300:turns", "facts:300", "memory", "rag:1000+contract"])
def test_memory_system_conditions_parse_and_round_trip(text):
    condition = parse_condition(text)
    assert condition.is_system and not condition.is_memo
    assert parse_condition(condition.name) == condition


@pytest.mark.parametrize("text, problem", [("facts:300:turns", "no passage unit"), ("rag:300+dates", r"no \+dates"),
                                           ("memory:300", "takes no budget")])
def test_bad_memory_system_conditions_are_one_line_errors(text, problem):
    with pytest.raises(ConditionError, match=problem):
        parse_condition(text)


def test_the_rollout_state_machine_refuses_a_memory_system():
    # the verifiers environment and the trainer drive this machine: they keep to the built-in conditions
    with pytest.raises(ConditionError, match="runs in supersede eval only"):
        rollout.start(city_episode(0), parse_condition("facts:300"))


# -- the contract ---------------------------------------------------------------------------------
class NoAnswer:
    def reset(self, episode_id): ...
    def ingest(self, session, model): ...


def test_a_system_missing_a_method_is_named_in_one_line():
    with pytest.raises(MemorySystemError, match=r"has no answer\(\) method") as info:
        check_system(NoAnswer(), "option --memory x:y")
    assert "\n" not in str(info.value)


class Echo:
    """Calls the model once per session and once to answer; swallows a failed call (it must not matter)."""

    def reset(self, episode_id):
        self.seen = []

    def ingest(self, session, model):
        try:
            self.seen.append(model(ChatRequest(({"role": "user", "content": f"remember {len(self.seen)}"},), 8)))
        except ModelCallFailed:
            pass
        return [MemoryOp("add", str(len(self.seen)), None, "x")]

    def facts(self):
        return [Fact(str(i), text) for i, text in enumerate(self.seen)]

    def answer(self, question, model):
        return model(ChatRequest(({"role": "user", "content": "answer"},), 8))


def test_every_call_is_recorded_and_a_failed_one_fails_the_pair_even_if_the_system_catches_it():
    episode = city_episode(1)
    replies = iter([ModelReply("a", tokens_in=1, tokens_out=1, latency_s=0.1), ModelReply.failed("HTTP 500")])
    seen = []
    run = drive(Echo(), episode, parse_condition("memory"), live=lambda request: next(replies),
                on_call=lambda step, replayed: seen.append(step))
    assert run.transcript.status == "failed" and run.transcript.answer is None
    assert [s.status for s in seen] == ["ok", "failed"] and seen[0].tokens_in == 1 and seen[0].prompt_hash
    assert "HTTP 500" in run.error
    assert len(run.sessions) == 1  # the session whose call failed is not recorded as done


def test_a_resume_replays_recorded_replies_and_refuses_a_changed_prompt():
    episode = city_episode(1)
    first = drive(Echo(), episode, parse_condition("memory"), live=lambda r: ModelReply("a"))
    assert first.transcript.status == "ok" and len(first.transcript.steps) == 4
    live_calls = []
    again = drive(Echo(), episode, parse_condition("memory"), recorded=first.transcript.steps[:2],
                  live=lambda r: live_calls.append(r) or ModelReply("a"))
    assert len(live_calls) == 2 and again.transcript == first.transcript
    changed = [first.transcript.steps[0].__class__(**{**first.transcript.steps[0].to_dict(), "prompt_hash": "0" * 16})]
    with pytest.raises(ResumeMismatch):
        drive(Echo(), episode, parse_condition("memory"), recorded=changed, live=lambda r: ModelReply("a"))


def test_a_system_that_raises_fails_its_pair_with_the_message():
    class Broken(Echo):
        def ingest(self, session, model):
            raise KeyError("subject")

    run = drive(Broken(), city_episode(0), parse_condition("memory"), live=lambda r: ModelReply("a"))
    assert run.transcript.status == "failed" and "KeyError" in run.error


class AsyncEcho(Echo):
    """Echo as a coroutine system: the same calls, awaited on the loop."""

    async def ingest(self, session, model):
        try:
            self.seen.append(await model(ChatRequest(({"role": "user", "content": f"remember {len(self.seen)}"},), 8)))
        except ModelCallFailed:
            pass
        return [MemoryOp("add", str(len(self.seen)), None, "x")]

    async def answer(self, question, model):
        return await model(ChatRequest(({"role": "user", "content": "answer"},), 8))


def test_a_coroutine_system_runs_on_the_loop_and_records_what_a_plain_one_records():
    import threading

    episode, condition = city_episode(1), parse_condition("memory")
    threads = []
    plain = drive(Echo(), episode, condition, live=lambda r: ModelReply("a"))
    on_loop = drive(AsyncEcho(), episode, condition,
                    live=lambda r: threads.append(threading.current_thread()) or ModelReply("a"))
    assert on_loop == plain and on_loop.transcript.status == "ok"
    assert set(threads) == {threading.main_thread()}  # its calls never left the loop's thread


@pytest.mark.parametrize(("raised", "message"), [(KeyError("subject"), "KeyError: 'subject'"),
                                                  (asyncio.CancelledError("mine"), "CancelledError: mine"),
                                                  (SystemExit(3), "SystemExit: 3")])
def test_a_coroutine_system_that_raises_fails_its_pair_even_a_cancellation_of_its_own(raised, message):
    class Broken(AsyncEcho):
        async def ingest(self, session, model):
            raise raised

    run = drive(Broken(), city_episode(0), parse_condition("memory"), live=lambda r: ModelReply("a"))
    assert run.transcript.status == "failed" and run.error == f"memory system raised {message}"


def test_calls_made_at_once_are_sent_one_at_a_time_in_the_order_made():
    class Both(AsyncEcho):
        async def ingest(self, session, model):
            replies = await asyncio.gather(*(model(ChatRequest(({"role": "user", "content": f"call {i}"},), 8))
                                             for i in range(3)))
            self.seen.extend(replies)
            return []

    sent = []
    run = drive(Both(), city_episode(1), parse_condition("memory"),
                live=lambda r: sent.append(r.call.messages[0]["content"]) or ModelReply(str(len(sent))))
    steps = run.transcript.steps
    assert [s.step for s in steps] == list(range(len(steps))) and run.transcript.status == "ok"
    assert sent[:3] == ["call 0", "call 1", "call 2"] and [s.output for s in steps[:3]] == ["1", "2", "3"]


def test_a_changed_prompt_stops_the_resume_even_when_the_system_catches_it():
    class Swallows(Echo):
        def ingest(self, session, model):
            try:
                model(ChatRequest(({"role": "user", "content": "a prompt of today"},), 8))
            except Exception:  # noqa: BLE001  (what a careless system does)
                pass
            return []

        def answer(self, question, model):
            return "Portland"  # no call: nothing after the swallowed one would notice

    episode = city_episode(1)
    first = drive(Echo(), episode, parse_condition("memory"), live=lambda r: ModelReply("a"))
    with pytest.raises(ResumeMismatch):
        drive(Swallows(), episode, parse_condition("memory"), recorded=first.transcript.steps[:2],
              live=lambda r: ModelReply("a"))


def test_an_in_process_model_never_serves_two_threads_even_when_a_system_gives_up_a_call():
    import threading
    import time
    from types import SimpleNamespace

    from supersede_env.evaluation.memory_runner import SystemPairTask, run_systems

    class InProcess:  # one model in this process: two threads inside it at once would corrupt it
        supports_batch = True

        def __init__(self):
            self.inside, self.most = 0, 0
            self.lock = threading.Lock()

        def complete_batch(self, requests):
            with self.lock:
                self.inside += 1
                self.most = max(self.most, self.inside)
            time.sleep(0.2)
            with self.lock:
                self.inside -= 1
            return [ModelReply("a") for _ in requests]

    class Impatient(AsyncEcho):
        async def ingest(self, session, model):
            try:  # gives its first call up before the model is done, then calls again at once
                await asyncio.wait_for(model(ChatRequest(({"role": "user", "content": "slow"},), 8)), 0.05)
            except TimeoutError:
                pass
            return []

    backend, verdicts = InProcess(), []
    recorder = SimpleNamespace(step=lambda *a: None, calls_failed=0, verdict=verdicts.append,
                               writer=SimpleNamespace(append=lambda record: None))
    bar = SimpleNamespace(advance=lambda *a, **k: None, pair_done=lambda **k: None)
    tasks = [SystemPairTask(city_episode(i), parse_condition("memory"), Impatient) for i in range(2)]
    asyncio.run(run_systems(tasks, backend, recorder, bar, None, asyncio.Semaphore(1), concurrency=4))
    assert len(verdicts) == 2 and backend.most == 1


def test_cancelling_the_driver_stops_a_coroutine_system_that_waits_forever():
    class Stuck(AsyncEcho):
        async def ingest(self, session, model):
            await asyncio.Event().wait()

    async def main():
        async def live(request):
            return ModelReply("a")

        task = asyncio.create_task(run_system(Stuck(), city_episode(0), parse_condition("memory"), live=live))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


class HalfAsync(Echo):
    async def ingest(self, session, model):
        return []


class OtherHalfAsync(Echo):
    async def answer(self, question, model):
        return ""


class AsyncFacts(AsyncEcho):
    async def facts(self):
        return []


@pytest.mark.parametrize(("system", "problem"), [
    (HalfAsync(), r"ingest\(\) is async but answer\(\) is not"),
    (OtherHalfAsync(), r"answer\(\) is async but ingest\(\) is not"),
    (AsyncFacts(), r"facts\(\) is async; it calls no model"),
])
def test_a_system_half_async_is_refused_in_one_line(system, problem):
    with pytest.raises(MemorySystemError, match=problem) as info:
        check_system(system, "option --memory x:y")
    assert "\n" not in str(info.value)


# -- facts ----------------------------------------------------------------------------------------
def test_fact_operations_are_parsed_leniently_and_unknown_lines_counted():
    ops, ignored = parse_fact_ops("ADD: lives in Denver\n- UPDATE f2: drives a Prius\nDELETE f1\nNOOP f3\nNOOP\nwhat?")
    assert [(o.verb, o.fact_id, o.text) for o in ops] == [("add", None, "lives in Denver"), ("update", "f2", "drives a Prius"),
                                                          ("delete", "f1", ""), ("noop", "f3", ""), ("noop", None, "")]
    assert ignored == 1


def test_code_applies_fact_operations_records_each_and_evicts_the_oldest_written_over_budget():
    store = (Fact("f1", "lives in Denver"), Fact("f2", "drives a Malibu"))
    ops, _ = parse_fact_ops("UPDATE f1: lives in Portland\nDELETE f9\nADD: has 3 cats\nNOOP f2")
    result = apply_fact_ops(store, ops, budget=len("f1: lives in Portland\nf3: has 3 cats"), next_id=3)
    assert [f.text for f in result.facts] == ["lives in Portland", "has 3 cats"]
    assert [(o.op, o.fact_id) for o in result.ops] == [("update", "f1"), ("add", "f3"), ("noop", "f2"), ("evict", "f2")]
    assert result.ops[0].before == "lives in Denver" and result.ignored == 1  # DELETE f9: no such fact


def test_the_facts_system_under_the_recency_policy_keeps_the_latest_value():
    run = drive(FactsSystem(parse_condition("facts:300")), city_episode(2), parse_condition("facts:300"),
                     live=recency)
    assert run.transcript.status == "ok" and run.transcript.answer == city_episode(2).answer
    assert run.sessions[0].ops[0].op == "add" and run.sessions[-1].facts is not None


# -- rag ------------------------------------------------------------------------------------------
PASSAGES = [
    "my sister Ana moved to Lisbon for work, and Ana loves Lisbon",  # best for "Ana Lisbon": the decoy
    "over a long dinner last week I told Ana that I moved to Porto myself, for the new job at the harbour",  # 2nd
    "the weather was nice",
]


def test_bm25_the_answer_in_the_second_best_passage_fits_at_budget_b_not_at_half_of_it():
    passages = [retrieval.Passage(i, text) for i, text in enumerate(PASSAGES)]
    scores = retrieval.scores(passages, "Where does Ana live, Lisbon?")
    assert scores[0] > scores[1] > scores[2] == 0.0
    budget = len(PASSAGES[0]) + len(retrieval.SEPARATOR) + len(PASSAGES[1])
    at_b = retrieval.render(retrieval.select(passages, "Where does Ana live, Lisbon?", budget))
    at_half = retrieval.render(retrieval.select(passages, "Where does Ana live, Lisbon?", budget // 2))
    assert "Porto" in at_b and at_b.index("Lisbon") < at_b.index("Porto")  # in archive (date) order
    assert "Porto" not in at_half


def test_remembered_stems_are_the_stemmers_and_a_full_cache_starts_over(monkeypatch):
    import snowballstemmer

    words = "moving moved lives living cities Lisbon running runs".split()
    fresh = snowballstemmer.stemmer("english").stemWords(words)
    monkeypatch.setattr(retrieval, "_stems", {})
    assert retrieval.stem_words(words) == fresh == retrieval.stem_words(words)  # missed, then remembered
    monkeypatch.setattr(retrieval, "MAX_CACHED_STEMS", 3)
    assert retrieval.stem_words(["harbour", *words]) == snowballstemmer.stemmer("english").stemWords(["harbour", *words])
    assert set(retrieval._stems) == {"harbour"}  # over the bound: only the new words are kept
    passages = [retrieval.Passage(i, text) for i, text in enumerate(PASSAGES)]
    assert retrieval.scores(passages, "Where does Ana live, Lisbon?")[0] > 0


def test_rag_makes_no_call_while_ingesting_and_answers_from_the_retrieved_turns_only():
    condition = parse_condition("rag:120:turns")
    calls = []
    episode = city_episode(3)  # "I live in Miami." then "Since the move to Chicago my commute is long."
    run = drive(RagSystem(condition), episode, condition, live=lambda r: calls.append(r) or recency(r))
    assert [c.kind for c in calls] == ["answer"]
    context = calls[0].call.messages[0]["content"].split("<passages>\n")[1].split("\n</passages>")[0]
    assert len(context) <= 120 and "user: I live in Miami." in context
    # the update shares no word with "Which city do I live in now?": BM25 never retrieves it, so the
    # answer is the superseded value, what the full history avoids
    assert "Chicago" not in context and run.transcript.answer == "Miami" == episode.stale_values[0]
    assert run.sessions[0].facts is None  # rag exposes no store


@pytest.mark.parametrize("condition", ["rag:300", "facts:300", "memory"])
def test_the_trainer_refuses_a_memory_system_in_one_line(condition):
    pytest.importorskip("trl")
    from tests.test_training_config import TINY, _one_line_error

    message = _one_line_error(["--config", str(TINY), "--condition", condition])
    assert f"condition: {condition} is not a memo condition" in message


@pytest.mark.parametrize("name", ["memo:300", "ledger:300", "ledger-ops:60+dates", "memo:300+contract"])
def test_the_memo_modes_on_the_contract_send_the_rollouts_prompts_and_keep_its_notes(name):
    from supersede_env.core.memory_builtin import NotesSystem

    condition = parse_condition(name)
    for index in range(4):
        episode = city_episode(index)
        state = rollout.start(episode, condition)
        while (request := rollout.next_request(state)) is not None:
            state = rollout.advance(state, recency(request))
        system = NotesSystem(condition)
        run = drive(system, episode, condition, live=recency)
        expected = state.transcript()
        assert [s.prompt_hash for s in run.transcript.steps] == [s.prompt_hash for s in expected.steps]
        assert run.transcript.answer == expected.answer and system.notes == expected.final_notes
        assert [f.text for f in run.sessions[-1].facts] == [ln for ln in expected.final_notes.splitlines() if ln.strip()]
        if condition.mode == "ledger-ops":  # its operations, reported; the 60-character budget evicts
            assert {op.op for s in run.sessions for op in s.ops} >= {"add", "evict"}
