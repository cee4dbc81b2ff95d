"""A masked MLP policy evaluated with numpy: the network that saved and zoo policies hold.

It is the actor of an SB3 ``MaskableActorCriticPolicy`` with an ``MlpPolicy`` (flatten extractor,
``mlp_extractor.policy_net``, ``action_net``): ``from_sb3`` copies those weights, and acting here
gives the same actions as ``model.predict(obs, action_masks=mask, deterministic=True)``.
Numpy keeps inference free of torch and fast for batches of a few hundred rows.

A network may also carry a **value head** (``ValueHead``): a small MLP from the network's
features (its last hidden layer; an action-scoring network's trunk) or from the observation to
one number, the expected outcome of the game for the seat whose observation it reads (for the
cooperative game, the team's), on the scale of the env's ``reward_mode='win'`` outcome.
``values(observations)`` gives it; a network without one says so (``has_values`` is False).
Saved, its tensors are ``value.<i>.weight`` / ``value.<i>.bias`` beside the policy's and its
shape is ``architecture["value_head"]``: optional, so files without one load as before. A head
exported from a training run's critic (``ValueHead.from_sb3``) reads the observation and
estimates what the critic learnt, the discounted return of the seat's training rewards; its
``target`` (saved in the architecture) says so, with gamma, ``reward_mode`` and ``reward_scale``.
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


VALUE_PREFIX = "value."


def read_layers(tensors: dict[str, np.ndarray], part: str,
                sizes: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The layers ``<part>.<i>.weight`` / ``.bias`` of ``tensors`` mapping ``sizes[i]`` to
    ``sizes[i + 1]`` entries; ``ValueError`` (one line) for one missing or misshapen."""
    out = []
    for i in range(len(sizes) - 1):
        w, b = tensors.get(f"{part}.{i}.weight"), tensors.get(f"{part}.{i}.bias")
        if w is None or b is None:
            raise ValueError(f"tensor {part}.{i}.weight or .bias missing")
        if w.shape != (sizes[i + 1], sizes[i]) or b.shape != (sizes[i + 1],):
            raise ValueError(f"{part} layer {i}: weight {w.shape} / bias {b.shape} do not "
                             f"match the declared sizes {sizes}")
        out.append((w, b))
    return out
VALUE_INPUTS = ("features", "observation")


def torch_mlp(hidden: Any, last: Any) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """The float32 ``(weight, bias)`` layers of a torch ``Sequential`` of linear layers and one
    kind of activation, then the linear layer ``last``; and that activation's name."""
    from torch import nn  # torch: only where a torch network is copied

    linear = [m for m in hidden if isinstance(m, nn.Linear)]
    acts = {type(m).__name__ for m in hidden if not isinstance(m, nn.Linear)}
    if len(acts) > 1 or (acts and next(iter(acts)) not in TORCH_ACTIVATIONS):
        raise ValueError(f"unsupported activations {acts}; supported: {list(TORCH_ACTIVATIONS)}")
    activation = TORCH_ACTIVATIONS[next(iter(acts))] if acts else "tanh"
    weights = [(m.weight.detach().cpu().numpy().astype(np.float32),
                m.bias.detach().cpu().numpy().astype(np.float32)) for m in [*linear, last]]
    return weights, activation


