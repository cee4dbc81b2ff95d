"""Export a trained RLlib policy to our saved-policy format (a numpy ``MLPPolicy``).

>>> from cahoots_envs.rllib import export
>>> export(algo, "runs/mine/policy.safetensors", "texas_euchre-v1", {"num_players": 4})

The policy's actor is the module's actor encoder (an MLP whose every layer is activated) followed
by its ``pi`` head (hidden layers activated, the last one linear): together one MLP with one
activation (tanh or relu) between its layers, which is ``MLPPolicy``. ``policy_from_module``
copies those layers; greedy masked actions of the result equal the argmax of the module's masked
``action_dist_inputs`` (tests check it on many observations). The file then loads with
``cahoots_envs.load_policy(path, env_id)`` and plays anywhere: ``cahoots eval``, ``cahoots play``,
seat-env pools, tournaments, as a bot inside ``CahootsMultiAgentEnv``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cahoots_envs.policies.network import TORCH_ACTIVATIONS, MLPPolicy
from cahoots_envs.policies.saved import save_policy


def _layers(net: Any) -> list[Any]:
    """The leaf modules of a torch module, in order."""
    return [m for m in net.modules() if not list(m.children())]


def policy_from_module(module: Any, **kwargs: Any) -> MLPPolicy:
    """The actor of an RLlib PPO torch module (``MaskedPPOTorchRLModule`` or any module with
    ``encoder`` and ``pi`` MLPs) as a numpy ``MLPPolicy``; ``kwargs`` go to ``MLPPolicy``
    (``deterministic``, ``seed``). ``ValueError`` names a layer it cannot represent."""
    from torch import nn

    encoder = module.encoder
    actor = getattr(encoder, "actor_encoder", None) or getattr(encoder, "encoder", None)
    if actor is None:
        raise ValueError(f"{type(module).__name__}: no actor encoder found in {type(encoder)}")
    layers = _layers(actor) + _layers(module.pi)
    weights: list[tuple[np.ndarray, np.ndarray]] = []
    activations: set[str] = set()
    activated = True  # the network's input is not an activation's output: a Linear comes first
    for layer in layers:
        if isinstance(layer, nn.Linear):
            if not activated:
                raise ValueError("two linear layers in a row: the exported MLP needs an "
                                 "activation between layers")
            if layer.bias is None:
                raise ValueError("a linear layer without a bias cannot be exported")
            weights.append((layer.weight.detach().cpu().numpy().astype(np.float32),
                            layer.bias.detach().cpu().numpy().astype(np.float32)))
            activated = False
        elif type(layer).__name__ in TORCH_ACTIVATIONS and not activated and weights:
            activations.add(TORCH_ACTIVATIONS[type(layer).__name__])
            activated = True
        elif isinstance(layer, (nn.Identity, nn.Flatten)):
            continue
        else:
            raise ValueError(f"layer {type(layer).__name__} cannot be exported: the numpy "
                             f"policy is Linear layers with {' or '.join(TORCH_ACTIVATIONS)} "
                             "between them")
    if not weights or activated:
        raise ValueError("the actor must end with a linear layer (the action logits)")
    if len(activations) > 1:
        raise ValueError(f"the actor mixes activations {sorted(activations)}; the exported "
                         "policy uses one (set fcnet_activation and head_fcnet_activation alike)")
    activation = next(iter(activations)) if activations else "tanh"
    return MLPPolicy(weights, activation, **kwargs)


def module_of(source: Any, module_id: str | None = None) -> Any:
    """The RLModule to export: ``source`` itself, or ``module_id`` of an RLlib ``Algorithm``
    (``shared`` or ``learner`` when not given: whichever it has)."""
    if hasattr(source, "get_module"):
        ids = [module_id] if module_id else ["shared", "learner"]
        for mid in ids:
            module = source.get_module(mid)
            if module is not None:
                return module
        raise ValueError(f"the algorithm has no module {' or '.join(ids)}")
    return source


def export(
    source: Any,
    path: str | Path,
    env_id: str,
    options: Mapping[str, Any] | None = None,
    *,
    module_id: str | None = None,
    weights_dtype: str = "float32",
    **meta: Any,
) -> dict[str, Any]:
    """Write the policy of ``source`` (an RLlib ``Algorithm`` or an RLModule) to ``path``
    (``.safetensors`` plus its ``.json``) as a saved policy for ``env_id`` with ``options``;
    returns the metadata. ``meta``: ``name``, ``description``, ``training``, ``evaluation``
    (as ``cahoots_envs.policies.save_policy``)."""
    policy = policy_from_module(module_of(source, module_id))
    return save_policy(policy, path, env_id, options, weights_dtype=weights_dtype, **meta)
