"""The texas_euchre tests, in the layout of cahoots_envs/games/texas_euchre/."""
