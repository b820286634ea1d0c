"""The paired evaluation harness behind ``supersede eval`` and ``supersede report``.

Data flows one way: episodes -> rollouts (:mod:`.runner`, over :mod:`supersede_env.rollout`) ->
verdicts (:mod:`.grading`) -> run records (:mod:`supersede_env.records`) -> numbers
(:mod:`.summary`, :mod:`.diagnostics`) -> report files (:mod:`.report`, :mod:`.plots`).
:mod:`.config` holds the run's options, :mod:`.rundir` the run directory, :mod:`.command` and
:mod:`.report_command` the two subcommands. Nothing here is imported by ``import supersede_env``.
"""
