"""GRPO + LoRA training on the bounded-memo environment (TRL 1.16), one sample per model call.

Nothing is imported here, so ``supersede --help`` stays fast; the command is
:mod:`supersede_env.commands.train` (also ``python -m supersede_env.commands.train``, what
``torchrun -m`` runs). The modules, one concept each:

- :mod:`.config`: ``SupersedeGRPOConfig`` (a TRL ``GRPOConfig``) + TRL's ``ModelConfig``, parsed
  from a flat YAML file and the command line by ``TrlParser``, checked at the edge;
- :mod:`.keys`: API keys only from the environment, never an option value, masked in what a run writes;
- :mod:`.run`: inputs (episodes, held-out set), model, trainer, train, save;
- :mod:`.run_dir`: the output folder (checked before any work, one run per folder, its lock, resume
  and cut-back);
- :mod:`.checkpoints`: checkpoints written whole, with this environment's state inside;
- :mod:`.episode_pools`: the training episodes, one pool per curriculum level;
- :mod:`.policy`: the model and tokenizer to train;
- :mod:`.trainer`: ``SupersedeGRPOTrainer``, TRL's ``GRPOTrainer`` with per-call samples;
- :mod:`.samples`: per-call rows, masks, padding, filler rows, micro-batch splits;
- :mod:`.advantages`: group-relative advantages and their broadcast to every call;
- :mod:`.reward`: ``r_cur + lambda * r_stale`` from the grader in strict mode (a TRL reward function);
- :mod:`.importance`: importance-sampling weights (TRL's modes);
- :mod:`.sampler_logprobs`: the sampler's log-probs with transformers generation;
- :mod:`.weight_sync`: the exact, out-of-place LoRA weight sync to vLLM;
- :mod:`.sync_check`: TRL's own ``sync_weights`` driven against a recording engine (tests, GPU check);
- :mod:`.heldout`: the held-out set and its evaluation callback (``supersede eval`` run records);
- :mod:`.curriculum`, :mod:`.callbacks` (stop rule, metrics JSONL), :mod:`.rollout_log` (batch
  summaries, ``rollouts.jsonl``), :mod:`.tiny_model` (a local test model).
"""
