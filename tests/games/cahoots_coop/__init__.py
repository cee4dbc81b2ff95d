"""The cahoots_coop tests, in the layout of cahoots_envs/games/cahoots_coop/."""
