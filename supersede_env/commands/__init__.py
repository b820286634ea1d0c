"""The subcommands of ``supersede`` (:mod:`supersede_env.cli` lists them), one module each.

Each exposes ``add_arguments(parser)`` and ``main(args) -> int`` and keeps heavy imports (torch,
transformers, trl, scipy) inside ``main``. A command reads its options, checks them, calls the core
and the adapters, and prints; the work itself lives in :mod:`supersede_env.core`,
:mod:`supersede_env.evaluation` and :mod:`supersede_env.training`.

- ``episodes`` (:mod:`.episodes`): write episodes from a source as JSONL;
- ``eval`` (:mod:`.eval`) and ``report`` (:mod:`.report`): paired evaluation and its report;
- ``train`` (:mod:`.train`): GRPO + LoRA training (also ``python -m supersede_env.commands.train``,
  what ``torchrun -m`` runs);
- ``grader-agreement`` (:mod:`.grader_agreement`) and ``reward-audit`` (:mod:`.reward_audit`): the
  reward checked against judge labels and against answers built to game it;
- :mod:`.annotations`: the maintainer's checker of the LongMemEval annotations (``python -m``).
"""
