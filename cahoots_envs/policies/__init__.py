"""Policies: the protocol, built-in bots (random, heuristic per game), saved policies and the zoo."""

from cahoots_envs.policies.base import BasePolicy, Policy

__all__ = ["BasePolicy", "Policy"]
