"""Paired evaluation: the same questions under full context and bounded memos, compared pairwise.

Examples:

    supersede eval --demo
    supersede eval --demo --model baseline:recency     # a reference policy (not a model): seconds, no model
    supersede eval --model openai:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1 --source longmemeval --path oracle \\
        --conditions full,memo:300,ledger:300,memo:1000 --concurrency 32 --out runs/qwen3-oracle
    supersede eval --model hf:/models/Qwen2.5-0.5B-Instruct --episodes data/synthetic_eval.jsonl --limit 50
    supersede eval --config configs/eval-oracle-vllm.yaml --judge openai:gpt-4o-mini@https://api.openai.com/v1
    supersede eval --resume --out runs/qwen3-oracle            # continue a killed run
    supersede eval --resume --retry-failed --out runs/qwen3-oracle

Every model call and verdict is appended to OUT/records.jsonl as it happens; the report (OUT/report.md,
OUT/report.json, OUT/plots/) is rebuilt from those records by ``supersede report OUT``. Every option,
path, condition, backend spec and data file is checked before the first model call. One process at a
time works on a run directory (a second one exits at once, naming the first one's pid).

API keys: none is sent unless named: --api-key-env VAR for the model, --judge-api-key-env VAR for the
judge (each key goes only to its own URL); their values are masked in every file the run writes.

Exit status: 0 every pair graded (and judged, with --judge), none with an empty answer; 2 bad input
or the run directory is in use (nothing was run); 3 some pairs failed (a model or judge call failed
after its retries; the report is written and lists them; --resume --retry-failed runs them again);
4 no pair failed but some answers were empty (null or blank content; counted in the report);
130 interrupted (continue with --resume).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from supersede_env.commands.source_options import (add_source_arguments, refuse_other_kinds,
                                                   source_flag_values)
from supersede_env.core.safe_text import for_console
from supersede_env.evaluation.config import (FIELD_NAMES, POLICY_CHOICES, ConfigError, EvalConfig, build_config,
                                             field_default, field_help, load_config_file)

if TYPE_CHECKING:
    from supersede_env.evaluation.report import ReportFiles
    from supersede_env.evaluation.rundir import OpenedRun
    from supersede_env.evaluation.runner import RunPlan, RunStats
    from supersede_env.evaluation.summary import RunSummary

EXIT_OK = 0
EXIT_BAD_INPUT = 2  # also: the run directory is in use by another process
EXIT_PAIRS_FAILED = 3  # the report is written; failed pairs are listed in it
EXIT_EMPTY_ANSWERS = 4  # every pair graded, but some answers were empty


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = __doc__.split("\n\n", 1)[1] if __doc__ else None
    # Every default is None: a flag counts only when given, so --config values and a resumed run's
    # recorded configuration are not overridden by defaults. The real defaults live in EvalConfig.
    what = parser.add_argument_group("what to measure")
    what.add_argument("--conditions", metavar="C1,C2,...", help=_help("conditions"))
    what.add_argument("--policy", choices=POLICY_CHOICES, help=_help("policy"))
    what.add_argument("--memory", metavar="MODULE:FACTORY", help=_help("memory"))
    add_source_arguments(parser.add_argument_group("episodes"))
    model = parser.add_argument_group("model and judge")
    model.add_argument("-m", "--model", metavar="SPEC", help=_help("model"))
    model.add_argument("--temperature", type=float, help=_help("temperature"))
    model.add_argument("--api-key-env", metavar="VAR", help=_help("api_key_env"))
    model.add_argument("--judge", metavar="openai:MODEL@URL", help=_help("judge"))
    model.add_argument("--judge-api-key-env", metavar="VAR", help=_help("judge_api_key_env"))
    run = parser.add_argument_group("running")
    run.add_argument("--concurrency", type=int, help=_help("concurrency"))
    run.add_argument("--timeout", type=float, metavar="SECONDS", help=_help("timeout"))
    run.add_argument("--memory-timeout", type=float, metavar="SECONDS", help=_help("memory_timeout"))
    run.add_argument("--retries", type=int, help=_help("retries"))
    run.add_argument("--backoff", type=float, metavar="SECONDS", help=_help("backoff"))
    run.add_argument("--batch-size", type=int, help=_help("batch_size"))
    run.add_argument("--out", metavar="DIR", help=_help("out"))
    run.add_argument("--resume", action="store_true", default=None, help=_help("resume"))
    run.add_argument("--retry-failed", action="store_true", default=None, help=_help("retry_failed"))
    run.add_argument("--no-progress", dest="progress", action="store_false", default=None,
                     help="no progress bar, and no progress lines in a log")
    run.add_argument("--progress-interval", type=float, metavar="SECONDS", help=_help("progress_interval"))
    run.add_argument("--config", metavar="FILE.yaml", help="read options from a YAML file (flags override it)")
    run.add_argument("--demo", action="store_true", default=None,
                     help="the demo: embedded SmolLM2-135M as a smoke test (one short episode under full, "
                          "seconds); with --model baseline:recency, a reference policy on the frozen split's 300 "
                          "episodes, full vs memo:300 vs memo:1000 (a paired result)")


def _help(name: str) -> str:
    """A field's help with its default (help text lives once, on the EvalConfig field)."""
    default = field_default(name)
    if isinstance(default, tuple):
        default = ",".join(default)
    shown = "" if default in (None, False, True) else f" (default: {default})"
    return field_help(name).replace("%", "%%") + shown


def flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """The options given on the command line, as EvalConfig fields."""
    values = {name: getattr(args, name) for name in FIELD_NAMES if getattr(args, name, None) is not None}
    values.update(source_flag_values(args))
    if "conditions" in values:
        values["conditions"] = tuple(v.strip() for v in values["conditions"].split(",") if v.strip())
    return values


def main(args: argparse.Namespace) -> int:
    from supersede_env.cli import require_extra
    from supersede_env.core.errors import UserError

    require_extra("eval", "scipy", "matplotlib", "bm25s")  # the report and rag, before any model call
    file_values = load_config_file(args.config) if getattr(args, "config", None) else {}
    flags = flag_values(args)
    refuse_other_kinds({**file_values, **flags})
    config = build_config(file_values, flags)
    explicit = set(file_values) | set(flags)
    if "model" not in explicit and not config.demo and not config.resume:
        # the embedded model as a silent default would start hours of CPU work
        raise UserError("option --model: required: openai:MODEL@URL (an endpoint), hf:DIR (a local model), "
                        "embedded (a smoke-test model, slow on CPU), baseline:recency (a reference policy) or "
                        "oracle:gold-memo (an upper bound); or try: supersede eval --demo --model baseline:recency")
    if config.out is None and not config.resume:  # settled here, so that every message names the real folder
        config = _with_default_out(config)
    try:
        return asyncio.run(_run(config, explicit))
    except KeyboardInterrupt:
        print(f"supersede eval: interrupted; every finished call is recorded. Continue with: "
              f"supersede eval --resume --out {config.out}", file=sys.stderr)
        raise
    except BaseExceptionGroup as group:  # from the runner's task group: a failed write ends the run
        error = _first_os_error(group)
        if error is None:
            raise
        raise UserError(_write_failure(error, config)) from None
    except OSError as exc:
        raise UserError(_write_failure(exc, config)) from None


def _first_os_error(group: BaseExceptionGroup) -> OSError | None:
    for exc in group.exceptions:
        found = _first_os_error(exc) if isinstance(exc, BaseExceptionGroup) else exc
        if isinstance(found, OSError):
            return found
    return None


def _write_failure(exc: OSError, config: EvalConfig) -> str:
    """One line for a file-system failure (a full disk, a path that cannot be written)."""
    from supersede_env.core.records import RecordWriteError

    reason = exc.strerror or " ".join(str(exc).split()) or type(exc).__name__
    where = f"{exc.filename}: " if exc.filename else ""
    if isinstance(exc, RecordWriteError):
        run_dir = os.path.dirname(exc.filename) or config.out
        return (f"cannot write {exc.filename}: {reason}; every record written before is intact: free space, "
                f"then continue with: supersede eval --resume --out {run_dir}")
    return f"{where}{reason}"


