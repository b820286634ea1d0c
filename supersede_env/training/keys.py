"""API keys in a training run: only from environment variables, masked in everything the run writes.

Training calls no model endpoint and no judge; the keys it can meet are the Hugging Face token
(``HF_TOKEN``, read by huggingface_hub to download a gated model or push an adapter) and those of a
logging integration (``WANDB_API_KEY``...), all read from the environment by their own libraries.
So, checked once when the options are parsed (:func:`check_options`, :func:`check_env_section`):

- a key is never an option value: ``hub_token`` (a TrainingArguments field) is refused, since it
  would be written into ``config.yaml`` and every checkpoint; so is a URL option with a
  ``user:password@`` part, and any option that holds an environment key's value (transformers
  writes every option into ``training_args.bin``, TensorBoard's events and the model card);
- a config file's ``env:`` section (TrlParser's) may not set a variable named like a key;
- ``HF_TOKEN`` / ``HUGGING_FACE_HUB_TOKEN``, when set, must be a plausible key
  (:func:`supersede_env.core.api_keys.key_problem`); empty counts as unset.

:func:`run_secrets` is every such value in the environment (variables named like a key, values
plausible as one); every value the run writes (``config.yaml``, ``metrics.jsonl``,
``rollouts.jsonl``, the held-out records, each checkpoint's ``supersede_state.json``, the printed
summary) has them masked as ``***`` in its string values (:func:`~supersede_env.core.api_keys.mask_values`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from supersede_env.core.api_keys import key_problem, string_values
from supersede_env.core.errors import ConfigError

__all__ = ["HF_KEY_VARIABLES", "KEY_OPTIONS", "key_variables", "run_secrets", "check_options", "check_env_section"]

HF_KEY_VARIABLES = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")  # huggingface_hub's token variables
KEY_OPTIONS = {"hub_token": "set HF_TOKEN in the environment instead (huggingface_hub reads it)"}
# A variable named like a key: ..._KEY, ..._TOKEN, ..._SECRET, ..._PASSWORD (TOKENIZERS_PARALLELISM is not).
_KEY_NAME = re.compile(r"(^|_)(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$", re.IGNORECASE)
_URL_CREDENTIALS = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/@\s]*:[^/@\s]*@")


def is_key_name(name: str) -> bool:
    return bool(_KEY_NAME.search(name))


def key_variables(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables named like a key whose value could be one (name -> value)."""
    return {name: value for name, value in sorted(environ.items()) if is_key_name(name) and key_problem(value) is None}


def run_secrets(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The values to mask in a run's files: :func:`key_variables`' values."""
    return tuple(sorted(set(key_variables(environ).values())))


def check_options(values: Mapping[str, Any], environ: Mapping[str, str], source: str) -> None:
    """No key in an option value; the Hugging Face token variables plausible when set.

    An option holding an environment key's value (a run name, a path) is refused too: transformers
    writes every option into ``training_args.bin``, TensorBoard's events and the model card."""
    for variable in HF_KEY_VARIABLES:
        value = environ.get(variable)
        if value and (problem := key_problem(value)) is not None:
            raise ConfigError(f"environment variable {variable} {problem}; unset it or set the real token")
    keys = key_variables(environ)
    for name, value in values.items():
        if name in KEY_OPTIONS and value:
            raise ConfigError(f"{source}: field {name}: a key is never an option value (it would be written into "
                              f"config.yaml and every checkpoint); {KEY_OPTIONS[name]}")
        for text in string_values(value):
            if _URL_CREDENTIALS.match(text):
                raise ConfigError(f"{source}: field {name}: the URL holds a user name and password; a key comes "
                                  "only from an environment variable")
            variable = next((var for var, key in keys.items() if key in text), None)
            if variable is not None:
                raise ConfigError(f"{source}: field {name}: holds the value of environment variable {variable} (an "
                                  "API key); a key is never part of an option value")


def check_env_section(path: Path, section: Any) -> dict[str, str]:
    """A config file's ``env:`` section as variables to set; a key there, or a value that is not a
    scalar, is refused in one line naming the file and the variable."""
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: field env: expected a mapping of environment variables to values, got "
                          f"{type(section).__name__}")
    out: dict[str, str] = {}
    for name, value in section.items():
        name = str(name)
        if is_key_name(name):
            raise ConfigError(f"{path}: field env: {name}: a key is never written in a config file; set it in the "
                              "environment that runs supersede train")
        if isinstance(value, dict | list) or value is None:
            raise ConfigError(f"{path}: field env: {name}: expected a value (text or a number)")
        out[name] = str(value)  # as TrlParser sets them
    return out
