"""An action-scoring network evaluated with numpy: one score per action, softmax over the legal ones.

Where a flat MLP maps the observation to one logit per action id with nothing shared between
them, this network scores each action from the observation *and* that action's own features, with
weights shared by every action:

* a trunk ``h = act(... act(W_1 obs + b_1))`` (one vector per observation);
* per action ``a``: ``x_a = [h, E[a], f_a]``, where ``E`` is a learned embedding per action id and
  ``f_a`` the action's entry in each of the ``action_segments`` (observation segments laid out one
  entry per action id, e.g. "may this card go on that pile", "how many goals would it complete");
* ``score_a = head(x_a)``, an MLP ending in one output; with ``direct`` weights, plus
  ``U[a] . h + c[a]``, the flat MLP's per-action output layer (the head then learns what the flat
  output cannot share across actions, and the network can do all that a flat MLP does).

Per-action features may also be **computed** from the observation inside the policy
(``computed``): a game offers named feature sets in its spec's ``extras["play_features"]``
(``{name: function(observations (N, size), num_players, num_actions) -> float32 (N, actions,
F)}``, e.g. the cooperative game's ``lookahead``: what each play would leave on the table). The
architecture records ``{"game", "name", "size", "num_players"}``, the set is looked up by name when
the policy loads (a name the game does not offer is one clear error), and ``f_a`` is the segment
entries followed by the computed ones. The observation, and so the env's version, stay as they
are.

Which segments hold per-action features is the caller's choice (``action_segments``: names in the
env's layout, each of size ``num_actions``); their offsets are taken from the layout and recorded in
the architecture, so a policy reads the same entries wherever it is loaded. Inference is float32;
the first head layer is split into its ``h``, ``E`` and ``f`` blocks, so the trunk and the
embedding are computed once per observation and once per action, not once per pair. Acting
(``act_batch``) runs the head on the legal (observation, action) pairs alone (``logits(obs,
masks)``): a handful of the hundred-odd actions in these games, so most of the head's work is
skipped; their scores equal the full computation's to float32 rounding (tested), so a move
only changes where two legal scores tie to the last bits.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from cahoots_envs.core.layout import Layout
from cahoots_envs.core.policy import BasePolicy
from cahoots_envs.policies.network import (
    ACTIVATIONS,
    ValueOutput,
    masked_choice,
    read_layers,
    split_value,
)

ARCHITECTURE_TYPE = "action_scoring"
Layer = tuple[np.ndarray, np.ndarray]  # (weight (out, in), bias (out,)), as torch stores them


def segment_offsets(layout: Layout, action_segments: Sequence[str], num_actions: int) -> list[int]:
    """Where each of ``action_segments`` starts in ``layout``; ``ValueError`` (one line) for a
    segment the layout lacks or one that does not hold one entry per action."""
    names = [s.name for s in layout.segments]
    offsets = []
    for name in action_segments:
        if name not in layout.offsets:
            raise ValueError(f"action segment {name!r} is not in the {layout.env_id} layout; "
                             f"its segments: {', '.join(names)}")
        size = layout.segment(name).size
        if size != num_actions:
            raise ValueError(f"action segment {name!r} has {size} entries, not one per action "
                             f"({num_actions})")
        offsets.append(layout.offsets[name])
    return offsets


COMPUTED_KEYS = ("game", "name", "size", "num_players")


def computed_features(computed: Mapping[str, Any]) -> Callable[[np.ndarray, int], np.ndarray]:
    """The feature function a ``computed`` record names, bound to its player count:
    ``observations (N, size) -> float32 (N, num_actions, size)`` (the caller passes the action
    count); ``ValueError`` (one line) for a record that is malformed or names a set its game
    does not offer."""
    from cahoots_envs.registry import game_spec

    missing = [k for k in COMPUTED_KEYS if k not in computed]
    if missing:
        raise ValueError(f"computed features record lacks {', '.join(missing)} (it holds "
                         f"{', '.join(COMPUTED_KEYS)})")
    spec = game_spec(str(computed["game"]))
    sets = spec.extras.get("play_features", {})
    name = str(computed["name"])
    if name not in sets:
        offered = ", ".join(sets) or "none"
        raise ValueError(f"computed features {name!r} are not offered by {spec.name} (offered: "
                         f"{offered})")
    function, players = sets[name], int(computed["num_players"])

    def features(observations: np.ndarray, num_actions: int) -> np.ndarray:
        return np.asarray(function(observations, players, num_actions), np.float32)

    return features


def _check_chain(layers: Sequence[Layer], what: str) -> None:
    for i, (w, b) in enumerate(layers):
        if w.ndim != 2 or b.shape != (w.shape[0],):
            raise ValueError(f"{what} layer {i}: weight {w.shape}, bias {b.shape} do not fit")
    for i, ((w, _), (w2, _)) in enumerate(itertools.pairwise(layers)):
        if w.shape[0] != w2.shape[1]:
            raise ValueError(f"{what} layers {i} and {i + 1} do not chain: {w.shape} then {w2.shape}")


class ActionScoringPolicy(ValueOutput, BasePolicy):
    """Scores every action from the observation and the action's own features; illegal actions
    masked out; argmax by default, or sampled from the masked softmax (``deterministic=False``,
    seeded Gumbel-max)."""

    name = "action_scoring"

    def __init__(
        self,
        trunk: Sequence[Layer],
        embedding: np.ndarray,
        head: Sequence[Layer],
        action_segments: Sequence[str],
        offsets: Sequence[int],
        activation: str = "relu",
        deterministic: bool = True,
        seed: int | None = None,
        direct: Layer | None = None,
        computed: Mapping[str, Any] | None = None,
    ) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation {activation!r} unknown; known: {', '.join(ACTIVATIONS)}")
        if not trunk or not head:
            raise ValueError("an action-scoring network needs at least one trunk and one head layer")
        _check_chain(trunk, "trunk")
        _check_chain(head, "head")
        if embedding.ndim != 2:
            raise ValueError(f"embedding must be (actions, size), not {embedding.shape}")
        if len(action_segments) != len(offsets):
            raise ValueError(f"{len(action_segments)} action segments but {len(offsets)} offsets")
        num_actions, emb = embedding.shape
        hidden = trunk[-1][0].shape[0]
        self.computed = None if computed is None else dict(computed)
        self._computed_fn = None if computed is None else computed_features(computed)
        extra = 0 if computed is None else int(computed["size"])
        want = hidden + emb + len(action_segments) + extra
        if head[0][0].shape[1] != want:
            raise ValueError(f"head input is {head[0][0].shape[1]} wide; trunk {hidden} + embedding "
                             f"{emb} + {len(action_segments)} action features + {extra} computed "
                             f"= {want}")
        if head[-1][0].shape[0] != 1:
            raise ValueError(f"the head must end in one score, not {head[-1][0].shape[0]}")
        if direct is not None and (direct[0].shape != (num_actions, hidden)
                                   or direct[1].shape != (num_actions,)):
            raise ValueError(f"direct weight {direct[0].shape} / bias {direct[1].shape}: want "
                             f"({num_actions}, {hidden}) / ({num_actions},)")
        obs_size = trunk[0][0].shape[1]
        for name, at in zip(action_segments, offsets):
            if not 0 <= int(at) <= obs_size - num_actions:
                raise ValueError(f"action segment {name!r} at {at}: its {num_actions} entries do "
                                 f"not lie inside the {obs_size}-entry observation")
        f32 = np.float32
        self.trunk = [(np.ascontiguousarray(w.T, f32), b.astype(f32)) for w, b in trunk]
        self.embedding = np.ascontiguousarray(embedding, f32)
        self.head = [(np.ascontiguousarray(w.T, f32), b.astype(f32)) for w, b in head]
        self.direct = None if direct is None else (
            np.ascontiguousarray(direct[0].T, f32), direct[1].astype(f32))
        self.action_segments = [str(s) for s in action_segments]
        self.offsets = [int(o) for o in offsets]
        self.activation = activation
        self._act = ACTIVATIONS[activation]
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        # the first head layer, split by what it reads: [h | E[a] | f_a]
        w1 = self.head[0][0]
        self._w_h = np.ascontiguousarray(w1[:hidden])
        segments = len(action_segments)
        self._w_f = np.ascontiguousarray(w1[hidden + emb : hidden + emb + segments])
        self._w_c = np.ascontiguousarray(w1[hidden + emb + segments :])  # computed features
        self._action_bias = self.embedding @ w1[hidden:hidden + emb] + self.head[0][1]  # (A, H1)
        # (S, A); int64 also with no segments (an empty float index cannot index)
        self._feature_index = (np.asarray(self.offsets, np.int64)[:, None]
                               + np.arange(num_actions)[None, :])

    # ---- shape ----------------------------------------------------------------------------
    @property
    def input_size(self) -> int:
        return int(self.trunk[0][0].shape[0])

    @property
    def output_size(self) -> int:
        return int(self.embedding.shape[0])

    def architecture(self) -> dict[str, Any]:
        return {
            "type": ARCHITECTURE_TYPE,
            "observation_size": self.input_size,
            "num_actions": self.output_size,
            "trunk_sizes": [self.input_size] + [int(w.shape[1]) for w, _ in self.trunk],
            "embedding_size": int(self.embedding.shape[1]),
            "head_sizes": [int(self.head[0][0].shape[0])] + [int(w.shape[1]) for w, _ in self.head],
            "activation": self.activation,
            "direct": self.direct is not None,
            "action_segments": list(self.action_segments),
            "action_segment_offsets": list(self.offsets),
            **({} if self.computed is None else {"computed_features": dict(self.computed)}),
            **self._value_architecture(),
        }

    def tensors(self) -> dict[str, np.ndarray]:
        out = {"embedding.weight": self.embedding}
        for part, layers in (("trunk", self.trunk), ("head", self.head)):
            for i, (wt, b) in enumerate(layers):
                out[f"{part}.{i}.weight"] = np.ascontiguousarray(wt.T)
                out[f"{part}.{i}.bias"] = b
        if self.direct is not None:
            out["direct.weight"] = np.ascontiguousarray(self.direct[0].T)
            out["direct.bias"] = self.direct[1]
        return {**out, **self._value_tensors()}

    def check_layout(self, layout: Layout, num_actions: int) -> None:
        """``ValueError`` unless the action segments lie where ``layout`` puts them."""
        if layout.size != self.input_size or num_actions != self.output_size:
            raise ValueError(f"network maps {self.input_size} -> {self.output_size}, but the env "
                             f"has {layout.size} observation entries and {num_actions} actions")
        if self.computed is not None:
            from cahoots_envs.registry import game_spec

            game = game_spec(str(self.computed["game"]))
            if game.env_id != layout.env_id:
                raise ValueError(f"computed features of {game.env_id}, but the env is "
                                 f"{layout.env_id}")
        offsets = segment_offsets(layout, self.action_segments, num_actions)
        if offsets != self.offsets:
            raise ValueError(f"action segments {self.action_segments} at {self.offsets}, but the "
                             f"layout puts them at {offsets}")

    @classmethod
    def from_tensors(
        cls, tensors: dict[str, np.ndarray], architecture: dict[str, Any], **kwargs: Any
    ) -> ActionScoringPolicy:
        """Build from ``tensors()`` and ``architecture()``; ``ValueError`` (one line) when they
        disagree."""
        if architecture.get("type") != ARCHITECTURE_TYPE:
            raise ValueError(f"architecture type {architecture.get('type')!r} is not "
                             f"{ARCHITECTURE_TYPE!r}")
        missing = [k for k in ("trunk_sizes", "embedding_size", "head_sizes", "activation",
                               "action_segments", "action_segment_offsets", "num_actions")
                   if k not in architecture]
        if missing:
            raise ValueError(f"architecture lacks {', '.join(missing)}")
        tensors, value_head = split_value(tensors, architecture)
        trunk_sizes = [int(s) for s in architecture["trunk_sizes"]]
        head_sizes = [int(s) for s in architecture["head_sizes"]]
        segments = list(architecture["action_segments"])
        emb_shape = (int(architecture["num_actions"]), int(architecture["embedding_size"]))
        trunk = read_layers(tensors, "trunk", trunk_sizes)
        head = read_layers(tensors, "head", head_sizes)
        embedding = tensors.get("embedding.weight")
        if embedding is None or embedding.shape != emb_shape:
            got = None if embedding is None else embedding.shape
            raise ValueError(f"embedding.weight is {got}, the architecture declares {emb_shape}")
        direct = None
        if architecture.get("direct", False):
            w, b = tensors.get("direct.weight"), tensors.get("direct.bias")
            if w is None or b is None:
                raise ValueError("tensor direct.weight or .bias missing")
            direct = (w, b)
        known = {"embedding.weight"} | ({"direct.weight", "direct.bias"} if direct else set()) | {
            f"{part}.{i}.{p}" for part, sizes in (("trunk", trunk_sizes), ("head", head_sizes))
            for i in range(len(sizes) - 1) for p in ("weight", "bias")}
        extra = set(tensors) - known
        if extra:
            raise ValueError(f"unexpected tensors {sorted(extra)}")
        computed = architecture.get("computed_features")
        if computed is not None and not isinstance(computed, Mapping):
            raise ValueError(f"computed_features must be a record of {', '.join(COMPUTED_KEYS)}, "
                             f"got {computed!r}")
        policy = cls(trunk, embedding, head, segments, architecture["action_segment_offsets"],
                     architecture["activation"], direct=direct, computed=computed, **kwargs)
        return policy.with_value_head(value_head)  # type: ignore[no-any-return]

    # ---- acting ---------------------------------------------------------------------------
    def features(self, observations: np.ndarray) -> np.ndarray:
        """The trunk's output: what a value head with ``input="features"`` reads."""
        h = np.asarray(observations, np.float32)
        for wt, b in self.trunk:
            h = self._act(h @ wt + b)
        return h

    def logits(self, observations: np.ndarray, action_masks: np.ndarray | None = None) -> np.ndarray:
        """One score per action, shape (batch, num_actions): every action's, or with
        ``action_masks`` only the legal ones' (the head runs on the legal (row, action) pairs
        alone, a few of a hundred actions in these games; illegal entries are ``-inf``). The
        legal entries equal the full computation's to float32 rounding."""
        obs = np.asarray(observations, np.float32)
        h = obs
        for wt, b in self.trunk:
            h = self._act(h @ wt + b)
        if action_masks is not None:
            return self._legal_logits(obs, h, np.asarray(action_masks) > 0)
        feats = obs[:, self._feature_index]  # (N, S, A)
        x = (h @ self._w_h)[:, None, :] + self._action_bias[None]  # (N, A, H1)
        x += np.einsum("nsa,sk->nak", feats, self._w_f, optimize=True)
        if self._computed_fn is not None:
            x += self._computed_fn(obs, self.output_size) @ self._w_c
        scores = np.ascontiguousarray(self._head(x)[..., 0])
        if self.direct is not None:
            scores += h @ self.direct[0] + self.direct[1]
        return scores

    def _head(self, x: np.ndarray) -> np.ndarray:
        """The head past its first layer's sum ``x``: activation, then the other layers."""
        for i, (wt, b) in enumerate(self.head):
            if i:
                x = x @ wt + b
            if i < len(self.head) - 1:
                x = self._act(x)
        return x

    def _legal_logits(self, obs: np.ndarray, h: np.ndarray, legal: np.ndarray) -> np.ndarray:
        if legal.shape != (len(obs), self.output_size):
            raise ValueError(f"action masks of shape {legal.shape} for {len(obs)} observations "
                             f"and {self.output_size} actions")
        rows, acts = np.nonzero(legal)
        x = (h @ self._w_h)[rows] + self._action_bias[acts]  # (P, H1)
        if self.offsets:
            x += obs[rows[:, None], self._feature_index[:, acts].T] @ self._w_f
        if self._computed_fn is not None:
            x += self._computed_fn(obs, self.output_size)[rows, acts] @ self._w_c
        scores = np.full(legal.shape, -np.inf, np.float32)
        pair = self._head(x)[:, 0]
        if self.direct is not None:
            pair = pair + np.einsum("pk,kp->p", h[rows], self.direct[0][:, acts]) + self.direct[1][acts]
        scores[rows, acts] = pair
        return scores

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return masked_choice(self.logits(observations, action_masks), action_masks,
                             self.deterministic, self.rng)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None], action_mask[None])[0])