async def _run(config: EvalConfig, explicit: set[str]) -> int:
    from supersede_env.evaluation.report_console import print_summary

    _end_on_signals()
    with contextlib.ExitStack() as held:  # the run's lock, held until its report is written
        opened, plan, secrets = await _prepare(config, explicit, held)
        stats = await _execute(opened, plan, secrets, held)
        summary, files = _report(opened)  # under the lock: no resume can start meanwhile
    print_summary(summary, files, wall_s=stats.wall_s)
    if (note := _demo_note(opened.config)) is not None:
        print(note)
    return exit_status(summary, opened.run_dir)


def _end_on_signals() -> None:
    """Ctrl-C and SIGTERM end a run at once (every finished call recorded, the resume command printed): the
    handler raises KeyboardInterrupt out of the loop itself. asyncio.run's own Ctrl-C only cancels the
    main task, and a fresh clone's run once went on to the end after it. A run started in the
    background has SIGINT ignored, and keeps it so."""
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, _interrupt)
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        loop.add_signal_handler(signal.SIGINT, _interrupt)


async def _prepare(config: EvalConfig, explicit: set[str],
                   held: contextlib.ExitStack) -> tuple[OpenedRun, RunPlan, list[str]]:
    """Everything that needs no model, checked before anything is written: backend specs (one cheap
    request to each endpoint), the run directory (a resume takes its lock here), the data, the resume
    replay. Returns the opened run, the plan of the work left and the API keys to mask."""
    from supersede_env.evaluation import rundir
    from supersede_env.evaluation.runner import plan_pairs

    if not config.resume:  # before the data loads; a resumed run's specs are its recorded ones
        check_specs(config, explicit)
        if config.out:  # the local paths first, then one cheap request to each endpoint
            rundir.check_new_run_dir(Path(config.out).expanduser())
        config.check_data_path()
        await preflight(config)  # nothing is written before it
    opened = rundir.open_run(config, explicit=explicit)
    if opened.lock is not None:
        held.callback(opened.lock.release)
    config = opened.config
    if opened.resuming:
        check_specs(config, explicit)
        await preflight(config)
    plan = await plan_pairs(opened.episodes, opened.conditions, opened.log, retry_failed=config.retry_failed,
                            judged=config.judge is not None, memory=memory_factory(config))
    secrets = key_values(config)
    if opened.resuming:
        _say_snapshot_is_used(config, explicit, opened)
    else:
        _refuse_keys_in_episodes(opened.episodes, secrets)
    return opened, plan, secrets


async def _execute(opened: OpenedRun, plan: RunPlan, secrets: list[str], held: contextlib.ExitStack) -> RunStats:
    """The judge and the backend (the embedded model loads here), the run directory written whole (a
    fresh run) or the resume record appended, then every call of the plan; the run's statistics."""
    from supersede_env.core.records import RecordWriter
    from supersede_env.evaluation import rundir
    from supersede_env.evaluation.failures import FailureNotices
    from supersede_env.evaluation.runner import run_pairs

    config = opened.config
    notices = FailureNotices()
    judge = make_judge(config, notices) if config.judge else None
    backend = make_backend(config, notices, opened)
    try:
        model_identity = backend.identity()
        judge_identity = _judge_identity(judge, config)
        if opened.resuming:
            record = rundir.resume_record(opened, model_identity)
        else:  # the directory appears whole, header included, and locked
            header = rundir.make_header(opened, model_identity, judge_identity)
            held.callback(rundir.create_run(opened, header, secrets=secrets).release)
        sync = "line" if getattr(backend, "supports_batch", False) else "group"
        with RecordWriter(opened.records_path, sync=sync, secrets=secrets) as writer:
            if opened.resuming:
                writer.append(record)
            _announce(opened, plan)
            return await run_pairs(plan, backend, writer, judge=judge, concurrency=config.concurrency,
                                   batch_size=config.batch_size, progress=progress_mode(config),
                                   progress_interval=config.progress_interval, description=opened.run_dir.name,
                                   notices=notices, memory_timeout=config.memory_timeout)
    finally:
        notices.close()  # a call the closing cuts off is not the model's failure
        await backend.aclose()
        if judge is not None and hasattr(judge, "aclose"):
            await judge.aclose()


