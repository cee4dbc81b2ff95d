"""The cahoots_tricks tests, in the layout of cahoots_envs/games/cahoots_tricks/."""
