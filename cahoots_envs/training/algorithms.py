"""Training algorithms, chosen by a config's ``algorithm`` key: one module each, one seam.

An algorithm is a function ``train(config, run_dir, resume, evaluator) -> run.Trained``: it
trains (``evaluator`` gives the curve's checks) and hands back the trained policy;
``cahoots_envs.training.run`` does the rest for every algorithm. Its settings are the config
section named after it, validated into the dataclass it registers, in ``config.sections[name]``
(``ppo`` and ``pool`` in it load as the config's own, ``config.ALGORITHM_KEYS``).

    register_algorithm("my_algo", "my_package.my_algo:train",
                       section="my_package.my_algo:MyAlgoConfig", tag="myalgo")

``"module:name"`` strings are imported only when a run or a config names the algorithm, so this
module imports none. Another package publishes one in the entry-point group
``cahoots_envs.algorithms``: the entry's name is the algorithm's, its object an ``Algorithm`` (or
the train function). The built-in ones import the toolkit below them (``networks``, ``updates``,
``imitation``, ``pool``, ``actors``, the seat envs) and the plumbing, never each other.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from cahoots_envs.training.config import SECTIONS, ConfigError, register_section

ENTRY_POINT_GROUP = "cahoots_envs.algorithms"


def _named(reference: str | Any) -> Any:
    """The object a ``"module:name"`` string names (imported now); anything else as it is."""
    if not isinstance(reference, str):
        return reference
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Algorithm:
    name: str
    entry: str | Callable[..., Any]  # "module:function", imported when a run starts, or the function
    # the dataclass of its config section, or "module:Class" (imported when a config names the
    # section); None: no section
    section: type | str | None = None
    tag: str = ""  # its part of a run folder's name

    def load(self) -> Callable[..., Any]:
        return _named(self.entry)  # type: ignore[no-any-return]


_ALGORITHMS: dict[str, Algorithm] = {}


def register_algorithm(name: str, entry: str | Callable[..., Any], *,
                       section: type | str | None = None, tag: str | None = None,
                       replace: bool = False) -> Algorithm:
    """Make ``algorithm: <name>`` in a config run ``entry``; its settings come from the config
    section ``<name>:`` (validated into ``section``)."""
    if not name.isidentifier():
        raise ValueError(f"an algorithm's name is an identifier (it names a config section), "
                         f"got {name!r}")
    if name in _ALGORITHMS and not replace:
        raise ValueError(f"algorithm {name!r} is registered already; pass replace=True")
    if section is not None:
        # refuses a name that is a config key already
        register_section(name, section if not isinstance(section, str) else
                         lambda: _named(section))
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


def discover_algorithms() -> None:
    """Register every algorithm published under ``ENTRY_POINT_GROUP`` (one that is registered
    already is left as it is); one that cannot load is a warning, not an error."""
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name in _ALGORITHMS:
            continue
        try:
            found = entry.load()
            if isinstance(found, Algorithm):
                register_algorithm(entry.name, found.entry, section=found.section,
                                   tag=found.tag or None)
            elif callable(found):
                register_algorithm(entry.name, found)
            else:
                raise TypeError(f"it is a {type(found).__name__}, not an Algorithm or a function")
        except Exception as e:  # noqa: BLE001 (a broken plugin must not break training)
            warnings.warn(f"cahoots_envs: skipping the algorithm published as {entry.name!r} "
                          f"({entry.value}) in {ENTRY_POINT_GROUP!r}: {type(e).__name__}: {e}",
                          stacklevel=2)


register_algorithm("maskable_ppo", "cahoots_envs.training.maskable_ppo:train", tag="maskableppo")
register_algorithm("every_seat_ppo", "cahoots_envs.training.every_seat_ppo:train",
                   section="cahoots_envs.training.every_seat_ppo:EverySeatConfig",
                   tag="everyseatppo")
register_algorithm("expert_iteration", "cahoots_envs.training.expert_iteration:train",
                   section="cahoots_envs.training.expert_iteration:ExpertIterationConfig",
                   tag="expertiteration")
discover_algorithms()
