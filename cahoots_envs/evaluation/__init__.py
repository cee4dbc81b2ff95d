"""Matches and tournaments between policies, with win rates, score intervals and ratings.

    from cahoots_envs.evaluation import run_tournament
    result = run_tournament("kansas_city-v1", ["heuristic", "random"], num_games=200, seed=0)
    print(result.table())            # terminal table
    result.to_json("results.json")   # for tools
    result.plot("ratings.png")       # ratings with intervals (matplotlib)

Policies are any ``load_policy`` spec (``random``, ``heuristic``, ``zoo:<name>`` or a path) or
a policy object (anything with ``act(observation, action_mask)``, e.g. a loaded or hand-made
policy), labelled by its ``name`` attribute (else its repr) and numbered if two labels clash
(``policy``, ``policy#2``). A spec given twice is refused: seats are filled by rotation, so a
repeated spec would add nothing; to put one policy against copies of another use ``field``.
Policy objects reach worker processes by pickling, once per worker (use ``workers=1`` for one
that cannot be pickled); one with an ``rng`` attribute is re-seeded for every game.

**Seats.** With as many policies as seats or fewer, the lineup ``p0 p1 … p0 p1 …`` fills the
seats and game ``g`` rotates it by ``g mod N``, so every policy plays every seat equally often
over each N games (make ``num_games`` a multiple of N). With more policies than seats, every
combination of N policies gets its N rotations in turn. In the cooperative game (cahoots_coop)
all seats play the same policy, which is a team against the game: game ``g`` is played by
policy ``g mod P``; ``cross_play`` seats mixed teams instead (each pair of policies A and B in
the lineups ``A A B`` and ``A B B`` with 3 players, on the same deals).

**Candidates against a field.** With ``field=SPEC`` each game seats one candidate in one seat and
the field policy in every other seat: game ``g`` puts candidate ``(g // N) mod C`` in seat
``g mod N`` (make ``num_games`` a multiple of N times the C candidates), e.g. "zoo:kansas_city
against 3 random". Each candidate's win rate is then its win share in one seat against the field
(chance 1/N). Competitive games only.

**Seeds.** Game ``g`` deals from ``SeedSequence([seed, g])`` and the policy in seat ``s`` draws
from ``SeedSequence([seed, g, 1 + s])``, so results are identical for a given seed whatever the
number of worker processes.

**Statistics.** Win rate (the mean win share) with a 95% Wilson score interval: a seat wins
when its payoff is positive, a k-way shared win counts 1/k and a full tie 1/N
(``core.driver.win_shares``, the count training and ``cahoots strength`` use too), so the
shares of a game add up to 1 and equally strong policies each expect 1/N; mean rulebook score with a 95% normal
interval (in texas_euchre points are bad: lower is better); the head-to-head table gives, over
the games two policies met, how often the row policy finished ahead of the column policy (ties
count half). Ratings use OpenSkill's Plackett–Luce model (``openskill``), which rates
free-for-all games of any size from the finishing order (payoff, then score) and needs no
pairwise decomposition; a policy sitting in several seats of one game is rated once per seat and
its rating moves by the mean of those updates. In the cooperative game each game is the team
against a pseudo-player for the game at its options (named by the options its strength rows set,
e.g. ``game (normal)``), who "wins" when the team loses. The conservative rating
``mu - 3*sigma`` orders the table. The intervals are ``core.stats``'.

The modules: ``play`` (the schedule, ``play_game``, ``run_tournament`` and the worker
processes), ``results`` (``GameResult``, ``PolicyStats``), ``report`` (``summarise``,
``TournamentResult``: the table and JSON), ``plots`` (the charts), ``ratings`` (OpenSkill),
``cross_play`` (mixed teams of a cooperative game: ``cross_play``, ``CrossPlayResult``, its own
docstring); every name is imported from here as well. Beside them, many games at once: ``matches``
(a candidate against an opponent, or a cooperative team, on the reference engine or the batched
engine side by side: ``play_matches``, which training's evaluator uses; ``MatchResult``),
``tables`` (a seat game driven through the engine, for the matches and the seat envs) and
``strength`` (the strength tables of ``cahoots strength``), imported from their modules.
"""

from cahoots_envs.core.stats import Z95, mean_interval, wilson_interval
from cahoots_envs.evaluation.cross_play import (
    CrossPlayResult,
    LineupStats,
    cross_play,
    cross_play_lineups,
)
from cahoots_envs.evaluation.play import (
    default_workers,
    field_lineup,
    game_seed,
    lineup_for_game,
    play_game,
    run_tournament,
)
from cahoots_envs.evaluation.report import TournamentResult, display_labels, summarise
from cahoots_envs.evaluation.results import GameResult, PolicyStats

__all__ = [
    "Z95",
    "CrossPlayResult",
    "GameResult",
    "LineupStats",
    "PolicyStats",
    "TournamentResult",
    "cross_play",
    "cross_play_lineups",
    "default_workers",
    "display_labels",
    "field_lineup",
    "game_seed",
    "lineup_for_game",
    "mean_interval",
    "play_game",
    "run_tournament",
    "summarise",
    "wilson_interval",
]