def _report(opened: OpenedRun) -> tuple[RunSummary, ReportFiles]:
    """The report, from the records alone; a failed write says that every record is kept."""
    from supersede_env.core.errors import UserError
    from supersede_env.evaluation.report import build_report

    try:
        return build_report(opened.run_dir)
    except OSError as exc:
        raise UserError(f"the run finished and every record is kept, but writing its report failed: "
                        f"{_write_failure(exc, opened.config)}; free space, then: supersede report {opened.run_dir}"
                        ) from None


def _demo_note(config: EvalConfig) -> str | None:
    """What the demo's result is (and is not), after its summary."""
    if config.demo and _is_baseline(config):
        return (f"note: {config.model} is a reference policy, not a model: a fixed heuristic over the prompt text "
                "(it never sees the gold answer). Its notes lose what the budget cannot hold, so bounded memos "
                "score lower than the full history, and where it reads an old value it answers stale.")
    if config.demo:
        return ("note: a smoke test, not a result: SmolLM2-135M (embedded) answered one short episode under `full`, "
                "which shows the model path works end to end; it mostly copies its prompt and scores about 0. The "
                "paired result is the reference policy's (supersede eval --demo --model baseline:recency). For a "
                "real model behind a vLLM server:\n"
                "  supersede eval --model openai:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1 --source longmemeval "
                "--path oracle --conditions full,memo:300,ledger:300 --concurrency 32")
    return None


def _interrupt() -> None:
    raise KeyboardInterrupt


def _refuse_keys_in_episodes(episodes: Any, secrets: Any) -> None:
    """A run copies its episodes into its folder; an API key found in them is never copied (one line)."""
    from supersede_env.core.api_keys import mask_text, string_values
    from supersede_env.core.errors import UserError

    for episode in episodes:
        if secrets and any(mask_text(text, secrets) != text for text in string_values(episode.to_dict())):
            raise UserError(f"episode {for_console(episode.id)[:60]} holds the value of an API key this run uses; "
                            "a key is never written into a run folder: remove it from the episodes "
                            "(nothing was written)")


def _with_default_out(config: EvalConfig) -> EvalConfig:
    """``runs/<time>-<model>`` (the demo: ``runs/demo-[baseline-NAME-]<time>``)."""
    from dataclasses import replace
    from datetime import datetime

    from supersede_env.evaluation.rundir import default_run_dir

    if not config.demo:
        return replace(config, out=str(default_run_dir(config.model)))
    what = "baseline-" + config.model.split(":", 1)[1].strip() + "-" if _is_baseline(config) else ""
    return replace(config, out=os.path.join("runs", f"demo-{what}" + datetime.now().strftime("%Y%m%d-%H%M%S")))


def _is_baseline(config: EvalConfig) -> bool:
    return config.model.strip().startswith("baseline:")


def progress_mode(config: EvalConfig) -> str | None:
    """A live bar on a terminal, plain lines at a steady interval in a log; none with --no-progress."""
    if not config.progress:
        return None
    return "bar" if sys.stderr.isatty() else "lines"


def key_values(config: EvalConfig) -> list[str]:
    """The API keys this run sends (to mask them in everything it writes)."""
    return [value for name in config.key_variables() if (value := os.environ.get(name))]