class ValueHead:
    """``value = W_k(act(... act(W_1 x + b_1)))[0]`` where ``x`` is the network's features
    (``input="features"``) or the observation (``input="observation"``); ``weights`` as torch
    stores them (``(out, in)``, ``(out,)``), the last layer with one output."""

    def __init__(self, weights: list[tuple[np.ndarray, np.ndarray]], activation: str = "tanh",
                 input: str = "features", target: str | None = None) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"value head activation {activation!r} unknown; known: "
                             f"{', '.join(ACTIVATIONS)}")
        if input not in VALUE_INPUTS:
            raise ValueError(f"value head input {input!r} unknown; known: {', '.join(VALUE_INPUTS)}")
        if not weights:
            raise ValueError("a value head needs at least one layer")
        for w, b in weights:
            if w.ndim != 2 or b.shape != (w.shape[0],):
                raise ValueError(f"bad value head layer: weight {w.shape}, bias {b.shape}")
        for (w, _), (w2, _) in itertools.pairwise(weights):
            if w.shape[0] != w2.shape[1]:
                raise ValueError(f"value head layers do not chain: {w.shape} then {w2.shape}")
        if weights[-1][0].shape[0] != 1:
            raise ValueError(f"a value head ends in one output, not {weights[-1][0].shape[0]}")
        self.layers = [(np.ascontiguousarray(w.T, np.float32), b.astype(np.float32))
                       for w, b in weights]
        self.activation = activation
        self._act = ACTIVATIONS[activation]
        self.input = input
        self.target = target  # what the value estimates, in words (saved with the shape)

    @property
    def input_size(self) -> int:
        return int(self.layers[0][0].shape[0])

    def architecture(self) -> dict[str, Any]:
        sizes = [self.input_size] + [int(w.shape[1]) for w, _ in self.layers]
        return {"layer_sizes": sizes, "activation": self.activation, "input": self.input,
                **({} if self.target is None else {"target": self.target})}

    def tensors(self) -> dict[str, np.ndarray]:
        out = {}
        for i, (wt, b) in enumerate(self.layers):
            out[f"{VALUE_PREFIX}{i}.weight"] = np.ascontiguousarray(wt.T)
            out[f"{VALUE_PREFIX}{i}.bias"] = b
        return out

    @classmethod
    def from_tensors(cls, tensors: dict[str, np.ndarray], architecture: Any) -> ValueHead:
        """The head ``architecture`` (``ValueHead.architecture()``) describes, from the
        ``value.`` entries of ``tensors``; ``ValueError`` (one line) when they disagree."""
        if not isinstance(architecture, dict) or "layer_sizes" not in architecture:
            raise ValueError(f"value_head must be a record with layer_sizes, activation and "
                             f"input, got {architecture!r}")
        sizes = [int(x) for x in architecture["layer_sizes"]]
        weights = read_layers(tensors, VALUE_PREFIX[:-1], sizes)
        extra = {k for k in tensors if k.startswith(VALUE_PREFIX)} - {
            f"{VALUE_PREFIX}{i}.{p}" for i in range(len(sizes) - 1) for p in ("weight", "bias")}
        if extra:
            raise ValueError(f"unexpected tensors {sorted(extra)}")
        target = architecture.get("target")
        return cls(weights, str(architecture.get("activation", "tanh")),
                   str(architecture.get("input", "features")),
                   None if target is None else str(target))

    @classmethod
    def from_sb3(cls, policy: Any, target: str | None = None) -> ValueHead:
        """The critic of an SB3 (Maskable)ActorCriticPolicy with a flat ``MlpPolicy``, or of
        ``training.networks.build_network``'s network (an MLP on the observation:
        ``mlp_extractor.value_net`` then one linear output), as a head on the observation."""
        last = policy.value_head if hasattr(policy, "value_head") else policy.value_net
        weights, activation = torch_mlp(policy.mlp_extractor.value_net, last)
        return cls(weights, activation, "observation", target)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        last = len(self.layers) - 1
        for i, (wt, b) in enumerate(self.layers):
            x = x @ wt + b
            if i < last:
                x = self._act(x)
        return np.asarray(x[:, 0], np.float32)


