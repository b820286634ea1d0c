"""Reference policies: baselines that play the model's part from the prompt text alone.

- :mod:`~supersede_env.baselines.reading`: what a supersede-env prompt asks (a memo step, an answer).
- :mod:`~supersede_env.baselines.candidates`: candidate answers to a question, found in text.
- :mod:`~supersede_env.baselines.policies`: the policies (``recency``, ``append``), by name.
- :mod:`~supersede_env.baselines.server`: an OpenAI-compatible server for them (``supersede serve``).

Use one as a backend (``--model baseline:recency``) or behind a server
(``supersede serve --policy recency``). They are baselines, never models.
"""
