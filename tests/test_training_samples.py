"""Per-call samples: cutting at a call's own limit, padding and loss masks, micro-batch splits."""

import pytest

torch = pytest.importorskip("torch")

from supersede_env.training.samples import CallSample, collate, cut_completion, shuffle_rows, split_even

EOS = 2
PAD = 0


def test_cut_keeps_the_stop_token_and_nothing_after():
    ids, lps, truncated = cut_completion(
        [5, 6, EOS, 7, 8], [-1.0, -2.0, -3.0, -4.0, -5.0], limit=10, stop_ids=[EOS]
    )
    assert ids == (5, 6, EOS) and lps == (-1.0, -2.0, -3.0) and not truncated


def test_cut_at_the_calls_own_limit_is_truncated():
    # The round generated up to 6 tokens for another call; this call allows 3.
    ids, lps, truncated = cut_completion([5, 6, 7, EOS, 8, 9], None, limit=3, stop_ids=[EOS])
    assert ids == (5, 6, 7) and lps is None and truncated
    # A stop token just past the limit does not count: a 3-token sample could not have produced it.
    assert cut_completion([5, 6, 7, EOS], None, limit=3, stop_ids=[EOS])[2]


def _samples():
    return [
        CallSample(rollout=0, step=0, kind="memo", prompt_ids=(11, 12, 13), completion_ids=(21, 22, EOS)),
        CallSample(rollout=0, step=1, kind="answer", prompt_ids=(14,), completion_ids=(23,), truncated=True),
        CallSample(rollout=1, step=0, kind="memo", prompt_ids=(15, 16), completion_ids=(24, 25, 26, 27)),
    ]


def test_collate_pads_prompts_left_completions_right_and_masks_only_model_tokens():
    batch = collate(_samples(), torch.tensor([0.5, 0.5, -1.0]), pad_token_id=PAD)
    assert batch["prompt_ids"].tolist() == [[11, 12, 13], [PAD, PAD, 14], [PAD, 15, 16]]
    assert batch["prompt_mask"].tolist() == [[1, 1, 1], [0, 0, 1], [0, 1, 1]]
    assert batch["completion_ids"].tolist() == [[21, 22, EOS, PAD], [23, PAD, PAD, PAD], [24, 25, 26, 27]]
    # The loss mask is the completion mask: every produced token (the end-of-turn token included),
    # no prompt token, no padding.
    assert batch["completion_mask"].tolist() == [[1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 1, 1]]
    assert batch["advantages"].tolist() == [0.5, 0.5, -1.0]
    assert "sampling_per_token_logps" not in batch


def test_collate_can_drop_truncated_calls_from_the_loss():
    batch = collate(_samples(), torch.zeros(3), pad_token_id=PAD, mask_truncated=True)
    assert batch["completion_mask"][1].sum() == 0
    assert batch["completion_mask"][0].sum() == 3


def test_collate_carries_sampler_logprobs_when_every_call_has_them():
    samples = [
        CallSample(0, 0, "memo", (1,), (5, EOS), sampling_logprobs=(-0.5, -0.1)),
        CallSample(1, 0, "memo", (1,), (6,), sampling_logprobs=(-0.2,)),
    ]
    batch = collate(samples, torch.zeros(2), pad_token_id=PAD)
    assert torch.allclose(batch["sampling_per_token_logps"], torch.tensor([[-0.5, -0.1], [-0.2, 0.0]]))


def test_pad_to_multiple():
    batch = collate(_samples(), torch.zeros(3), pad_token_id=PAD, pad_to_multiple_of=8)
    assert batch["prompt_ids"].shape[1] == 8 and batch["completion_ids"].shape[1] == 8


def test_split_even_keeps_every_row():
    batch = {"x": torch.arange(11), "num_items_in_batch": torch.tensor(42)}
    parts = split_even(batch, 3)
    assert [len(p["x"]) for p in parts] == [4, 4, 3]
    assert torch.cat([p["x"] for p in parts]).tolist() == list(range(11))
    assert all(int(p["num_items_in_batch"]) == 42 for p in parts)
    with pytest.raises(ValueError):
        split_even({"x": torch.arange(2)}, 3)


def test_shuffle_rows_moves_rows_together():
    batch = {"a": torch.arange(6), "b": torch.arange(6) * 10, "n": torch.tensor(3)}
    out = shuffle_rows(batch, torch.Generator().manual_seed(0))
    assert (out["b"] == out["a"] * 10).all() and sorted(out["a"].tolist()) == list(range(6))


def test_sample_checks_its_logprobs():
    with pytest.raises(ValueError, match="log-probs"):
        CallSample(0, 0, "memo", (1,), (2, 3), sampling_logprobs=(-1.0,))


def test_fillers_take_no_part_in_the_loss():
    from supersede_env.training.samples import filler

    rows = _samples() + [filler(PAD, with_logprobs=False)] * 2
    batch = collate(rows, torch.tensor([0.5, 0.5, -1.0, 0.0, 0.0]), pad_token_id=PAD)
    assert batch["completion_mask"][3:].sum() == 0  # no loss token, not counted in num_items_in_batch
    assert batch["prompt_mask"][3:].sum(dim=1).tolist() == [1, 1]  # one attended token: no empty attention row
    assert batch["advantages"][3:].tolist() == [0.0, 0.0]


def test_trim_columns_drops_only_padding_every_row_has():
    from supersede_env.training.samples import trim_columns

    batch = collate(_samples(), torch.zeros(3), pad_token_id=PAD, pad_to_multiple_of=8)
    part = {k: v[1:] for k, v in batch.items()}  # rows 2 and 3: prompts of 1 and 2 tokens, completions of 1 and 4
    trimmed = trim_columns(part)
    assert trimmed["prompt_ids"].tolist() == [[PAD, 14], [15, 16]]
    assert trimmed["completion_ids"].tolist() == [[23, PAD, PAD, PAD], [24, 25, 26, 27]]
    assert trimmed["completion_mask"].tolist() == [[1, 0, 0, 0], [1, 1, 1, 1]]
    assert trimmed["advantages"].tolist() == [0.0, 0.0]