class ValueOutput:
    """What a network with an optional value head shares: ``values``, ``has_values``,
    ``with_value_head``, and the head's part of the saved architecture and tensors. A class
    using it defines ``features(observations)`` and ``input_size``."""

    value_head: ValueHead | None = None
    name: str

    @property
    def input_size(self) -> int:
        raise NotImplementedError

    def features(self, observations: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @property
    def has_values(self) -> bool:
        return self.value_head is not None

    def with_value_head(self, head: ValueHead | None) -> Any:
        """Attach ``head`` (None removes it); ``ValueError`` when its input width does not fit
        this network. Returns the network."""
        if head is not None:
            width = self.input_size if head.input == "observation" else \
                int(self.features(np.zeros((1, self.input_size), np.float32)).shape[1])
            if head.input_size != width:
                raise ValueError(f"the value head reads {head.input_size} {head.input} entries; "
                                 f"this network's {head.input} have {width}")
        self.value_head = head
        return self

    def values(self, observations: np.ndarray) -> np.ndarray:
        """The value head's estimate of the game's outcome for the seat of each observation
        (``float32[len(observations)]``); ``ValueError`` for a network without one."""
        head = self.value_head
        if head is None:
            raise ValueError(f"policy {self.name} has no value head: give search settings that "
                             "need values a network saved with one (docs/search.md)")
        x = np.asarray(observations, np.float32)
        if x.ndim == 1:
            x = x[None]
        return head(x if head.input == "observation" else self.features(x))

    def _value_architecture(self) -> dict[str, Any]:
        return {} if self.value_head is None else {"value_head": self.value_head.architecture()}

    def _value_tensors(self) -> dict[str, np.ndarray]:
        return {} if self.value_head is None else self.value_head.tensors()


def split_value(tensors: dict[str, np.ndarray], architecture: dict[str, Any],
                ) -> tuple[dict[str, np.ndarray], ValueHead | None]:
    """``tensors`` without the value head's, and the head ``architecture["value_head"]``
    declares (None where it declares none; ``ValueError`` where value tensors come without
    one)."""
    rest = {k: v for k, v in tensors.items() if not k.startswith(VALUE_PREFIX)}
    declared = architecture.get("value_head")
    if declared is None:
        if len(rest) != len(tensors):
            raise ValueError(f"unexpected tensors {sorted(set(tensors) - set(rest))} (value "
                             "tensors without a value_head in the architecture)")
        return rest, None
    return rest, ValueHead.from_tensors(tensors, declared)


class MLPPolicy(ValueOutput, BasePolicy):
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
        return {"type": "mlp", "layer_sizes": sizes, "activation": self.activation,
                **self._value_architecture()}

    def tensors(self) -> dict[str, np.ndarray]:
        out = {}
        for i, (wt, b) in enumerate(self.layers):
            out[f"layers.{i}.weight"] = np.ascontiguousarray(wt.T)
            out[f"layers.{i}.bias"] = b
        return {**out, **self._value_tensors()}

    @classmethod
    def from_tensors(
        cls, tensors: dict[str, np.ndarray], architecture: dict[str, Any], **kwargs: Any
    ) -> MLPPolicy:
        sizes = list(architecture["layer_sizes"])
        tensors, value_head = split_value(tensors, architecture)
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
        policy = cls(weights, architecture["activation"], **kwargs)
        return policy.with_value_head(value_head)  # type: ignore[no-any-return]

    @classmethod
    def from_sb3(cls, policy: Any, **kwargs: Any) -> MLPPolicy:
        """Copy the actor of an SB3 (Maskable)ActorCriticPolicy with a flat ``MlpPolicy``."""
        weights, activation = torch_mlp(policy.mlp_extractor.policy_net, policy.action_net)
        return cls(weights, activation, **kwargs)

    def load_sb3_weights(self, policy: Any) -> None:
        """Refresh the weights in place from an SB3 policy of the same architecture."""
        fresh = MLPPolicy.from_sb3(policy)
        if [w.shape for w, _ in fresh.layers] != [w.shape for w, _ in self.layers]:
            raise ValueError("architecture changed")
        self.layers = fresh.layers

    # ---- acting ---------------------------------------------------------------------------
    def features(self, observations: np.ndarray) -> np.ndarray:
        """The last hidden layer's activations (the observation for a network without hidden
        layers): what a value head with ``input="features"`` reads."""
        x = np.asarray(observations, np.float32)
        for wt, b in self.layers[:-1]:
            x = self._act(x @ wt + b)
        return x

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
