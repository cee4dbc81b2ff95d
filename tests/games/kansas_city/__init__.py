"""The kansas_city tests, in the layout of cahoots_envs/games/kansas_city/."""
