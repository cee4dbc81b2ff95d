"""Per-game tests, one folder per game of cahoots_envs/games/ (the shared suite runs every
registered game from tests/)."""
