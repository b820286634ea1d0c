"""CPU forward passes in groups of like length: every row's log-probabilities and the SFT loss are those of
one forward pass over the whole padded batch."""

import contextlib
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from supersede_env.training.grouped_forward import (
    IGNORE_INDEX,
    completion_loss_sum,
    length_groups,
    rotary,
    used_columns,
)
from supersede_env.training.samples import CallSample, collate

PAD = 0


def _model():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=50, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=64,
                                      pad_token_id=PAD)
    return transformers.LlamaForCausalLM(config).eval()


PROMPTS = [[5, 6, 7, 8, 9, 10, 11], [12], [13, 14, 15], [16, 17, 18, 19, 20, 21], [22, 23]]
COMPLETIONS = [[30, 31], [32, 33, 34], [35], [36, 37], [38, 39, 40]]


def test_length_groups_cover_every_row_once_longest_first():
    mask = torch.tensor([[0, 0, 1, 1], [1, 1, 1, 1], [0, 0, 0, 1], [0, 1, 1, 1], [0, 0, 1, 1]])
    groups = length_groups(mask, 2)
    assert [rows.tolist() for rows in groups] == [[1, 3], [0, 4], [2]]
    assert sorted(torch.cat(groups).tolist()) == [0, 1, 2, 3, 4]
    assert used_columns(mask[groups[1]], cut_left=True) == slice(2, 4)  # the first column any row attends through the last
    assert used_columns(torch.tensor([[1, 1, 0, 0], [1, 0, 0, 0]]), cut_left=True) == slice(0, 2)


def test_grpo_grouped_forward_gives_every_row_the_whole_batchs_logprobs():
    """The trainer's CPU path: left-padded prompts cut per group, completions kept whole (logits_to_keep)."""
    from trl.trainer.utils import selective_log_softmax

    from supersede_env.training.trainer import SupersedeGRPOTrainer

    model = _model()
    samples = [CallSample(rollout=i, step=0, kind="memo", prompt_ids=tuple(p), completion_ids=tuple(c))
               for i, (p, c) in enumerate(zip(PROMPTS, COMPLETIONS))]
    batch = collate(samples, torch.zeros(5), pad_token_id=PAD)
    ids = torch.cat([batch["prompt_ids"], batch["completion_ids"]], dim=1)
    mask = torch.cat([batch["prompt_mask"], batch["completion_mask"]], dim=1)
    keep = batch["completion_ids"].size(1)
    trainer = SimpleNamespace(accelerator=SimpleNamespace(autocast=contextlib.nullcontext), temperature=1.0)
    with torch.no_grad():
        grouped, _, _ = SupersedeGRPOTrainer._completion_logps(trainer, model, ids, mask, keep, 2, False)
        logits = model(input_ids=ids, attention_mask=mask, logits_to_keep=keep + 1).logits[:, :-1]
        whole = selective_log_softmax(logits, ids[:, -keep:])
    used = batch["completion_mask"].bool()
    assert torch.allclose(grouped[used], whole[used], atol=1e-5)


def test_sft_loss_is_transformers_causal_lm_loss():
    """Right-padded rows whose labels cover the completion only, as TRL's collator builds them."""
    model = _model()
    width = max(len(p) + len(c) for p, c in zip(PROMPTS, COMPLETIONS))
    ids = torch.full((5, width), PAD)
    mask = torch.zeros((5, width), dtype=torch.long)
    labels = torch.full((5, width), IGNORE_INDEX)
    for i, (p, c) in enumerate(zip(PROMPTS, COMPLETIONS)):
        row = p + c
        ids[i, : len(row)] = torch.tensor(row)
        mask[i, : len(row)] = 1
        labels[i, len(p) : len(row)] = torch.tensor(c)
    inputs = {"input_ids": ids, "attention_mask": mask, "labels": labels}
    with torch.no_grad():
        expected = model(**inputs).loss  # the mean over the 11 labelled tokens
        for rows_per_group in (1, 2, 5):
            total = completion_loss_sum(model, inputs, rows_per_group)
            assert float(total / 11) == pytest.approx(float(expected), abs=1e-5)


def test_a_batch_with_no_label_gives_a_zero_loss_that_backpropagates():
    model = _model().train()
    ids = torch.tensor([[5, 6, 7, PAD], [8, 9, PAD, PAD]])
    inputs = {"input_ids": ids, "attention_mask": (ids != PAD).long(), "labels": torch.full_like(ids, IGNORE_INDEX)}
    total = completion_loss_sum(model, inputs, 1)
    total.backward()
    assert float(total.detach()) == 0.0


def test_only_rotary_models_have_their_left_padding_cut():
    assert rotary(_model())
    gpt2 = transformers.GPT2LMHeadModel(transformers.GPT2Config(n_layer=1, n_embd=16, n_head=2, vocab_size=50))
    assert not rotary(gpt2)
    mask = torch.tensor([[0, 1, 1], [0, 0, 1]])
    assert used_columns(mask, cut_left=True) == slice(1, 3)
    assert used_columns(mask, cut_left=False) == slice(0, 3)
