"""The pure core: episodes, rollout, grading, records and statistics, with no framework underneath.

Nothing in this package imports verifiers, TRL, torch, transformers, an inference server or any
other part of ``supersede_env`` outside ``core`` (``tests/test_core_purity.py`` checks every module
found here). The adapters (``backends``, ``evaluation``, ``training``, ``verifiers_env``) and the
``supersede`` command (``commands``) are built on it.
"""
