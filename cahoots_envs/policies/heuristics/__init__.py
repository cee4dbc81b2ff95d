"""Rule-based bots, one module per game: ``cahoots_envs.policies.heuristics.<game>`` defines
``HeuristicPolicy(options, seed=None)`` that reads only its observation through the game's layout
views (``Game.layout(options).views(observation)``) and its action mask."""
