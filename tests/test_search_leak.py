"""A searched decision depends on what its seat knows alone, and the check can see a peek.

At a few hundred searched positions of every game and player count, a fresh search bot decides
at the true game and at twins in which every card its seat cannot see was dealt afresh: one
re-dealt from the deal records on (a world from the game's sampler, replayed to the seat's exact
observations: other deal records, others' hidden choices in the history), one with the current
hidden cards re-dealt (``resample_hidden``). Every module-level cache of the search code is
cleared before each decision; the move, the per-world values of every move and the counters
must agree (``tests/search_checks.py``: ``check_no_peek``). The same check reports a difference
for bots that peek: one whose worlds are the true game, one whose worlds are replayed from the
game's deal records and history (which the ``resample_hidden`` twin alone cannot see)."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
import pytest

from cahoots_envs.core.search import World
from cahoots_envs.games.cahoots_coop.rules import CahootsCoop
from cahoots_envs.games.cahoots_tricks import search as tricks_search
from cahoots_envs.games.cahoots_tricks.rules import CahootsTricks
from cahoots_envs.games.kansas_city.rules import KansasCity
from cahoots_envs.games.texas_euchre.rules import TexasEuchre
from cahoots_envs.search import Infoset, SearchPolicy
from cahoots_envs.search import policy as search_policy
from tests.search_checks import SearchCaches, _setup, check_no_peek, record_game, variants

GAME_RULES = [("kansas_city-v1", KansasCity), ("texas_euchre-v1", TexasEuchre),
              ("cahoots_tricks-v1", CahootsTricks), ("cahoots_coop-v1", CahootsCoop)]
# (env id, options, seeds, decisions a game): every player count of every game, games kept
# short; about 20 searched decisions each
CONFIGS: list[tuple[str, dict[str, Any], list[int], int]] = [
    *[("kansas_city-v1", {"num_players": n, "hands": 2}, [0], 20) for n in (4, 5)],
    *[("texas_euchre-v1", {"num_players": n, "target_score": 15}, [0, 1, 2], 10)
      for n in (3, 4, 5, 6)],
    *[("cahoots_tricks-v1", {"num_players": n}, [0], 18) for n in (3, 4)],
    *[("cahoots_coop-v1", {"num_players": n, "difficulty": "beginner"}, [0], 18)
      for n in (1, 2, 3, 4)],
    # table talk, both vocabularies: with search_all its talk decisions are searched too (on the
    # reference game: the engine rolls out silently)
    *[("cahoots_coop-v1", {"num_players": n, "difficulty": "beginner", "talk": talk}, [0], 18)
      for n, talk in ((3, "spanish"), (2, "dutch"))],
]
# the search is small but whole (worlds drawn, more added while the moves are not told apart),
# at every decision with 2 legal moves or more
KNOBS: dict[str, Any] = {"worlds": 2, "max_worlds": 4, "search_all": True, "max_candidates": 64}
# the rollout paths: the default, and the reference game where the engine is the default
PATHS = ["default"] + (["reference"] if "engine" in search_policy.KNOB_TYPES else [])


def _name(config: tuple[str, dict[str, Any], list[int], int]) -> str:
    talk = config[1].get("talk")
    return config[0].split("-")[0] + "-" + str(config[1]["num_players"]) + \
        (f"-{talk}" if talk else "")


def _bot(path: str, cls: type[SearchPolicy] = SearchPolicy) -> Any:
    knobs = dict(KNOBS) if path == "default" else {**KNOBS, "engine": path}
    return partial(cls, **knobs)


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
def test_a_searched_decision_is_the_same_when_every_hidden_card_is_dealt_afresh(config) -> None:
    env_id, options, seeds, points = config
    report = check_no_peek(env_id, options, seeds, points, _bot("default"))
    assert report.differences == []
    assert report.positions >= 12, f"only {report.positions} decisions were searched"
    # the twins are other games: other deal records (hidden cards dealt otherwise) at most
    # positions, and where others' choices are hidden (passes, discards) other histories too
    assert report.redealt >= 0.8 * report.positions
    if env_id in ("kansas_city-v1", "texas_euchre-v1"):
        assert report.rewritten >= 0.5 * report.positions


@pytest.mark.skipif(PATHS == ["default"], reason="the search has one rollout path")
@pytest.mark.parametrize("config", CONFIGS[::3], ids=_name)
def test_the_same_on_the_reference_path(config) -> None:
    env_id, options, seeds, points = config
    report = check_no_peek(env_id, options, seeds[:1], points // 2, _bot("reference"),
                           twins=("redealt",))
    assert report.differences == []
    assert report.positions >= 4


class _TrueWorlds(Infoset):
    """A peek: every 'sampled' world is the true game."""

    __slots__ = ()

    def sample(self, rng: np.random.Generator) -> World:
        game = self._game
        return World(game.clone(rng=np.random.default_rng(int(rng.integers(2**63)))),
                     list(game.deals), list(game.history))


class _RecordedWorlds(Infoset):
    """A peek at the deal records: every world is the game replayed from its deals and history
    (the true game, but for chance after the deal)."""

    __slots__ = ()

    def sample(self, rng: np.random.Generator) -> World:
        game = self._game
        world = self.spec.rules(self.options, np.random.default_rng(int(rng.integers(2**63))),
                                game.deals)
        for action in game.history:
            world.apply(action)
        return World(world, list(game.deals), list(game.history))


class PeekingSearch(SearchPolicy):
    """A search bot that hands its search an information set whose worlds are ``worlds``."""

    world_source: type[Infoset] = _TrueWorlds

    def act_infoset(self, infoset: Infoset) -> int:
        peek = self.world_source(infoset._game, infoset.seat, infoset.spec, infoset.options,
                           infoset.observation, infoset.action_mask)
        return super().act_infoset(peek)


class RecordPeekingSearch(PeekingSearch):
    world_source = _RecordedWorlds


# one player count of each game
PEEK_CONFIGS = [CONFIGS[0], CONFIGS[2], CONFIGS[6], CONFIGS[10]]


@pytest.mark.parametrize("config", PEEK_CONFIGS, ids=_name)
@pytest.mark.parametrize("path", PATHS)
def test_the_check_sees_a_bot_whose_worlds_are_the_true_game(config, path) -> None:
    env_id, options, seeds, _ = config
    report = check_no_peek(env_id, options, seeds[:1], 4, _bot(path, PeekingSearch))
    assert report.positions >= 2
    assert len(report.differences) >= report.positions // 2, report.differences


@pytest.mark.parametrize("config", PEEK_CONFIGS, ids=_name)
def test_the_check_sees_a_bot_that_reads_the_deal_records(config) -> None:
    env_id, options, seeds, _ = config
    bot = _bot("default", RecordPeekingSearch)
    # a twin re-dealt from the deal records on sees it ...
    report = check_no_peek(env_id, options, seeds[:1], 4, bot, twins=("redealt",))
    assert report.positions >= 2
    assert len(report.differences) >= report.positions // 2, report.differences
    # ... where re-dealing only the current hidden cards does not: the deal records and the
    # history still hold the true cards
    blind = check_no_peek(env_id, options, seeds[:1], 4, bot, twins=("resampled",))
    assert blind.positions >= 2 and blind.differences == []


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("env_id, options", [(env_id, options) for env_id, rules in GAME_RULES
                                             for options in variants(rules)],
                         ids=lambda x: str(x) if isinstance(x, str) else
                         ",".join(f"{k}={v}" for k, v in x.items()))
def test_a_larger_sweep_over_every_variant_with_the_games_own_settings(env_id, options,
                                                                       path) -> None:
    make_bot = partial(SearchPolicy, search_all=True,
                       **({} if path == "default" else {"engine": path}))
    report = check_no_peek(env_id, options, range(3, 6), 20, make_bot)
    assert report.differences == []
    assert report.positions >= 15


def test_the_caches_a_search_fills_are_found_and_cleared() -> None:
    env_id = "cahoots_tricks-v1"
    spec, _, opts = _setup(env_id, {"num_players": 3})
    games, _ = record_game(env_id, opts, 0)
    game = games[len(games) // 2]
    caches = SearchCaches(spec)
    move = caches.fresh(lambda: _bot("default")(env_id, opts, seed=0).act_infoset(
        Infoset(game, game.current_player, spec, opts)))
    assert move in game.legal_actions()
    # the world sampler's contexts, keyed by what the seat knows, are among them
    assert any(holder is tricks_search._CONTEXTS for holder in caches.known.values())
    assert tricks_search._CONTEXTS
    caches.clear()
    assert not tricks_search._CONTEXTS