def exit_status(summary: RunSummary, run_dir: Any) -> int:
    """0 only when every pair was graded (and judged) with an answer; else say why, on stderr."""
    failed = sum(c.failed for c in summary.conditions)
    pending = sum(c.pending for c in summary.conditions)
    unjudged = sum(c.accuracy["cascade"].unavailable for c in summary.conditions if "cascade" in c.accuracy)
    empty = sum(c.empty_answers for c in summary.conditions)
    total = sum(c.pairs for c in summary.conditions)
    if failed or pending or unjudged:
        reasons: Counter[str] = Counter()
        for condition in summary.conditions:
            reasons.update(condition.failure_reasons)
        common = (f" (most common reason: {for_console(reason)[:200]}, {count} of {failed})"
                  if failed and (reason_count := reasons.most_common(1)) and (reason := reason_count[0][0])
                  and (count := reason_count[0][1]) else "")
        parts = ([f"{failed} of {total} pairs failed{common}"] if failed else []) \
            + ([f"{pending} of {total} pairs not run"] if pending else []) \
            + ([f"{unjudged} unsure answers have no judge verdict (the judge call failed)"] if unjudged else [])
        print(f"supersede eval: {'; '.join(parts)}; listed in the report, never scored; exit status "
              f"{EXIT_PAIRS_FAILED}. Run them again with: supersede eval --resume --retry-failed --out {run_dir}",
              file=sys.stderr)
        return EXIT_PAIRS_FAILED
    if empty:
        print(f"supersede eval: {empty} of {total} answers were empty (null or blank content; see the report); "
              f"exit status {EXIT_EMPTY_ANSWERS}", file=sys.stderr)
        return EXIT_EMPTY_ANSWERS
    return EXIT_OK


def _announce(opened: Any, plan: Any) -> None:
    what = "resuming" if opened.resuming else "running"
    from supersede_env.core.questions import all_asked

    asked = len(all_asked(opened.episodes))
    sample = f"{asked} questions of {len(opened.episodes)} episodes" if asked > len(opened.episodes) else \
        f"{len(opened.episodes)} episodes"
    print(f"supersede eval: {what} {plan.pairs_total} pairs ({sample} x "
          f"{len(opened.conditions)} conditions: {', '.join(c.name for c in opened.conditions)}); "
          f"{plan.pairs_finished} already finished, {plan.calls_replayed} calls replayed; records: "
          f"{opened.records_path}", file=sys.stderr)


# -- backends ---------------------------------------------------------------------------------------
def check_specs(config: EvalConfig, explicit: set[str]) -> None:
    """Backend and judge specs and API-key variables, checked without loading or calling anything."""
    from supersede_env.backends import parse_backend_spec

    spec = parse_backend_spec(config.model)
    if spec.kind != "openai" and config.temperature != 0:
        raise ConfigError(f"option --temperature: in-process generation is greedy; {config.temperature} needs an endpoint")
    _check_key("api_key_env", config.api_key_env)
    memory_factory(config)  # the user's memory system meets the contract, before any model call
    if config.judge:
        judge_spec = parse_backend_spec(config.judge)
        if judge_spec.kind != "openai":
            raise ConfigError(f"option --judge: {config.judge!r}: the judge needs an endpoint, openai:MODEL@URL")
        _check_key("judge_api_key_env", config.judge_api_key_env)


def memory_factory(config: EvalConfig) -> Any:
    """The user's memory-system factory (``--memory``), loaded and checked; None without one."""
    if config.memory is None:
        return None
    from supersede_env.evaluation.memory_loader import load_memory_factory

    return load_memory_factory(config.memory)


def _check_key(name: str, variable: str | None) -> None:
    """A named key variable must hold a plausible key (a resumed run's recorded names too)."""
    from supersede_env.core.api_keys import key_problem
    from supersede_env.evaluation.config import option_flag

    if variable and (problem := key_problem(os.environ.get(variable))) is not None:
        raise ConfigError(f"option {option_flag(name)}: environment variable {variable} {problem}")


