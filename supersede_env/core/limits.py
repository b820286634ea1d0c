"""Every size bound on what comes in from outside, declared once (docs/evaluation.md lists them).

Each bound is enforced where the input enters, before any expensive work, with a one-line error
naming the file, item and field (or the option): the grader, the rollout and the statistics never
see an input past these sizes, so no file, flag or server can make a run slow or large without limit.
The figures are far above anything real: LongMemEval's longest question is 123 characters, its
longest gold answer 604, its longest item (the ``s`` file) 0.5 MB of JSON.
"""

from __future__ import annotations

# -- episodes (episode JSONL files, LongMemEval files, synthetic generation) -------------------------
MAX_EPISODES = 100_000  # episodes one source may yield (generated, read or kept)
# The grader's own bounds too (grade() refuses a gold or values past them as ``ungradable`` and reads
# only a question's first MAX_QUESTION_CHARS): within them no grade takes over 50 ms
# (eval/bench_grader_worst_case.py).
MAX_QUESTION_CHARS = 1_000
MAX_GOLD_CHARS = 1_000  # the gold answer
MAX_VALUE_CHARS = 300  # each superseded value and each decoy
MAX_STALE_VALUES = 32  # superseded values and decoys together, for the grader
MAX_ANSWER_CHARS = 65_536  # an answer read from a file (grader-agreement's judged answers)
MAX_SESSIONS = 1_000
MAX_EPISODE_CHARS = 16_000_000  # all the turns of one episode together
MAX_LINE_BYTES = 64 * 2**20  # one line of a JSONL input file (an episode, a judged answer, a record)
MAX_JSON_FILE_BYTES = 2**30  # a whole-file JSON input (a LongMemEval file; the s release is 265 MB)

# -- memory systems (their text is recorded: one session's memory is one line of records.jsonl) ---------
# An answer() over MAX_ANSWER_CHARS, or one session's store (facts()) or reported operations over
# MAX_STORE_CHARS, fails its pair with the reason: the record line stays far under MAX_LINE_BYTES
# (JSON escapes take at most 12 bytes a character), which a resumed run must read back.
MAX_STORE_CHARS = 4_000_000

# -- configuration ------------------------------------------------------------------------------------
MAX_YAML_BYTES = 2**20  # a --config file
MAX_CONDITIONS = 64
MAX_CONDITION_CHARS = 64

# -- model and judge replies --------------------------------------------------------------------------
# A reply body is read up to REPLY_BASE_BYTES plus REPLY_BYTES_PER_TOKEN for every token the call
# asks for: 68 KiB for an answer of 64 tokens, 70 KiB for a memo step of memo:300. A real completion
# of that many tokens is a small fraction of it (a token is a few bytes; JSON escapes at most 12 a
# character); a longer body is a failed call, recorded with the reason and never retried.
REPLY_BASE_BYTES = 64 * 2**10
REPLY_BYTES_PER_TOKEN = 64


def reply_limit(max_tokens: int) -> int:
    """The most bytes of a reply body read for a call that asks for ``max_tokens`` tokens."""
    return REPLY_BASE_BYTES + REPLY_BYTES_PER_TOKEN * max(0, int(max_tokens))
