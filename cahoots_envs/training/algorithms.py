"""Training algorithms, chosen by a config's ``algorithm`` key: one module each, one seam.

An algorithm is a function ``train(config, run_dir, resume, evaluator) -> run.Trained``: it
trains (writing what it likes into ``run_dir``; ``evaluator.evaluate`` / ``record`` give the
curve's checks) and hands back the trained policy; ``cahoots_envs.training.run`` does the rest
for every algorithm (run folder, final check beside the clone, saved policy, curve, next steps).
Its settings are a section of the config named after it, validated into the dataclass it
registers (``section``), found in ``config.sections[name]``.

    from cahoots_envs.training.algorithms import register_algorithm
    register_algorithm("my_algo", "my_package.my_algo:train", section=MyAlgoConfig, tag="myalgo")

``maskable_ppo`` (the default, so a config without the key means what it always meant) keeps
its settings in the config's own ``ppo``, ``pool`` and ``pretrain`` sections.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cahoots_envs.training.config import SECTIONS, ConfigError, register_section
from cahoots_envs.training.every_seat_ppo import EverySeatConfig
from cahoots_envs.training.expert_iteration import ExpertIterationConfig


@dataclass(frozen=True)
class Algorithm:
    name: str
    entry: str | Callable[..., Any]  # "module:function", imported when a run starts, or the function
    section: type | None = None  # the dataclass of its config section (None: no section)
    tag: str = ""  # its part of a run folder's name

    def load(self) -> Callable[..., Any]:
        if callable(self.entry):
            return self.entry
        module, _, function = self.entry.partition(":")
        return getattr(importlib.import_module(module), function)  # type: ignore[no-any-return]


_ALGORITHMS: dict[str, Algorithm] = {}


def register_algorithm(name: str, entry: str | Callable[..., Any], *, section: type | None = None,
                       tag: str | None = None, replace: bool = False) -> Algorithm:
    """Make ``algorithm: <name>`` in a config run ``entry``; its settings come from the config
    section ``<name>:`` (validated into ``section``)."""
    if not name.isidentifier():
        raise ValueError(f"an algorithm's name is an identifier (it names a config section), "
                         f"got {name!r}")
    if name in _ALGORITHMS and not replace:
        raise ValueError(f"algorithm {name!r} is registered already; pass replace=True")
    if section is not None:
        register_section(name, section)  # refuses a name that is a config key already
    found = Algorithm(name, entry, section, tag or name.replace("_", ""))
    _ALGORITHMS[name] = found
    return found


def unregister_algorithm(name: str) -> None:
    if name == "maskable_ppo":
        raise ValueError("maskable_ppo is the default algorithm and stays")
    _ALGORITHMS.pop(name, None)
    SECTIONS.pop(name, None)


def algorithm(name: str) -> Algorithm:
    """The registered algorithm ``name``; a ``ConfigError`` naming the registered ones else."""
    if name not in _ALGORITHMS:
        raise ConfigError(f"algorithm: {name!r} is not a registered algorithm; registered: "
                          f"{', '.join(sorted(_ALGORITHMS))}")
    return _ALGORITHMS[name]


def algorithms() -> dict[str, Algorithm]:
    return dict(_ALGORITHMS)


register_algorithm("maskable_ppo", "cahoots_envs.training.maskable_ppo:train", tag="maskableppo")
register_algorithm("every_seat_ppo", "cahoots_envs.training.every_seat_ppo:train",
                   section=EverySeatConfig, tag="everyseatppo")
register_algorithm("expert_iteration", "cahoots_envs.training.expert_iteration:train",
                   section=ExpertIterationConfig, tag="expertiteration")