async def preflight(config: EvalConfig) -> None:
    """One cheap request to each endpoint (model and judge, together) before any record is written:
    an endpoint that cannot work is one line and exit status 2 within seconds (docs/evaluation.md)."""
    from supersede_env.backends import parse_backend_spec
    from supersede_env.backends.openai_endpoint import PREFLIGHT_TIMEOUT_S, OpenAIEndpointBackend

    checks = []
    for option, spec, key_env in (("--model", config.model, config.api_key_env),
                                  ("--judge", config.judge, config.judge_api_key_env)):
        parsed = parse_backend_spec(spec) if spec else None
        if parsed is not None and parsed.kind == "openai":
            backend = OpenAIEndpointBackend(parsed.base_url, parsed.model, api_key_env=key_env)
            checks.append((option, key_env, backend))
    timeout = min(config.timeout, PREFLIGHT_TIMEOUT_S)
    results = await asyncio.gather(*(backend.preflight(timeout) for _, _, backend in checks))
    for (option, key_env, _), result in zip(checks, results, strict=True):
        if result.problem is not None:
            key_hint = ""
            if result.refused_key:
                flag = "--api-key-env" if option == "--model" else "--judge-api-key-env"
                key_hint = f" ({flag} {key_env} sends the key in {key_env})" if key_env else \
                    f" (none was sent: {flag} VAR names the variable holding it)"
            raise ConfigError(f"option {option}: {result.problem}{key_hint}; nothing was run")
        if result.note is not None:
            print(f"supersede eval: note: {result.note}", file=sys.stderr)


def _say_snapshot_is_used(config: EvalConfig, explicit: set[str], opened: Any) -> None:
    """A resumed run reads its own episode snapshot; say so when the file named again has changed."""
    from supersede_env.core.episode import fingerprint
    from supersede_env.core.errors import UserError
    from supersede_env.core.episode_source import load_episodes

    if "path" not in explicit or config.source == "synthetic":
        return
    try:
        current = load_episodes(config.episode_source())
    except (UserError, OSError):
        current = None
    if current is None or fingerprint(current) != opened.log.header.episodes_sha256:
        print(f"supersede eval: note: {config.path} differs from the episodes this run started on (or cannot "
              f"be read); the run's own snapshot, {opened.run_dir / 'episodes.jsonl'}, is used", file=sys.stderr)


def make_backend(config: EvalConfig, notices: Any = None, opened: Any = None) -> Any:
    """The model backend (an in-process model loads here); options go where they apply (``opened``: the
    run, whose episodes and conditions the oracle plays beforehand)."""
    from supersede_env.backends import parse_backend_spec, resolve_backend

    spec = parse_backend_spec(config.model)
    if spec.kind == "oracle":
        return resolve_backend(spec, episodes=opened.episodes, conditions=opened.conditions)
    if spec.kind == "openai":
        return resolve_backend(spec, **_endpoint_options(config, config.api_key_env, config.temperature,
                                                         notices.listener("model") if notices else None))
    if spec.kind == "baseline":
        return resolve_backend(spec)  # a reference policy takes no options
    return resolve_backend(spec, max_batch_size=config.batch_size)


def make_judge(config: EvalConfig, notices: Any = None) -> Any:
    from supersede_env.backends import parse_backend_spec, resolve_backend
    from supersede_env.core.judge import Judge

    backend = resolve_backend(parse_backend_spec(config.judge),
                              **_endpoint_options(config, config.judge_api_key_env, 0.0,
                                                  notices.listener("judge") if notices else None))
    return Judge(backend)


def _endpoint_options(config: EvalConfig, key_env: str | None, temperature: float,
                      on_failed_attempt: Any = None) -> dict[str, Any]:
    # the connection pool must not be what limits the concurrency
    return dict(api_key_env=key_env, temperature=temperature, timeout_s=config.timeout,
                max_retries=config.retries, backoff_s=config.backoff, max_connections=max(64, config.concurrency),
                on_failed_attempt=on_failed_attempt)


def _judge_identity(judge: Any, config: EvalConfig) -> Mapping[str, Any] | None:
    if judge is None:
        return None
    identity = getattr(judge, "identity", None)
    if callable(identity):
        return dict(identity())
    return {"spec": config.judge}
