"""Backend specs: one short string names a model backend, for the CLI and YAML configs.

    embedded                          the embedded SmolLM2-135M-Instruct, in-process (the default)
    hf:/path/to/model_dir             a local Hugging Face model directory, in-process
    openai:MODEL@http://HOST:PORT/v1  any OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama, hosted)
    baseline:NAME                     a reference policy, not a model (recency, append; see
                                      supersede_env.baselines.policies): no model, no server
    oracle:gold-memo                  the gold-memo teacher, an oracle that reads the gold states: the
                                      upper bound of memo conditions (supersede_env.core.gold_memo)

``parse_backend_spec`` checks a spec without loading anything (the directory exists and holds a
config and safetensors weights; the embedded model's package is installed; the URL is http(s); the reference policy exists), so a
bad spec fails with a one-line :class:`BackendError` before any model call. ``resolve_backend``
parses and then builds the backend. Options that do not apply to a spec's kind are an error; an
option given as ``None`` means "not given" (so a CLI can pass all its flags through).

Options: in-process (``embedded``, ``hf``): ``device``, ``dtype``, ``max_batch_size``,
``max_batch_tokens``, ``num_threads`` (CPU); ``hf`` also ``trust_remote_code``; ``embedded`` also
``cache_dir``.
Endpoint (``openai``): ``api_key_env``, ``temperature``, ``timeout_s``, ``max_retries``,
``backoff_s``, ``max_connections``, ``extra_body``.
Reference policy (``baseline``): none. Oracle (``oracle``): ``episodes`` and ``conditions``, the run's
(it plays them beforehand; required).
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from supersede_env.backends.base import Backend
from supersede_env.backends.model_dir import check_model_dir
from supersede_env.core.errors import BackendError

DEFAULT_SPEC = "embedded"
SPEC_HELP = ("embedded (default), hf:PATH (a local Hugging Face model directory), openai:MODEL@URL, "
             "baseline:NAME (a reference policy, not a model: recency, append) or oracle:gold-memo (an oracle "
             "that reads the gold states: the upper bound of memo conditions)")

_LOCAL_OPTIONS = {"device", "dtype", "max_batch_size", "max_batch_tokens", "num_threads"}
OPTIONS: dict[str, frozenset[str]] = {
    "embedded": frozenset(_LOCAL_OPTIONS | {"cache_dir"}),
    "hf": frozenset(_LOCAL_OPTIONS | {"trust_remote_code"}),
    "openai": frozenset(
        {
            "api_key_env",
            "on_failed_attempt",
            "temperature",
            "timeout_s",
            "max_retries",
            "backoff_s",
            "max_connections",
            "extra_body",
        }
    ),
    "baseline": frozenset(),
    "oracle": frozenset({"episodes", "conditions"}),
}
# The model name runs up to the first "@http://" or "@https://" (a name may itself hold an "@").
_OPENAI = re.compile(r"^openai:(?P<model>\S+?)@(?P<url>https?://\S+)$")


@dataclass(frozen=True)
class BackendSpec:
    """A checked backend spec; ``text`` is what the user wrote."""

    kind: Literal["embedded", "hf", "openai", "baseline", "oracle"]
    text: str
    path: Path | None = None  # hf
    model: str | None = None  # openai
    base_url: str | None = None  # openai
    policy: str | None = None  # baseline


def parse_backend_spec(text: str | None) -> BackendSpec:
    """Check ``text`` (``None`` or empty means the default, ``embedded``) without loading a model."""
    spec = (text or DEFAULT_SPEC).strip()
    if spec == "embedded":
        _require_local_extra(spec)
        from supersede_env.backends.embedded import gguf_path

        try:
            gguf_path()  # the wheel is installed and holds the file (cheap: no import, no hashing)
        except BackendError as exc:
            raise BackendError(f"backend {spec!r}: {exc}") from None
        return BackendSpec("embedded", spec)
    if spec.startswith("hf:"):
        raw = spec[3:].strip()
        if not raw:
            raise BackendError(f"backend {spec!r}: expected hf:PATH to a local model directory")
        try:
            path = check_model_dir(raw)
        except BackendError as exc:
            raise BackendError(f"backend {spec!r}: {exc}") from None
        _require_local_extra(spec)
        return BackendSpec("hf", spec, path=path)
    if spec.startswith("openai:"):
        match = _OPENAI.match(spec)
        if not match:
            raise BackendError(f"backend {spec!r}: expected openai:MODEL@http://HOST:PORT/v1")
        from supersede_env.backends.openai_endpoint import check_base_url

        try:
            base_url = check_base_url(match["url"])
        except BackendError as exc:
            raise BackendError(f"backend {spec!r}: {exc}") from None
        return BackendSpec("openai", spec, model=match["model"], base_url=base_url)
    if spec.startswith("baseline:"):
        from supersede_env.baselines.policies import POLICIES

        name = spec[len("baseline:"):].strip()
        if name not in POLICIES:
            raise BackendError(f"backend {spec!r}: unknown reference policy {name!r}; "
                               f"known: {', '.join(POLICIES)}")
        return BackendSpec("baseline", spec, policy=name)
    if spec.startswith("oracle:"):
        from supersede_env.core.gold_memo import NAME

        if spec.replace(" ", "") != NAME:
            raise BackendError(f"backend {spec!r}: unknown oracle; the one oracle is {NAME}")
        return BackendSpec("oracle", NAME)
    raise BackendError(f"unknown backend {spec!r}; expected {SPEC_HELP}")


def resolve_backend(spec: str | BackendSpec | None = None, **options: Any) -> Backend:
    """Build the backend a spec names (loading the model for in-process kinds)."""
    parsed = spec if isinstance(spec, BackendSpec) else parse_backend_spec(spec)
    given = {name: value for name, value in options.items() if value is not None}
    unknown = sorted(set(given) - OPTIONS[parsed.kind])
    if unknown:
        raise BackendError(
            f"backend {parsed.text!r}: option(s) {', '.join(unknown)} do not apply to "
            f"{parsed.kind} backends (they take {', '.join(sorted(OPTIONS[parsed.kind]))})"
        )
    if parsed.kind == "openai":
        from supersede_env.backends.openai_endpoint import OpenAIEndpointBackend

        assert parsed.base_url is not None and parsed.model is not None
        return OpenAIEndpointBackend(parsed.base_url, parsed.model, **given)
    if parsed.kind == "baseline":
        from supersede_env.backends.baseline import BaselineBackend
        from supersede_env.baselines.policies import get_policy

        assert parsed.policy is not None
        return BaselineBackend(get_policy(parsed.policy))
    if parsed.kind == "oracle":
        from supersede_env.backends.oracle import OracleBackend

        if "episodes" not in given or "conditions" not in given:
            raise BackendError(f"backend {parsed.text!r}: needs the run's episodes and conditions (it plays them "
                               "beforehand)")
        return OracleBackend(given["episodes"], given["conditions"])
    if parsed.kind == "hf":
        from supersede_env.backends.local_hf import LocalHFBackend

        assert parsed.path is not None
        return LocalHFBackend.from_pretrained(parsed.path, **given)
    from supersede_env.backends.embedded import embedded_backend

    return embedded_backend(**given)


def _require_local_extra(spec: str) -> None:
    missing = [name for name in ("torch", "transformers") if importlib.util.find_spec(name) is None]
    if missing:
        raise BackendError(
            f"backend {spec!r} runs in-process and needs {' and '.join(missing)}; "
            "install them with: pip install 'supersede-env[local]'"
        )
