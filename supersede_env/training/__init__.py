"""GRPO + LoRA training on the bounded-memo environment (TRL 1.16), one sample per model call.

Nothing is imported here, so ``supersede --help`` stays fast; the modules, one concept each:

- :mod:`.config`: the YAML config, validated into frozen dataclasses (pure);
- :mod:`.command`: ``supersede train`` and ``python -m supersede_env.training.command`` (accelerate);
- :mod:`.run`: data, model, TRL arguments, trainer, train, save;
- :mod:`.trainer`: ``SupersedeGRPOTrainer``, TRL's ``GRPOTrainer`` with per-call samples;
- :mod:`.samples`: per-call rows, masks, padding, micro-batch splits;
- :mod:`.advantages`: group-relative advantages and their broadcast to every call;
- :mod:`.reward`: ``r_cur + lambda * r_stale`` from the hardened grader;
- :mod:`.importance`: vLLM importance-sampling weights;
- :mod:`.curriculum`, :mod:`.callbacks` (stop rule, metrics JSONL, held-out schedule),
  :mod:`.rollout_log` (batch summaries, ``rollouts.jsonl``), :mod:`.heldout`, :mod:`.data`,
  :mod:`.models` (policy loading, prompt rendering), :mod:`.tiny_model` (a local test model).
"""
