"""Cloning a teacher into an action-scoring network (``policies/scoring.py``) with torch.

``ScoringNet`` is the torch twin of ``ActionScoringPolicy`` (same tensor names, same arithmetic);
``clone_action_scorer`` fits it to ``Demonstrations`` with the loss of ``behaviour_clone``:
cross-entropy on the teacher's actions over the legal moves, or, when the demonstrations carry the
teacher's tied best moves (``targets``), cross-entropy to the uniform distribution over them;
"agreement" counts the clone's argmax among the teacher's tied best. Runs on one thread and is
deterministic for a seed. The result is exported to the numpy policy, which saves with
``save_policy`` and plays without torch.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import nn

from cahoots_envs.policies.envinfo import env_info
from cahoots_envs.policies.scoring import ActionScoringPolicy, computed_features, segment_offsets

if TYPE_CHECKING:  # imitation imports this module to clone an action scorer
    from cahoots_envs.training.imitation import Demonstrations

TORCH_ACTIVATIONS: dict[str, Callable[[], nn.Module]] = {"relu": nn.ReLU, "tanh": nn.Tanh}


class ScoringNet(nn.Module):
    """``score_a = head([trunk(obs), E[a], obs[offsets + a], computed[a]])`` for every action
    ``a``, plus ``direct(trunk(obs))[a]`` (a flat per-action output layer) with ``direct=True``;
    ``computed`` (``computed_size`` features per action, computed from the observation by the
    numpy policy's feature set) is passed to ``forward``."""

    feature_index: torch.Tensor  # (segments * actions,): where each action's features lie

    def __init__(self, observation_size: int, num_actions: int, offsets: Sequence[int],
                 trunk_sizes: Sequence[int] = (256, 128), embedding_size: int = 32,
                 head_sizes: Sequence[int] = (128,), activation: str = "relu",
                 direct: bool = False, computed_size: int = 0) -> None:
        super().__init__()
        if activation not in TORCH_ACTIVATIONS:
            raise ValueError(f"activation {activation!r} unknown; known: "
                             f"{', '.join(TORCH_ACTIVATIONS)}")
        self.activation = activation
        self.num_actions = num_actions
        sizes = [observation_size, *trunk_sizes]
        self.trunk = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(sizes))
        self.embedding = nn.Embedding(num_actions, embedding_size)
        head = [sizes[-1] + embedding_size + len(offsets) + computed_size, *head_sizes, 1]
        self.computed_size = computed_size
        self.head = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(head))
        self.act = TORCH_ACTIVATIONS[activation]()
        self.direct = nn.Linear(sizes[-1], num_actions) if direct else None
        index = torch.as_tensor(np.asarray(offsets, np.int64)[:, None] + np.arange(num_actions))
        self.register_buffer("feature_index", index.reshape(-1), persistent=False)
        self.num_features = len(offsets)

    def forward(self, obs: torch.Tensor, computed: torch.Tensor | None = None) -> torch.Tensor:
        """Scores of every action, shape (batch, num_actions); ``computed``: (batch, actions,
        computed_size), required when ``computed_size`` > 0."""
        if (computed is None) != (self.computed_size == 0):
            raise ValueError(f"this network reads {self.computed_size} computed features per "
                             f"action; pass them (and only then)")
        h = obs
        for layer in self.trunk:
            h = self.act(layer(h))
        n, a = obs.shape[0], self.num_actions
        feats = obs[:, self.feature_index].reshape(n, self.num_features, a).transpose(1, 2)
        x = torch.cat([h[:, None, :].expand(n, a, h.shape[1]),
                       self.embedding.weight[None].expand(n, a, -1), feats,
                       *(() if computed is None else (computed,))], dim=-1)
        last = len(self.head) - 1
        for i, layer in enumerate(self.head):
            x = layer(x)
            if i < last:
                x = self.act(x)
        scores = x[..., 0]
        if self.direct is not None:
            scores = scores + self.direct(h)
        return scores


def export_policy(net: ScoringNet, action_segments: Sequence[str], offsets: Sequence[int],
                  computed: Mapping[str, Any] | None = None, **kwargs: Any) -> ActionScoringPolicy:
    """The numpy ``ActionScoringPolicy`` with ``net``'s weights (``kwargs``: deterministic, seed)."""
    def layers(mods: nn.ModuleList) -> list[tuple[np.ndarray, np.ndarray]]:
        return [(m.weight.detach().cpu().numpy().astype(np.float32),
                 m.bias.detach().cpu().numpy().astype(np.float32))
                for m in mods if isinstance(m, nn.Linear)]

    return ActionScoringPolicy(layers(net.trunk),
                               net.embedding.weight.detach().cpu().numpy().astype(np.float32),
                               layers(net.head), action_segments, offsets, net.activation,
                               direct=None if net.direct is None else layers(
                                   nn.ModuleList([net.direct]))[0], computed=computed, **kwargs)


def features_in_chunks(function: Callable[[np.ndarray, int], np.ndarray],
                       observations: np.ndarray, num_actions: int,
                       chunk: int = 4096) -> np.ndarray:
    """A computed feature set over many observations, ``chunk`` rows at a time (the per-row
    intermediates stay small): float32 (N, num_actions, features)."""
    parts = [function(observations[i : i + chunk], num_actions)
             for i in range(0, max(len(observations), 1), chunk)]
    return np.concatenate(parts).astype(np.float32, copy=False)


