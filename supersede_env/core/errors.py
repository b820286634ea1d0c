"""Errors a user can fix: bad options, malformed files, unusable paths. Every one of them lives here.

Each class is a :class:`UserError`: its message is one line naming the option, or the file (and
line), the item and the field. The ``supersede`` command prints it as ``supersede COMMAND: error:
MESSAGE`` and exits with status 2; nothing else becomes a user error there (any other exception is
a bug and keeps its traceback). They are ``ValueError`` subclasses too, so pydantic validators (the
verifiers taskset) turn them into validation errors and older callers that catch ``ValueError``
keep working.

A failed model or judge call is not a user error: a backend returns it as a failed reply and the
judge raises :class:`supersede_env.core.judge.JudgeError`; both are recorded, never printed here.
"""

from __future__ import annotations

__all__ = [
    "UserError", "ConfigError", "SourceError", "ConditionError", "BackendError", "EmbeddedModelError",
    "RunLockError", "DataError", "SourceUnavailableError", "EpisodeError", "LongMemEvalError", "LongMemEvalDownloadError",
    "AnnotationError", "RecordError", "AgreementDataError",
]


class UserError(ValueError):
    """Input the user can fix; a one-line message, exit status 2."""


# -- options and configuration ----------------------------------------------------------------------
class ConfigError(UserError):
    """An option, a config file or an output path that cannot work; the message names the option."""


class SourceError(ConfigError):
    """An episode source option (:class:`supersede_env.core.episode_source.EpisodeSource`) that cannot
    work. ``field`` is the option's name there; each driver names it its own way (``--n``,
    ``episodes_n``, ``taskset.n``) with :attr:`problem`."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"field {field}: {problem}")
        self.field = field
        self.problem = problem


class ConditionError(ConfigError):
    """A condition string that cannot be parsed (``memo:300+dates``...)."""


class BackendError(ConfigError):
    """A backend spec or option that cannot work (bad path, URL or value), raised before any model
    loads or is called; never used for a failed model call."""


class EmbeddedModelError(BackendError):
    """The embedded model cannot be found or converted; the message names the fix."""


class RunLockError(ConfigError):
    """The run directory is in use by another process (or its lock file cannot be used)."""


# -- input data ---------------------------------------------------------------------------------------
class DataError(UserError):
    """A malformed input file; the message names the file, the line or item, and the field."""


class SourceUnavailableError(DataError):
    """A source's data could not be fetched here (offline, not cached); the options themselves are fine."""


class EpisodeError(DataError):
    """Malformed episode data (an episode JSONL line, or an episode built in code)."""


class LongMemEvalError(EpisodeError):
    """Malformed LongMemEval data, or a LongMemEval file that is not there."""


class LongMemEvalDownloadError(LongMemEvalError, SourceUnavailableError):
    """A release file could not be downloaded or verified, and no good cached copy exists."""


class AnnotationError(DataError):
    """A malformed superseded-value annotation file."""


class RecordError(DataError):
    """A malformed or inconsistent run record, or recorded calls that do not fit the current code."""


class AgreementDataError(DataError):
    """A judged-answers file that cannot be used by ``supersede grader-agreement``."""
