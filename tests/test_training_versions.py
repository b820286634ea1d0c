"""Every option name the training configs and code use exists in the oldest transformers this package supports.

The oldest supported transformers is pyproject.toml's lower bound (the same one a GPU machine with
that release runs); its ``TrainingArguments`` fields are read, without importing or running anything
from it, from that release's wheel (``pip download --no-deps`` into ``.cache/wheels/``, ignored by
git; about 12 MB, fetched once). The test skips only when the package registry cannot be reached.

An option name is accepted when that ``TrainingArguments`` declares it, or TRL's own config classes
(``trl[peft]`` is pinned, so the installed ones are the supported ones), ``ModelConfig``, or this
environment's ``SupersedeGRPOConfig``.
"""

import ast
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

pytest.importorskip("trl")

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".cache" / "wheels"
UNREACHABLE = re.compile(r"NewConnectionError|Max retries exceeded|Network is unreachable|Temporary failure in name "
                         r"resolution|Name or service not known|Connection refused|timed out|ConnectTimeout", re.I)


def oldest_transformers() -> str:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(r'"transformers>=([0-9][0-9.]*)', text)
    assert match, "pyproject.toml names no transformers lower bound"
    return match.group(1)


def _wheel(version: str) -> Path:
    found = sorted(CACHE.glob(f"transformers-{version}-*.whl"))
    if found:
        return found[0]
    CACHE.mkdir(parents=True, exist_ok=True)
    result = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet",
                             "--disable-pip-version-check", "-d", str(CACHE), f"transformers=={version}"],
                            capture_output=True, text=True, timeout=300, check=False)
    found = sorted(CACHE.glob(f"transformers-{version}-*.whl"))
    if not found:
        if UNREACHABLE.search(result.stderr):
            pytest.skip(f"the package registry is unreachable: {result.stderr.strip().splitlines()[-1][:200]}")
        pytest.fail(f"pip download transformers=={version} failed: {result.stderr[-1500:]}")
    return found[0]


def _class_names(source: str, class_name: str) -> set[str]:
    """The fields (annotated names), properties and methods a class body declares."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            names = {n.target.id for n in node.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
            return names | {n.name for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    raise AssertionError(f"no class {class_name}")


@pytest.fixture(scope="module")
def accepted() -> set[str]:
    """Option names (and attributes) of TrainingArguments in the oldest transformers, TRL's and ours."""
    import dataclasses

    from transformers import TrainingArguments
    from trl import ModelConfig

    from supersede_env.training.config import HeldoutEpisodeOptions, SupersedeGRPOConfig, TrainingEpisodeOptions
    from supersede_env.training.sft_config import SupersedeSFTConfig

    version = oldest_transformers()
    with zipfile.ZipFile(_wheel(version)) as wheel:
        source = wheel.read("transformers/training_args.py").decode("utf-8")
    names = _class_names(source, "TrainingArguments")
    assert {"learning_rate", "output_dir", "gradient_checkpointing"} <= names  # the parse found the class
    # every class of both commands' configs but TrainingArguments itself: TRL's configs and ours (the mixins too)
    for cls in {*SupersedeGRPOConfig.__mro__, *SupersedeSFTConfig.__mro__} - {TrainingArguments, object}:
        names |= set(vars(cls).get("__annotations__", {})) | {k for k, v in vars(cls).items() if callable(v)}
    episode_options = {f.name for cls in (TrainingEpisodeOptions, HeldoutEpisodeOptions) for f in dataclasses.fields(cls)}
    return names | episode_options | {f.name for f in dataclasses.fields(ModelConfig)}


def _config_keys(path: Path) -> list[str]:
    return [str(k) for k in (yaml.safe_load(path.read_text(encoding="utf-8")) or {})]


@pytest.mark.parametrize("path", sorted((REPO / "configs").glob("grpo-*.yaml")), ids=lambda p: p.name)
def test_every_shipped_config_parses_against_the_oldest_transformers(path, accepted):
    unknown = [key for key in _config_keys(path) if key not in accepted]
    assert not unknown, f"{path.name}: not options of transformers {oldest_transformers()}: {unknown}"


def test_the_gpu_check_options_exist_in_the_oldest_transformers(accepted, tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("gpu_check", REPO / "training" / "gpu_check.py")
    gpu_check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gpu_check)
    for flags in ([], ["--tiny"]):
        argv = gpu_check.options(gpu_check.parse_args(flags), str(tmp_path / "model"), tmp_path)
        names = [a[2:] for a in argv if a.startswith("--") and a != "--config"]
        unknown = [n for n in names if n not in accepted]
        assert not unknown, f"gpu_check.py {flags}: not options of transformers {oldest_transformers()}: {unknown}"


def test_the_training_code_reads_only_options_of_the_oldest_transformers(accepted):
    """``args.NAME`` / ``self.args.NAME`` in supersede_env/training reads a field every supported version has."""
    read: dict[str, str] = {}
    for path in sorted((REPO / "supersede_env" / "training").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and _is_args(node.value):
                read.setdefault(node.attr, path.name)
    unknown = {name: where for name, where in read.items() if name not in accepted}
    assert not unknown, f"not attributes of transformers {oldest_transformers()}'s TrainingArguments: {unknown}"


def _is_args(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "args"
    return isinstance(node, ast.Attribute) and node.attr == "args" and isinstance(node.value, ast.Name) \
        and node.value.id in ("self", "trainer")
