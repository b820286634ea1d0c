"""Benchmark: how much of a LoRA update survives the bf16 merge a vLLM sync pushes, on real weights.

With ``use_vllm`` and LoRA, every sync hands vLLM the base weights with the adapter merged, rounded to
the weights' dtype (bfloat16 for a real model). An update much smaller than a weight's rounding step
vanishes there: the trainer trains one policy and the sampler runs another. This measures that share
(:func:`supersede_env.training.weight_sync.merge_loss`, what the trainer logs as ``sync/update_lost_share``)
over real training steps: the embedded SmolLM2-135M's weights in bfloat16, a LoRA adapter on every linear
layer (float32, as PEFT keeps it; the forward runs in float32, as bf16 matmuls are slow on CPUs), AdamW on the gold-memo teacher's SFT rows (the answer's tokens only),
at each learning rate given. One process, CPU; about a second a step.

    .venv/bin/python eval/bench_sync_merge_loss.py
    .venv/bin/python eval/bench_sync_merge_loss.py --learning-rates 1e-5,1e-4 --steps 100 --rank 32 --alpha 64
"""

from __future__ import annotations

import argparse
import time

import torch
from peft import LoraConfig, get_peft_model

from supersede_env.backends.embedded import load_embedded
from supersede_env.core.conditions import parse_condition
from supersede_env.core.sft_data import teacher_rows
from supersede_env.core.synthetic import generate_episodes
from supersede_env.training.weight_sync import merge_loss

REPORT_AT = (1, 3, 10, 30, 100, 300, 1000)


def batches(tokenizer, count: int, size: int, seed: int) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """``count`` batches of teacher rows as (input ids, attention mask, labels on the completion only)."""
    episodes = generate_episodes(max(1, count * size // 5 + 1), seed=seed, difficulty="L1")
    rows = teacher_rows(episodes, [parse_condition("memo:300")]).rows
    out = []
    for b in range(count):
        chunk = [rows[(b * size + i) % len(rows)] for i in range(size)]
        prompts = [tokenizer.apply_chat_template(r["prompt"], tokenize=False, add_generation_prompt=True)
                   for r in chunk]
        texts = [p + r["completion"][0]["content"] + tokenizer.eos_token for p, r in zip(prompts, chunk)]
        encoded = tokenizer(texts, return_tensors="pt", padding=True)
        labels = encoded.input_ids.clone()
        for i, prompt in enumerate(prompts):
            labels[i, : len(tokenizer(prompt).input_ids)] = -100
        labels[encoded.attention_mask == 0] = -100
        out.append((encoded.input_ids, encoded.attention_mask, labels))
    return out


def measure(learning_rate: float, steps: int, rank: int, alpha: int, data, base_state) -> tuple[list[tuple[int, object]], float]:
    model, _ = load_embedded()
    model.load_state_dict(base_state)
    # bf16 weights, computed in float32 (bf16 matmuls are slow on CPUs): every base value is a bf16 value.
    model = model.to(torch.bfloat16).to(torch.float32)
    model = get_peft_model(model, LoraConfig(r=rank, lora_alpha=alpha, target_modules="all-linear",
                                             lora_dropout=0.0))
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=learning_rate,
                                  weight_decay=0.0)
    rows = []
    started = time.perf_counter()
    for step in range(1, steps + 1):
        ids, mask, labels = data[(step - 1) % len(data)]
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if step in REPORT_AT or step == steps:
            rows.append((step, merge_loss(model, torch.bfloat16)))
    return rows, (time.perf_counter() - started) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learning-rates", default="1e-5,1e-4", help="comma-separated AdamW learning rates")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--rank", type=int, default=32)
    parser.add_argument("--alpha", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    options = parser.parse_args()
    torch.set_num_threads(options.threads)
    torch.manual_seed(0)
    model, tokenizer = load_embedded()
    tokenizer.padding_side = "right"
    base_state = {k: v.clone() for k, v in model.state_dict().items()}
    data = batches(tokenizer, 50, options.batch_size, seed=5)
    print(f"SmolLM2-135M weights in bfloat16, LoRA r {options.rank} alpha {options.alpha} on every linear layer, "
          f"AdamW, batch {options.batch_size} teacher rows")
    print("| learning rate | step | update lost to the bf16 merge | merged entries that moved | s/step |")
    print("| --- | --- | --- | --- | --- |")
    for text in options.learning_rates.split(","):
        rows, per_step = measure(float(text), options.steps, options.rank, options.alpha, data, base_state)
        for step, loss in rows:
            share = "n/a" if loss.lost_share is None else f"{loss.lost_share:.1%}"
            print(f"| {text} | {step} | {share} | {loss.changed_share:.2%} | {per_step:.2f} |", flush=True)


if __name__ == "__main__":
    main()
