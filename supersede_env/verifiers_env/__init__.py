"""supersede-env as a verifiers 0.4.0 (``verifiers.v1``) environment.

The verifiers loader imports the top-level ``supersede_env`` package for the taskset id
``supersede-env`` and reads its ``__all__``: one Taskset, plus this package's Env (which runs every
model call as its own trace) and Harness (which calls the endpoint in-process; being exported, it
is the default). See :mod:`.taskset` for what loads and how reward is computed.
"""

from supersede_env.verifiers_env.env import SupersedeEnv, SupersedeEnvConfig, StepData, StepTask
from supersede_env.verifiers_env.harness import SupersedeHarness, SupersedeHarnessConfig
from supersede_env.verifiers_env.taskset import (
    SupersedeData,
    SupersedeTask,
    SupersedeTaskset,
    SupersedeTasksetConfig,
)

__all__ = [
    "SupersedeTaskset",
    "SupersedeEnv",
    "SupersedeHarness",
    "SupersedeTasksetConfig",
    "SupersedeEnvConfig",
    "SupersedeHarnessConfig",
    "SupersedeData",
    "SupersedeTask",
    "StepData",
    "StepTask",
]
