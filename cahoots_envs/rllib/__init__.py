"""RLlib support: the games as RLlib multi-agent envs, masked PPO, self-play configs, export.

Needs the ``rllib`` extra (``ray[rllib]`` 2.60, torch), in a virtual environment of its own:
ray's rllib extra pins an older gymnasium than the main one (see docs/scale.md). Importing
``cahoots_envs`` never imports ray; this package does.

- ``CahootsMultiAgentEnv``: any registered game (and options) as a turn-based ``MultiAgentEnv``
  with ``Dict(observations, action_mask)`` observations, optional bot seats played inside it.
- ``MaskedPPOTorchRLModule``: PPO's default module with illegal moves masked out.
- ``ppo_config``: self-play, one ``shared`` policy for every seat or a ``learner`` against frozen
  ``snapshot`` copies of itself refreshed every few iterations.
- ``export``: the trained actor as a saved policy (numpy ``MLPPolicy``) that plays anywhere.
"""

RLLIB_EXTRA = 'pip install "cahoots-envs[rllib]"'


def _require_rllib() -> None:
    """ray[rllib] and torch, or one line naming the extra and the separate virtual env (as
    ``cahoots_envs.vector`` names the ``fast`` extra when numba is missing)."""
    try:
        import ray.rllib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as e:
        missing = (e.name or "ray").split(".")[0]
        raise ModuleNotFoundError(
            f"cahoots_envs.rllib needs ray[rllib] and torch, and {missing} is not installed "
            f"here: {RLLIB_EXTRA} in a virtual environment of its own (ray[rllib] pins an "
            "older gymnasium than the main install; the README's 'Scaling out with RLlib' sets "
            "up .venv-rllib)", name=missing) from None


_require_rllib()

from cahoots_envs.rllib.config import RLlibTrainConfig, load_config, ppo_config
from cahoots_envs.rllib.env import CahootsMultiAgentEnv, LegalActions
from cahoots_envs.rllib.export import export, policy_from_module
from cahoots_envs.rllib.module import MaskedPPOTorchRLModule

__all__ = [
    "RLLIB_EXTRA",
    "CahootsMultiAgentEnv",
    "LegalActions",
    "MaskedPPOTorchRLModule",
    "RLlibTrainConfig",
    "export",
    "load_config",
    "policy_from_module",
    "ppo_config",
]
