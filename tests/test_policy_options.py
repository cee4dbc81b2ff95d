"""Saved policies and game options added after they were trained."""

from __future__ import annotations

from pathlib import Path

import pytest

import cahoots_envs
from cahoots_envs import IncompatiblePolicyError
from cahoots_envs.policies.envinfo import env_info
from cahoots_envs.policies.saved import check_compatible, read_metadata

ZOO = Path(cahoots_envs.__file__).parent / "policies" / "zoo"


@pytest.mark.skipif(not (ZOO / "texas_euchre.safetensors").exists(), reason="no zoo policy")
def test_an_option_the_policy_does_not_record_means_its_default() -> None:
    meta = read_metadata(ZOO / "texas_euchre.safetensors")
    meta["game_options"].pop("empty_deck_throw_down", None)
    check_compatible(meta, env_info("texas_euchre-v1", {}))  # the default: compatible
    with pytest.raises(IncompatiblePolicyError, match="empty_deck_throw_down"):
        check_compatible(meta, env_info("texas_euchre-v1", {"empty_deck_throw_down": True}))
    with pytest.raises(IncompatiblePolicyError, match="empty_deck_throw_down"):
        cahoots_envs.load_policy("zoo:texas_euchre", "texas_euchre-v1",
                                 {"empty_deck_throw_down": True})


# ---- policies across options (CONTRACT §7) ------------------------------------------------------
# the options a saved policy may play across: settings (how long a game runs, how many goals), not
# rule variants; everything else, including num_players, must match the training options
MAY_DIFFER = {
    "kansas_city": {"reward_mode", "hands"},
    "texas_euchre": {"reward_mode", "target_score"},
    "cahoots_tricks": {"reward_mode"},
    "cahoots_coop": {"reward_mode", "difficulty", "num_goals"},
}
KC = "cahoots_envs/kansas_city-v1"


def test_each_option_declares_whether_a_policy_may_play_across_it() -> None:
    from cahoots_envs.core.options import Option

    assert Option("x", 0, "doc", int_range=(0, 1)).policy_may_differ is False  # the safe default
    for game, expected in MAY_DIFFER.items():
        options = cahoots_envs.game_spec(game).rules.OPTIONS
        assert {o.name for o in options if o.policy_may_differ} == expected, game
        assert not options.by_name["num_players"].policy_may_differ


def _kc_policy(tmp_path: Path, **options) -> Path:
    import itertools

    import numpy as np

    from cahoots_envs.policies import MLPPolicy, save_policy

    info = env_info(KC, options)
    rng = np.random.default_rng(0)
    sizes = [info.layout.size, 8, info.num_actions]
    weights = [(rng.normal(0, 0.3, (b, a)).astype(np.float32), np.zeros(b, np.float32))
               for a, b in itertools.pairwise(sizes)]
    path = tmp_path / "kc.safetensors"
    save_policy(MLPPolicy(weights), path, KC, options)
    return path


def test_a_policy_plays_across_a_setting_and_records_the_difference(tmp_path: Path) -> None:
    path = _kc_policy(tmp_path)
    policy = cahoots_envs.load_policy(str(path), KC, {"hands": 1})
    assert policy.option_differences == {"hands": (3, 1)}
    assert policy.metadata["option_differences"] == {"hands": [3, 1]}
    same = cahoots_envs.load_policy(str(path), KC)
    assert same.option_differences == {} and "option_differences" not in same.metadata
    env = cahoots_envs.make(KC, hands=1)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][policy.act(obs["observation"], obs["action_mask"])]


@pytest.mark.skipif(not (ZOO / "cahoots_coop.safetensors").exists(), reason="no zoo policy")
def test_the_coop_zoo_policy_plays_at_beginner() -> None:
    policy = cahoots_envs.load_policy("zoo:cahoots_coop", "cahoots_coop-v1",
                                      {"difficulty": "beginner"})
    assert policy.option_differences == {"difficulty": ("normal", "beginner")}
    assert cahoots_envs.load_policy("zoo:cahoots_coop", "cahoots_coop-v1",
                                    {"num_goals": 5}).option_differences == {"num_goals": (None, 5)}


def test_a_rule_variant_is_refused_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(IncompatiblePolicyError,
                       match=r"reverse=False in the policy but reverse=True.*rule variant"):
        check_compatible(dict(env_info("texas_euchre-v1").describe()),
                         env_info("texas_euchre-v1", {"reverse": True}))
    with pytest.raises(IncompatiblePolicyError, match=r"open_hands.*rule variant.*may play "
                       r"across difficulty, num_goals"):
        check_compatible(dict(env_info("cahoots_coop-v1").describe()),
                         env_info("cahoots_coop-v1", {"open_hands": True}))
    for options in ({"scoring": "face_value"}, {"point_split": "random"},
                    {"three_way_split": "even"}):
        with pytest.raises(IncompatiblePolicyError, match=f"{next(iter(options))}=.*rule variant"):
            check_compatible(dict(env_info("cahoots_tricks-v1").describe()),
                             env_info("cahoots_tricks-v1", options))
    # a refused variant is refused even next to an accepted setting
    path = _kc_policy(tmp_path)
    with pytest.raises(IncompatiblePolicyError, match="num_players") as err:
        cahoots_envs.load_policy(str(path), KC, {"hands": 1, "num_players": 5})
    assert "option hands" not in str(err.value)


def test_another_player_count_says_the_observation_size_differs(tmp_path: Path) -> None:
    path = _kc_policy(tmp_path)
    five, four = env_info(KC, {"num_players": 5}), env_info(KC, {"num_players": 4})
    with pytest.raises(IncompatiblePolicyError,
                       match=rf"num_players=4 in the policy but num_players=5 in the env: another "
                       rf"player count changes the observation size \({five.layout.size} entries "
                       rf"here; the policy was trained on {four.layout.size}\)"):
        cahoots_envs.load_policy(str(path), KC, {"num_players": 5})


def test_a_setting_that_changes_the_layout_is_still_refused(tmp_path: Path) -> None:
    """An option may be played across only while the observation layout and the action count stay
    the same: a game whose layout depended on the setting would be refused by its fingerprint."""
    meta = dict(env_info("cahoots_coop-v1").describe())
    check_compatible(meta, env_info("cahoots_coop-v1", {"difficulty": "expert"}))
    with pytest.raises(IncompatiblePolicyError, match="layout fingerprint"):
        check_compatible({**meta, "layout_fingerprint": "0" * 16},
                         env_info("cahoots_coop-v1", {"difficulty": "expert"}))
    with pytest.raises(IncompatiblePolicyError, match="action count"):
        check_compatible({**meta, "num_actions": 7},
                         env_info("cahoots_coop-v1", {"difficulty": "expert"}))