def soft_target_loss(logits: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor,
                     targets: torch.Tensor | None) -> torch.Tensor:
    """Mean cross-entropy over the legal moves: to the teacher's action, or to the uniform
    distribution over its tied best moves (``targets``), as ``behaviour_clone`` computes it."""
    log_p = torch.log_softmax(logits.masked_fill(~masks, -1e9), dim=-1)
    if targets is None:
        return -log_p.gather(1, actions[:, None]).mean()
    weight = targets / targets.sum(dim=-1, keepdim=True)
    return -(torch.where(targets, log_p, torch.zeros_like(log_p)) * weight).sum(-1).mean()


def agreement(logits: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor,
              targets: torch.Tensor | None) -> float:
    """How many rows' masked argmax is the teacher's action (or one of its tied best moves)."""
    best = logits.masked_fill(~masks, -torch.inf).argmax(-1)
    if targets is None:
        return float((best == actions).sum())
    return float(targets.gather(1, best[:, None]).sum())


def clone_action_scorer(
    demos: Demonstrations,
    env_id: str,
    options: Mapping[str, Any] | None,
    action_segments: Sequence[str],
    *,
    trunk_sizes: Sequence[int] = (256, 128),
    embedding_size: int = 32,
    head_sizes: Sequence[int] = (128,),
    activation: str = "relu",
    direct: bool = True,
    computed: str | None = None,
    epochs: int = 5,
    batch_size: int = 512,
    lr: float = 1e-3,
    seed: int = 0,
    log: Callable[[str], Any] | None = print,
) -> tuple[ActionScoringPolicy, dict[str, Any]]:
    """Fit an action-scoring network to ``demos`` of ``env_id`` (with ``options``), reading the
    per-action features from the layout segments ``action_segments`` (each one entry per action).
    ``direct`` adds the flat per-action output layer to the head's scores (on cahoots_coop it
    cloned the heuristic better than the head alone: 61% against 57% agreement on unseen games).
    ``computed`` names a feature set the game offers (``extras["play_features"]``) whose
    per-action features the network reads too (computed per batch as it trains: a few
    microseconds a row, where holding them for every demonstration took gigabytes).
    Returns the numpy policy and stats: per epoch the mean loss, the agreement with the teacher
    and the seconds it took (``epochs``), and the last epoch's figures."""
    if epochs < 1 or batch_size < 1 or lr <= 0:
        raise ValueError(f"epochs {epochs}, batch_size {batch_size}, lr {lr}: all must be positive")
    info = env_info(env_id, options)
    offsets = segment_offsets(info.layout, action_segments, info.num_actions)
    if demos.observations.shape[1:] != (info.layout.size,) or \
            demos.masks.shape[1:] != (info.num_actions,):
        raise ValueError(f"demonstrations hold {demos.observations.shape[1:]} observations and "
                         f"{demos.masks.shape[1:]} masks; {info.env_id} has "
                         f"({info.layout.size},) and ({info.num_actions},)")
    if len(demos) == 0:
        raise ValueError("no demonstrations to clone")
    record: dict[str, Any] | None = None
    function = None
    if computed is not None:
        record = {"game": info.spec.name, "name": computed, "size": 0,
                  "num_players": int(info.options["num_players"])}
        try:
            function = computed_features(record)
        except ValueError as exc:
            raise ValueError(str(exc)) from None
        record["size"] = int(function(demos.observations[:1], info.num_actions).shape[-1])
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(seed)
        gen = torch.Generator().manual_seed(seed)
        net = ScoringNet(info.layout.size, info.num_actions, offsets, trunk_sizes,
                         embedding_size, head_sizes, activation, direct,
                         0 if record is None else int(record["size"]))
        observations = np.asarray(demos.observations, np.float32)
        obs = torch.as_tensor(observations)
        masks = torch.as_tensor(np.asarray(demos.masks, np.bool_))
        actions = torch.as_tensor(np.asarray(demos.actions, np.int64))
        targets = None if demos.targets is None else torch.as_tensor(
            np.asarray(demos.targets, np.bool_))
        optimizer = torch.optim.Adam(net.parameters(), lr=lr)
        n = len(demos)
        history: list[dict[str, float]] = []
        for epoch in range(epochs):
            started = time.perf_counter()
            order = torch.randperm(n, generator=gen)
            total = correct = 0.0
            for start in range(0, n, batch_size):
                idx = order[start:start + batch_size]
                tied = None if targets is None else targets[idx]
                # the computed features of this batch only (a row's features do not depend on
                # the others'): memory stays that of the observations, not 20x more
                feats = None if function is None else torch.from_numpy(
                    function(observations[idx.numpy()], info.num_actions))
                logits = net(obs[idx], feats)
                loss = soft_target_loss(logits, masks[idx], actions[idx], tied)
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                optimizer.step()
                total += float(loss.detach()) * len(idx)
                correct += agreement(logits.detach(), masks[idx], actions[idx], tied)
            row = {"epoch": epoch + 1, "loss": total / n, "agreement": correct / n,
                   "seconds": time.perf_counter() - started}
            history.append(row)
            if log is not None:
                log(f"action scoring epoch {epoch + 1}/{epochs}: loss {row['loss']:.4f}, "
                    f"agreement {row['agreement']:.4f}, {row['seconds']:.1f}s")
    finally:
        torch.set_num_threads(threads)
    policy = export_policy(net, action_segments, offsets, record)
    stats: dict[str, Any] = {"loss": history[-1]["loss"], "agreement": history[-1]["agreement"],
                             "decisions": n, "epochs": history}
    return policy, stats
