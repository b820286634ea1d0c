"""The paired evaluation harness behind ``supersede eval`` and ``supersede report``.

Data flows one way: episodes (:mod:`supersede_env.core.episode_source`) -> rollouts (:mod:`.runner`,
over :mod:`supersede_env.core.rollout`) -> graded rows (:func:`supersede_env.core.records.verdict_record`,
the judge's verdict from :mod:`.judging`) -> run records (:mod:`supersede_env.core.records`) -> numbers
(:mod:`.summary`, :mod:`.diagnostics`, over :mod:`supersede_env.core.stats`) -> the report
(:mod:`.report`, :mod:`.plots`). :mod:`.config` holds the run's options, :mod:`.rundir` the run directory (its
lock is :mod:`supersede_env.core.run_lock`); the two subcommands are :mod:`supersede_env.commands.eval` and
:mod:`supersede_env.commands.report`. Nothing here is imported by ``import supersede_env``.
"""
