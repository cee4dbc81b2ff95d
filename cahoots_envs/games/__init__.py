"""One folder per game: ``rules.py`` (the engine and its deal record), ``encoder.py``
(observation), ``text.py`` (headline, render, seat view, narration), ``bot.py`` (the rule-based
bot), ``env.py`` (the doc page and the env factories) and ``spec.py`` (the ``GameSpec`` that names
them all). Shared layers reach a game only through its spec (``cahoots_envs.registry``)."""
