"""The LoRA weight sync to vLLM: out-of-place merged weights, base weights bit-identical after 200 syncs.

No vLLM here. The real-path tests drive TRL 1.16's own ``VLLMGeneration.sync_weights`` (colocate mode,
TRL's constructor, TRL's parameter walk) against a recording engine that stands where vLLM's ``LLM``
sits (:mod:`supersede_env.training.sync_check`), on a bf16 PEFT model whose adapter moves between
syncs as training would: with :func:`install_exact_sync` the base weights stay bit-identical and every
pushed tensor equals PEFT's own merge; with TRL's default merge / unmerge they drift, so a TRL change
that bypasses the exact sync fails here. The other tests check the replacement iterator itself.
"""

import sys
import types

import pytest

torch = pytest.importorskip("torch")
peft = pytest.importorskip("peft")

from supersede_env.training.weight_sync import install_exact_sync, merged_named_params

CYCLES = 200


def _model(dtype=torch.bfloat16, r=32, alpha=64):
    """A bf16 model of two 256x256 linear layers (plus an untouched one) with a LoRA adapter, r=32, alpha=64."""
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(0)
    base = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                               torch.nn.Linear(256, 8)).to(dtype)
    model = get_peft_model(base, LoraConfig(r=r, lora_alpha=alpha, target_modules=["0", "2"], lora_dropout=0.0))
    for name, p in model.named_parameters():  # a trained-looking adapter (B starts at zero)
        if "lora_" in name:
            p.data.normal_(0, 0.05)
    return model


def _train_step(model, generator):
    """Move the adapter as an optimizer step would."""
    for name, p in model.named_parameters():
        if "lora_" in name:
            p.data.add_(torch.randn(p.shape, generator=generator, dtype=torch.float32).to(p.dtype), alpha=1e-3)


def _base_weights(model):
    return {n: p.detach().clone() for n, p in model.named_parameters() if "lora_" not in n}


def _trl_cycle(model):
    """What TRL 1.16's VLLMGeneration._iter_named_params does for a PEFT model without FSDP/ZeRO-3."""
    model.merge_adapter()
    pushed = {n.removeprefix("base_model.model.").replace(".base_layer", ""): p.data.clone()
              for n, p in model.named_parameters() if model.prefix not in n}
    model.unmerge_adapter()
    return pushed


def test_200_bf16_syncs_leave_the_base_weights_bit_identical():
    model = _model()
    before = _base_weights(model)
    generator = torch.Generator().manual_seed(1)
    for _ in range(CYCLES):
        _train_step(model, generator)
        pushed = dict(merged_named_params(model))
        assert set(pushed) == {"0.weight", "0.bias", "2.weight", "2.bias", "3.weight", "3.bias"}
    after = _base_weights(model)
    assert all(torch.equal(before[n], after[n]) for n in before)


def test_the_pushed_weights_are_peft_merges_of_the_current_adapter():
    """Each sync pushes exactly what PEFT's merge gives on pristine base weights (TRL's first cycle)."""
    model = _model()
    generator = torch.Generator().manual_seed(2)
    for _ in range(3):
        _train_step(model, generator)
        pushed = dict(merged_named_params(model))
        reference = _model()
        reference.load_state_dict(model.state_dict())
        expected = _trl_cycle(reference)
        assert pushed.keys() == expected.keys()
        assert all(torch.equal(pushed[n], expected[n]) for n in expected)
        assert pushed["0.weight"].dtype == torch.bfloat16
        # the merge is real: the adapter moved the weight
        assert not torch.equal(pushed["0.weight"], model.base_model.model[0].base_layer.weight)


def _trl_sync_cycles(exact, cycles):
    """``cycles`` x (move the adapter, TRL's real ``sync_weights``) on the bf16 model."""
    from accelerate import Accelerator

    from supersede_env.training.sync_check import move_adapter, recording_generation, run_sync_cycles

    model = _model()
    generation = recording_generation(model, Accelerator(cpu=True))
    if exact:
        install_exact_sync(generation)
    generator = torch.Generator().manual_seed(1)
    figures = run_sync_cycles(generation, cycles, lambda: move_adapter(model, generator))
    assert generation.engine.loads == cycles * 6 and generation.engine.cache_resets == cycles  # TRL pushed every sync
    assert "vllm" not in sys.modules
    return figures


def test_trls_own_sync_with_the_exact_merge_keeps_200_bf16_cycles_bit_identical():
    figures = _trl_sync_cycles(exact=True, cycles=CYCLES)
    assert figures.base_tensors_changed == 0 and figures.base_entries_changed_frac == 0.0
    assert figures.pushed_tensors == 6 and figures.pushed_equal_peft_merge == 6  # what vLLM got is PEFT's merge


