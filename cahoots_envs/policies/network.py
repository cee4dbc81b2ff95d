"""A masked MLP policy evaluated with numpy: the network that saved and zoo policies hold.

It is the actor of an SB3 ``MaskableActorCriticPolicy`` with an ``MlpPolicy`` (flatten extractor,
``mlp_extractor.policy_net``, ``action_net``): ``from_sb3`` copies those weights, and acting here
gives the same actions as ``model.predict(obs, action_masks=mask, deterministic=True)``.
Numpy keeps inference free of torch and fast for batches of a few hundred rows.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from cahoots_envs.core.policy import BasePolicy

ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0, out=x),
}
TORCH_ACTIVATIONS: dict[str, str] = {"Tanh": "tanh", "ReLU": "relu"}


def masked_choice(logits: np.ndarray, action_masks: np.ndarray, deterministic: bool,
                  rng: np.random.Generator) -> np.ndarray:
    """One legal action per row: the best logit (``deterministic``), else a sample of the masked
    softmax (Gumbel-max, from ``rng``)."""
    masks = np.asarray(action_masks) > 0
    if not masks.any(axis=-1).all():
        raise ValueError("policy asked to act with an all-zero action mask")
    logits = logits.astype(np.float64)
    if not deterministic:
        logits += rng.gumbel(size=logits.shape)  # Gumbel-max = sampling the softmax
    logits[~masks] = -np.inf
    return logits.argmax(axis=-1).astype(np.int64)


class MLPPolicy(BasePolicy):
    """``logits = W_k(act(... act(W_1 x + b_1)))``; illegal actions masked out; argmax by default,
    or sampled from the masked softmax (``deterministic=False``, seeded)."""

    name = "mlp"

    def __init__(
        self,
        weights: list[tuple[np.ndarray, np.ndarray]],
        activation: str = "tanh",
        deterministic: bool = True,
        seed: int | None = None,
    ) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation {activation!r} unknown; known: {', '.join(ACTIVATIONS)}")
        for (w, _b), (w2, _) in itertools.pairwise(weights):
            if w.shape[0] != w2.shape[1]:
                raise ValueError(f"layer shapes do not chain: {w.shape} then {w2.shape}")
        for w, b in weights:
            if w.ndim != 2 or b.shape != (w.shape[0],):
                raise ValueError(f"bad layer: weight {w.shape}, bias {b.shape}")
        # stored transposed for ``x @ W``
        self.layers = [(np.ascontiguousarray(w.T, np.float32), b.astype(np.float32)) for w, b in weights]
        self.activation = activation
        self._act = ACTIVATIONS[activation]
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    # ---- shape ----------------------------------------------------------------------------
    @property
    def input_size(self) -> int:
        return self.layers[0][0].shape[0]

    @property
    def output_size(self) -> int:
        return self.layers[-1][0].shape[1]

    def architecture(self) -> dict[str, Any]:
        sizes = [self.input_size] + [w.shape[1] for w, _ in self.layers]
        return {"type": "mlp", "layer_sizes": sizes, "activation": self.activation}

    def tensors(self) -> dict[str, np.ndarray]:
        out = {}
        for i, (wt, b) in enumerate(self.layers):
            out[f"layers.{i}.weight"] = np.ascontiguousarray(wt.T)
            out[f"layers.{i}.bias"] = b
        return out

    @classmethod
    def from_tensors(
        cls, tensors: dict[str, np.ndarray], architecture: dict[str, Any], **kwargs: Any
    ) -> MLPPolicy:
        sizes = list(architecture["layer_sizes"])
        weights = []
        for i in range(len(sizes) - 1):
            w, b = tensors[f"layers.{i}.weight"], tensors[f"layers.{i}.bias"]
            if w.shape != (sizes[i + 1], sizes[i]) or b.shape != (sizes[i + 1],):
                raise ValueError(
                    f"layer {i}: weight {w.shape} / bias {b.shape} do not match the declared "
                    f"layer sizes {sizes}"
                )
            weights.append((w, b))
        extra = set(tensors) - {f"layers.{i}.{p}" for i in range(len(sizes) - 1) for p in ("weight", "bias")}
        if extra:
            raise ValueError(f"unexpected tensors {sorted(extra)}")
        return cls(weights, architecture["activation"], **kwargs)

    @classmethod
    def from_sb3(cls, policy: Any, **kwargs: Any) -> MLPPolicy:
        """Copy the actor of an SB3 (Maskable)ActorCriticPolicy with a flat ``MlpPolicy``."""
        from torch import nn

        linear = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
        acts = {type(m).__name__ for m in policy.mlp_extractor.policy_net if not isinstance(m, nn.Linear)}
        if len(acts) > 1 or (acts and next(iter(acts)) not in TORCH_ACTIVATIONS):
            raise ValueError(f"unsupported activations {acts}; supported: {list(TORCH_ACTIVATIONS)}")
        activation = TORCH_ACTIVATIONS[next(iter(acts))] if acts else "tanh"
        layers = linear + [policy.action_net]
        weights = [
            (m.weight.detach().cpu().numpy().astype(np.float32),
             m.bias.detach().cpu().numpy().astype(np.float32))
            for m in layers
        ]
        return cls(weights, activation, **kwargs)

    def load_sb3_weights(self, policy: Any) -> None:
        """Refresh the weights in place from an SB3 policy of the same architecture."""
        fresh = MLPPolicy.from_sb3(policy)
        if [w.shape for w, _ in fresh.layers] != [w.shape for w, _ in self.layers]:
            raise ValueError("architecture changed")
        self.layers = fresh.layers

    # ---- acting ---------------------------------------------------------------------------
    def logits(self, observations: np.ndarray) -> np.ndarray:
        x = np.asarray(observations, np.float32)
        last = len(self.layers) - 1
        for i, (wt, b) in enumerate(self.layers):
            x = x @ wt
            x += b
            if i < last:
                x = self._act(x)
        return x

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return masked_choice(self.logits(observations), action_masks, self.deterministic, self.rng)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None], action_mask[None])[0])

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The network's probability of each action at one observation: the softmax of its
        logits over the legal actions (zero elsewhere), as a sampling policy draws them."""
        logits = self.logits(observation[None])[0].astype(np.float64)
        legal = np.asarray(action_mask, bool)
        out = np.zeros(logits.shape, np.float64)
        if legal.any():
            shifted = np.exp(logits[legal] - logits[legal].max())
            out[legal] = shifted / shifted.sum()
        return out
