"""The Policy protocol and the bots' base class: a policy sees only its own observation and
action mask. In ``core/`` so that each game's bot lives in its own folder without importing up."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Policy(Protocol):
    """``act`` picks one legal action; ``act_batch`` picks one per row of a batch."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray: ...


class BasePolicy:
    """Convenience base: subclasses implement ``act`` (or ``act_batch``) and get the other.
    A policy that can also estimate the game's outcome for the seat of an observation (a network
    with a value head) has ``has_values`` true and answers ``values(observations)``."""

    name = "policy"

    @property
    def has_values(self) -> bool:
        return False

    def values(self, observations: np.ndarray) -> np.ndarray:
        """The expected outcome for the seat of each observation; this policy has none."""
        raise ValueError(f"policy {self.name} has no value head: give search settings that "
                         "need values a network saved with one (docs/search.md)")

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None], action_mask[None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return np.array(
            [self.act(o, m) for o, m in zip(observations, action_masks)], dtype=np.int64
        )


def optional_module(owner: type, attr: str, load: Callable[[], ModuleType]) -> ModuleType | None:
    """A module with an optional dependency (a bot's numba kernels), imported by ``load`` on
    first use and cached in ``owner.attr``: the module, or False once the import failed (the
    dependency is missing); None is returned then, and the caller takes its plain path."""
    cached = getattr(owner, attr)
    if cached is None:
        cached = _import_or_false(load)
        setattr(owner, attr, cached)
    return cached if isinstance(cached, ModuleType) else None


def _import_or_false(load: Callable[[], ModuleType]) -> ModuleType | bool:
    """``load()``'s module, or False where its optional dependency is missing (ImportError):
    what ``optional_module`` and ``optional_kernel`` cache."""
    try:
        return load()
    except ImportError:
        return False


# a game's kernel loader -> the module it imported, or False once the import failed
KERNELS: dict[Callable[[], ModuleType], ModuleType | bool] = {}


def optional_kernel(load: Callable[[], ModuleType]) -> ModuleType | None:
    """The module ``load`` imports (a game's numba twin of some Python code: its features, its
    sampler's inner loops; the game imports it, so no shared module names a game), imported on
    first use and cached in ``KERNELS``; None once its import failed (numba is missing), and the
    caller takes its Python path. A test sets ``KERNELS[load] = False`` to force that path."""
    cached = KERNELS.get(load)
    if cached is None:
        cached = KERNELS[load] = _import_or_false(load)
    return cached if isinstance(cached, ModuleType) else None
