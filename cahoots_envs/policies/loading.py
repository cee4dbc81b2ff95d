"""``load_policy(spec, env_id, options, seed)`` and ``list_policies()``.

A spec is ``"random"``, ``"heuristic"``, ``"zoo:<name>"`` (a policy shipped in
``cahoots_envs/policies/zoo/``; ``zoo:<game>`` is that game's best one), a path to a saved
policy (``.safetensors``, its ``.json``, or a run folder holding ``policy.safetensors``), or a
search bot over any of those: ``"search"`` (the game's default search: its world sampler's
``DEFAULT_SEARCH`` where that blueprint plays the env's options, else over the heuristic),
``"search:<spec>"``,
``"search@<knob>=<value>,...:<spec>"`` (see ``cahoots_envs.search``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cahoots_envs.core.policy import BasePolicy
from cahoots_envs.envinfo import env_info
from cahoots_envs.errors import IncompatiblePolicyError, RetiredEnvError
from cahoots_envs.policies.random_policy import RandomPolicy

ZOO_DIR = Path(__file__).parent / "zoo"
ZOO_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")
BUILTINS = ("random", "heuristic")


def load_heuristic(env_id: str, options: Mapping[str, Any] | None = None,
                   seed: int | None = None) -> BasePolicy:
    """The game's rule-based bot (its spec's ``bot``) for ``env_id`` with ``options``."""
    info = env_info(env_id, options)
    return info.spec.bot(info.options, seed=seed)


def load_search_policy(spec: str, env_id: str | None, options: Mapping[str, Any] | None,
                       seed: int | None) -> BasePolicy:
    """``search[@knob=value,...][:<blueprint spec>]``: the settings checked, the game's world
    sampler required, then the blueprint loaded and handed to a ``SearchPolicy`` (search ranks
    below policies: it takes loaded policies, not specs). Without a blueprint named, the game's
    default (``default_search``)."""
    from cahoots_envs.search import SearchPolicy, parse_search_spec

    knobs, blueprint = parse_search_spec(spec)
    if env_id is None:
        raise ValueError(f"load_policy({spec!r}) needs the env_id it will play")
    sampler = env_info(env_id, options).spec.require("world_sampler")  # before any blueprint
    if blueprint == "search" or blueprint.startswith(("search:", "search@")):
        raise ValueError("a search bot's blueprint is a plain policy, not another search bot")
    if spec.partition(":")[2]:
        loaded = load_policy(blueprint, env_id, options, seed=seed)
    else:
        blueprint, loaded, defaults = default_search(sampler, env_id, options, seed)
        knobs = {**defaults, **knobs}
    return SearchPolicy(env_id, options, blueprint=loaded, seed=seed, blueprint_name=blueprint,
                        **knobs)


def default_search(sampler: Any, env_id: str, options: Mapping[str, Any] | None,
                   seed: int | None) -> tuple[str, BasePolicy, dict[str, Any]]:
    """What plain ``search`` plays in a game: the blueprint spec, the loaded blueprint and the
    knobs of the sampler's ``DEFAULT_SEARCH`` where that blueprint may play ``options`` (a
    network trained on other options raises ``IncompatiblePolicyError``, and then), else
    ``("heuristic", <the rule-based bot>, {})``. A default that cannot load for another reason
    (a damaged zoo file) raises."""
    from cahoots_envs.search import parse_search_spec

    named = getattr(sampler, "DEFAULT_SEARCH", None)
    if named:
        knobs, blueprint = parse_search_spec(named)
        try:
            return blueprint, load_policy(blueprint, env_id, options, seed=seed), knobs
        except IncompatiblePolicyError:
            pass
    return "heuristic", load_heuristic(env_id, options, seed), {}


def default_search_spec(env_id: str, options: Mapping[str, Any] | None = None) -> str:
    """The full spec plain ``search`` stands for in ``env_id`` with ``options``
    (``"search:heuristic"``, or a sampler's default, e.g. ``"search@rollout=heuristic:zoo:<game>"``)."""
    sampler = env_info(env_id, options).spec.require("world_sampler")
    blueprint, _, _ = default_search(sampler, env_id, options, None)
    return "search:heuristic" if blueprint == "heuristic" else str(sampler.DEFAULT_SEARCH)


def _looks_up(path: Path, test: str) -> bool:
    """``path.exists()`` or ``path.is_file()``; a name the system cannot look up (a part over
    255 characters, a NUL byte) names nothing, rather than raising ``OSError``."""
    try:
        return bool(getattr(path, test)())
    except (OSError, ValueError):
        return False


def _shown(text: str, most: int = 80) -> str:
    """``repr(text)``, shortened past ``most`` characters (an error message stays one line)."""
    if len(text) <= most:
        return repr(text)
    return f"{text[:most - 20]!r}... ({len(text)} characters)"


def zoo_path(name: str) -> Path:
    """The file of zoo entry ``name``: a plain name (letters, digits, ``_``, ``-``), never a path."""
    known = ", ".join(f"zoo:{p['name']}" for p in list_policies()) or "none yet"
    if not ZOO_NAME.fullmatch(name):
        raise ValueError(f"zoo:{name!r}: a zoo policy is named by a plain name (letters, digits, "
                         f"'_' and '-'; no path); zoo entries: {known}")
    path = ZOO_DIR / f"{name}.safetensors"
    if not _looks_up(path, "is_file"):
        raise ValueError(f"no zoo policy {_shown(name)}; zoo entries: {known}")
    return path


def load_policy(
    spec: str,
    env_id: str | None = None,
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
    *,
    deterministic: bool = True,
    trusted: bool = False,
) -> BasePolicy:
    """A ``Policy`` for ``env_id`` (with ``options``) from ``spec``.

    Saved and zoo policies are checked against the env and raise
    ``cahoots_envs.IncompatiblePolicyError`` saying what differs; with ``env_id=None`` they play
    the env and options they were trained on. ``deterministic=False`` samples network policies'
    actions (seeded by ``seed``). ``trusted=True`` is needed to load an SB3 ``.zip``.
    """
    from cahoots_envs.policies.saved import load_saved_policy, read_metadata

    spec = str(spec)
    if not spec.strip():  # Path("") is the current folder: it would look for a policy there
        raise ValueError("policy spec is empty: give 'random', 'heuristic', 'zoo:<name>', "
                         "'search[:<spec>]' or the path of a saved policy")
    if spec == "search" or spec.startswith(("search:", "search@")):
        return load_search_policy(spec, env_id, options, seed)
    if spec == "random":
        return RandomPolicy(seed)
    if spec == "heuristic":
        if env_id is None:
            raise ValueError("load_policy('heuristic') needs the env_id it will play")
        return load_heuristic(env_id, options, seed)
    path = zoo_path(spec[4:]) if spec.startswith("zoo:") else Path(spec)
    if not _looks_up(path, "exists"):
        raise ValueError(
            f"policy spec {_shown(spec)} is not 'random', 'heuristic', 'zoo:<name>', "
            "'search[:<spec>]' or an existing path"
        )
    if env_id is None:
        if path.suffix == ".zip":
            raise ValueError("loading an SB3 .zip needs the env_id it will play")
        meta = read_metadata(path)
        env_id, options = meta["env_id"], meta["game_options"]
        try:
            env_info(env_id)
        except RetiredEnvError as exc:
            raise IncompatiblePolicyError(
                f"{path} was trained on {env_id}, a retired env version, and cannot play: {exc}"
            ) from None
    return load_saved_policy(path, env_id, options, seed=seed, deterministic=deterministic,
                             trusted=trusted)


def list_policies() -> list[dict[str, Any]]:
    """Every zoo entry's metadata, with ``name`` (use as ``zoo:<name>``) and ``spec``."""
    entries = []
    for meta_path in sorted(ZOO_DIR.glob("*.json")):
        if not meta_path.with_suffix(".safetensors").is_file():
            continue
        meta = json.loads(meta_path.read_text())
        meta["name"] = meta_path.stem
        meta["spec"] = f"zoo:{meta_path.stem}"
        entries.append(meta)
    return entries


def builtin_specs(env_id: str) -> list[str]:
    """The built-in specs available for ``env_id`` (every game has a rule-based bot; games with
    a world sampler have a search bot, ``search``: ``default_search_spec`` says over what)."""
    specs = list(BUILTINS)
    if env_info(env_id).spec.has("world_sampler"):
        specs.append("search")
    return specs
