"""The sampler's log-probabilities with transformers generation (what the mismatch metrics compare with)."""

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig, LogitsProcessorList

from supersede_env.training.sampler_logprobs import SampledLogprobs, sampling_processors, without_warpers


@pytest.fixture(scope="module")
def tiny(tiny_model_dir):
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()
    prompts = [tokenizer("Lives in Denver now.")["input_ids"], tokenizer("Moved")["input_ids"]]
    width = max(map(len, prompts))
    pad = tokenizer.pad_token_id
    ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts])
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
    return tokenizer, model, ids, mask


def _config(tokenizer, **sampling):
    return GenerationConfig(do_sample=True, max_new_tokens=12, pad_token_id=tokenizer.pad_token_id,
                            eos_token_id=tokenizer.eos_token_id, **sampling)


@pytest.mark.parametrize("sampling", [{"temperature": 0.7, "top_k": 0, "top_p": 1.0},
                                      {"temperature": 1.3, "top_k": 20, "top_p": 0.9, "min_p": 0.01}])
def test_the_rebuilt_warpers_sample_exactly_what_transformers_samples(tiny, sampling):
    tokenizer, model, ids, mask = tiny
    config = _config(tokenizer, **sampling)
    torch.manual_seed(0)
    reference = model.generate(input_ids=ids, attention_mask=mask, generation_config=config)
    torch.manual_seed(0)
    recorder = SampledLogprobs(ids.size(1))
    ours = model.generate(input_ids=ids, attention_mask=mask, generation_config=without_warpers(config),
                          logits_processor=LogitsProcessorList([*sampling_processors(config), recorder]))
    assert torch.equal(reference, ours)
    logprobs = recorder.logprobs(ours)
    assert logprobs.shape == (2, ours.size(1) - ids.size(1))
    assert (logprobs <= 0).all() and torch.isfinite(logprobs).all()


def test_recorded_logprobs_are_the_sampling_distributions(tiny):
    """With temperature only, log p(token) = log_softmax(logits / T) of a full forward pass, to fp32 rounding."""
    tokenizer, model, ids, mask = tiny
    config = _config(tokenizer, temperature=0.7, top_k=0, top_p=1.0)
    recorder = SampledLogprobs(ids.size(1))
    torch.manual_seed(1)
    out = model.generate(input_ids=ids, attention_mask=mask, generation_config=without_warpers(config),
                         logits_processor=LogitsProcessorList([*sampling_processors(config), recorder]))
    recorded = recorder.logprobs(out)
    full_mask = torch.cat([mask, torch.ones_like(out[:, ids.size(1):])], dim=1)
    positions = (full_mask.cumsum(-1) - 1).clamp(min=0)  # as generate numbers them under left padding
    with torch.no_grad():
        logits = model(input_ids=out, attention_mask=full_mask, position_ids=positions).logits
    completion = out[:, ids.size(1):]
    expected = torch.log_softmax(logits[:, ids.size(1) - 1 : -1].float() / 0.7, dim=-1)
    expected = expected.gather(2, completion.unsqueeze(-1)).squeeze(-1)
    assert torch.allclose(recorded, expected, atol=1e-4)


def test_unsupported_warpers_are_refused(tiny):
    tokenizer = tiny[0]
    with pytest.raises(ValueError, match="typical_p"):
        sampling_processors(_config(tokenizer, typical_p=0.5))
