"""Decision-time search: information sets, sampled worlds and the search bot.

>>> import cahoots_envs
>>> from cahoots_envs.search import infoset
>>> env = cahoots_envs.make("cahoots_coop-v1")
>>> env.reset(seed=0)
>>> bot = cahoots_envs.load_policy("search:heuristic", "cahoots_coop-v1", seed=0)
>>> move = bot.act_infoset(infoset(env))

A spec ``search[@knob=value,...][:<blueprint spec>]`` loads a ``SearchPolicy`` through
``load_policy`` (without a blueprint, the game's default search: its world sampler's
``DEFAULT_SEARCH``, else over ``heuristic``): ``search:zoo:<game>``,
``search@worlds=16,gate=2.5:heuristic``. See ``cahoots_envs/search/policy.py`` for the knobs.
``label_positions`` searches many positions together on the batched engine (training labels;
``cahoots_envs/search/label.py``).
"""

from __future__ import annotations

from typing import Any

from cahoots_envs.core.options import parse_value
from cahoots_envs.core.search import World
from cahoots_envs.search.infoset import Infoset, infoset
from cahoots_envs.search.label import Label, SeatedRoller, label_positions, measure_labels
from cahoots_envs.search.policy import GENERIC_DEFAULTS, SearchPolicy, SearchStats, check_knobs

SPEC_PREFIX = "search"


def is_search_spec(spec: Any) -> bool:
    return isinstance(spec, str) and (spec == SPEC_PREFIX or spec.startswith(("search:", "search@")))


def parse_search_spec(spec: str) -> tuple[dict[str, Any], str]:
    """``"search@worlds=16,gate=2.5:zoo:kansas_city"`` -> ``({"worlds": 16, "gate": 2.5},
    "zoo:kansas_city")``; ``"heuristic"`` when no blueprint is named (``load_policy`` then plays
    the game's default search, ``policies.loading.default_search``)."""
    head, _, blueprint = spec.partition(":")
    knobs: dict[str, Any] = {}
    if head != SPEC_PREFIX:
        if not head.startswith(SPEC_PREFIX + "@"):
            raise ValueError(f"{spec!r} is not a search spec: search[@knob=value,...][:<blueprint>]")
        for item in head[len(SPEC_PREFIX) + 1:].split(","):
            name, eq, text = item.partition("=")
            if not eq or not name.strip():
                raise ValueError(f"search spec {spec!r}: settings are written knob=value, "
                                 f"separated by commas (e.g. search@worlds=16,gate=2.5:heuristic)")
            name = name.strip()
            if name in knobs:
                raise ValueError(f"search spec {spec!r}: setting {name} is given twice; give "
                                 "each setting once")
            knobs[name] = parse_value(text.strip())
    return check_knobs(knobs), blueprint or "heuristic"


def needs_infoset(policy: Any) -> bool:
    """Whether ``policy`` decides from an information set (``act_infoset``) rather than ``act``."""
    return bool(getattr(policy, "needs_infoset", False))


__all__ = [
    "GENERIC_DEFAULTS",
    "Infoset",
    "Label",
    "SearchPolicy",
    "SearchStats",
    "SeatedRoller",
    "World",
    "infoset",
    "is_search_spec",
    "label_positions",
    "measure_labels",
    "needs_infoset",
    "parse_search_spec",
]


def __getattr__(name: str) -> Any:
    if name == "load_search_policy":  # moved up a rank: search takes loaded policies
        raise ImportError("cahoots_envs.search.load_search_policy moved: use from "
                          "cahoots_envs.policies.loading import load_search_policy (or "
                          "load_policy('search@...:<spec>', env_id))", name=name)
    raise AttributeError(f"module 'cahoots_envs.search' has no attribute {name!r}")