def test_trls_own_sync_with_its_default_merge_drifts_in_bf16():
    """The same check on TRL's default in-place merge fails: the fault install_exact_sync removes.

    50 cycles are enough to show it (measured: 75% of base entries changed after 200); the exact sync runs 200.
    """
    figures = _trl_sync_cycles(exact=False, cycles=50)
    assert figures.base_tensors_changed == 2 and figures.base_entries_changed_frac > 0.2
    assert figures.pushed_equal_peft_merge < figures.pushed_tensors


def test_install_replaces_trls_iterator_and_refuses_what_it_cannot_merge():
    model = _model()
    generation = types.SimpleNamespace(
        model=model,
        _dist=types.SimpleNamespace(is_fsdp=False, is_zero3=False),
        _fix_param_name_to_vllm=lambda name, extra_prefixes=None: name,
        _iter_named_params=None,
    )
    install_exact_sync(generation)
    before = _base_weights(model)
    names = [n for n, _ in generation._iter_named_params()]
    assert names == ["0.weight", "0.bias", "2.weight", "2.bias", "3.weight", "3.bias"]
    assert all(torch.equal(before[n], p) for n, p in _base_weights(model).items())

    generation._dist.is_zero3 = True
    with pytest.raises(NotImplementedError, match="DDP only"):
        install_exact_sync(generation)

    from peft import LoraConfig, get_peft_model

    dora = get_peft_model(torch.nn.Sequential(torch.nn.Linear(16, 16)),
                          LoraConfig(r=4, target_modules=["0"], use_dora=True))
    with pytest.raises(NotImplementedError, match="plain LoRA"):
        install_exact_sync(types.SimpleNamespace(model=dora, _dist=types.SimpleNamespace(is_fsdp=False, is_zero3=False),
                                                 _fix_param_name_to_vllm=lambda name, **_: name))


def _scaled_adapter(model, b_scale):
    """Set every LoRA B to ``b_scale`` times a fixed random matrix (A as _model left it)."""
    generator = torch.Generator().manual_seed(3)
    for name, p in model.named_parameters():
        if "lora_B" in name:
            p.data.copy_((torch.randn(p.shape, generator=generator) * b_scale).to(p.dtype))


def test_merge_loss_measures_what_the_rounded_merge_hides_from_the_sampler():
    from supersede_env.training.weight_sync import merge_loss

    model = _model()
    _scaled_adapter(model, 0.0)
    zero = merge_loss(model)
    assert zero.lost_share is None and zero.entries_changed == 0  # B starts at zero: nothing to lose

    _scaled_adapter(model, 1e-7)  # far below a bf16 step of weights of size ~0.03
    tiny = merge_loss(model)
    assert tiny.lost_share == pytest.approx(1.0, abs=1e-3) and tiny.changed_share < 1e-3  # all but weights near 0

    _scaled_adapter(model, 1e-1)
    large = merge_loss(model)
    assert large.lost_share < 0.05 and large.changed_share > 0.9

    # by hand for one layer: the update the pushed (rounded) weight carries, against the update trained
    layer = model.base_model.model[0]
    base = layer.base_layer.weight.data
    delta = layer.get_delta_weight("default").float()
    pushed = dict(merged_named_params(model))["0.weight"]
    assert torch.equal(pushed, (base + delta).to(base.dtype))
    _scaled_adapter(model, 1e-4)  # updates about a bf16 step of the weights
    middle = merge_loss(model)
    assert 0.05 < middle.lost_share < 1.0

    # pushed in float32 the update survives whole
    assert merge_loss(model, torch.float32).lost_share < 1e-3
    # a float32 model loses nothing either
    exact = _model(dtype=torch.float32)
    _scaled_adapter(exact, 3e-3)
    assert merge_loss(exact).lost_share < 1e-3


def test_every_sync_reports_its_merge_loss_through_trls_own_sync():
    from accelerate import Accelerator

    from supersede_env.training.sync_check import recording_generation

    model = _model()
    generation = recording_generation(model, Accelerator(cpu=True))
    seen = []
    install_exact_sync(generation, on_sync=seen.append)
    _scaled_adapter(model, 1e-7)
    generation.sync_weights()
    _scaled_adapter(model, 1e-1)
    generation.sync_weights()
    assert [round(s.lost_share, 1) for s in seen] == [1.0, 0.0]
    assert generation.engine.loads == 12  # both syncs pushed every weight
