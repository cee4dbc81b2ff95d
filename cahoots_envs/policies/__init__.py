"""Policies: the protocol, built-in bots (random, heuristic per game), saved policies and the zoo.

``load_policy(spec, env_id, options, seed)`` builds any of them from a spec string; saved
policies are safetensors files checked against the env on load (``saved.py``).
"""

from cahoots_envs.core.policy import BasePolicy, Policy
from cahoots_envs.policies.loading import list_policies, load_heuristic, load_policy
from cahoots_envs.policies.network import MLPPolicy
from cahoots_envs.policies.random_policy import RandomPolicy
from cahoots_envs.policies.saved import (
    PolicyFileError,
    SavedPolicy,
    UntrustedPolicyError,
    load_saved_policy,
    read_metadata,
    save_policy,
)

__all__ = [
    "BasePolicy",
    "MLPPolicy",
    "Policy",
    "PolicyFileError",
    "RandomPolicy",
    "SavedPolicy",
    "UntrustedPolicyError",
    "list_policies",
    "load_heuristic",
    "load_policy",
    "load_saved_policy",
    "read_metadata",
    "save_policy",
]
