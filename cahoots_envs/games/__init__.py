"""One package per game: ``rules.py`` (the engine), ``encoder.py`` (observation), ``env.py`` (doc page + factories)."""
