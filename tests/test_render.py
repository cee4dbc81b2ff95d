"""Image frames (CONTRACT §7 "Rendering", issue 51): ``render_mode="rgb_array"`` in the AEC,
parallel and seat envs gives HxWx3 ``uint8`` frames of one size per env, drawn with Pillow from
the game's view; Gymnasium's ``RecordVideo`` records a game of every env, PettingZoo's
``render_test`` runs every render mode, ``check_env`` warns of nothing, and without Pillow asking
for frames fails at construction with one line naming the extra."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import RecordVideo
from pettingzoo.test import render_test

import cahoots_envs
from cahoots_envs.core import frame
from cahoots_envs.registry import game_spec

ROOT = Path(__file__).resolve().parents[1]
GAMES = ["kansas_city", "texas_euchre", "cahoots_tricks", "cahoots_coop"]


def play_random(env, rng: np.random.Generator, every: int = 1) -> list[np.ndarray]:
    """One game of random legal moves on an AEC env; the frames rendered every ``every`` steps."""
    frames = [env.render()]
    for i, agent in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        if i % every == 0:
            frames.append(env.render())
    return frames


@pytest.mark.parametrize("game", GAMES)
def test_aec_frames_have_one_size_and_show_the_referees_table(game: str) -> None:
    env = cahoots_envs.make(game, render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    env.reset(seed=5)
    frames = play_random(env, np.random.default_rng(5), every=7)
    shapes = {f.shape for f in frames}
    assert len(shapes) == 1, shapes
    (h, w, c), = shapes
    assert c == 3 and h >= 480 and w >= 640
    assert all(f.dtype == np.uint8 for f in frames)
    assert len({f.tobytes() for f in frames}) > 1  # the table changes as the game goes


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_sees_less_than_the_referee(game: str) -> None:
    """The referee's frame (every hand) differs from a seat's (its own hand, backs for others)."""
    env = cahoots_envs.make(game)
    env.reset(seed=2)
    spec = game_spec(game)
    renderer = frame.FrameRenderer(spec, env.num_agents)
    referee = renderer.frame(env.unwrapped.game, None)
    seat = renderer.frame(env.unwrapped.game, 0)
    assert referee.shape == seat.shape == (*renderer.size, 3)
    assert not np.array_equal(referee, seat)


@pytest.mark.parametrize("game", GAMES)
def test_render_test_runs_every_mode(game: str) -> None:
    render_test(lambda render_mode=None: cahoots_envs.make(game, render_mode=render_mode))


def test_a_game_without_a_view_renders_its_text() -> None:
    env = cahoots_envs.make("high_card", render_mode="rgb_array")
    env.reset(seed=1)
    frames = play_random(env, np.random.default_rng(1))
    assert len({f.shape for f in frames}) == 1 and frames[0].dtype == np.uint8


@pytest.mark.parametrize("game", ["kansas_city", "cahoots_coop"])
def test_parallel_env_renders_frames(game: str) -> None:
    env = cahoots_envs.make_parallel(game, render_mode="rgb_array")
    assert env.metadata["render_fps"] > 0 and "rgb_array" in env.metadata["render_modes"]
    observations, _ = env.reset(seed=4)
    first = env.render()
    env.step({a: int(np.flatnonzero(o["action_mask"])[0])
              for a, o in observations.items() if o["action_mask"].any()})
    second = env.render()
    assert first.shape == second.shape and first.dtype == np.uint8 and first.shape[2] == 3


@pytest.mark.parametrize("game", GAMES)
def test_record_video_writes_a_game(game: str, tmp_path: Path) -> None:
    env = gym.make(f"cahoots_envs/{game}_seat-v1", render_mode="rgb_array")
    env = RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda e: True,
                      name_prefix=game)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, term, trunc, info = env.step(action)
        done = term or trunc
    env.close()
    videos = list((tmp_path / "videos").glob(f"{game}*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000, videos


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("render_mode", [None, "rgb_array"])
def test_check_env_warns_of_nothing(game: str, render_mode: str | None) -> None:
    env = gym.make(f"cahoots_envs/{game}_seat-v1", render_mode=render_mode)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert not [str(w.message) for w in caught], [(w.filename, str(w.message)) for w in caught]


def test_seat_env_frame_is_the_learners_view() -> None:
    env = gym.make("cahoots_envs/texas_euchre_seat-v1", render_mode="rgb_array")
    env.reset(seed=1)
    seat_env = env.unwrapped
    t = seat_env.table
    renderer = frame.FrameRenderer(game_spec("texas_euchre"), seat_env.options["num_players"])
    assert np.array_equal(seat_env.render(), renderer.frame(t.game, t.learner))
    with pytest.raises(ValueError, match="render_mode"):
        gym.make("cahoots_envs/texas_euchre_seat-v1", render_mode="gif")


def test_without_pillow_rgb_array_fails_at_construction_naming_the_extra() -> None:
    code = (
        "import sys; sys.modules['PIL'] = None\n"
        "import cahoots_envs\n"
        "cahoots_envs.make('kansas_city').reset(seed=1)\n"  # no frames: no Pillow needed
        "try:\n"
        "    cahoots_envs.make('kansas_city', render_mode='rgb_array')\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.strip()
    assert "\n" not in out and "cahoots-envs[render]" in out and "Pillow" in out, out


def test_suit_colours_are_the_browser_views() -> None:
    """The same colour per suit as web/static/draw.js (beside the symbol and the letter)."""
    js = (ROOT / "cahoots_envs" / "web" / "static" / "draw.js").read_text()
    named = dict(re.findall(r'(\w+): "(#[0-9a-f]{6})"', js.split("const NAMED = {")[1].split("};")[0]))
    palette = re.findall(r'"(#[0-9a-f]{6})"', js.split("const PALETTE = [")[1].split("];")[0])
    assert named == frame.NAMED
    assert tuple(palette) == frame.PALETTE


@pytest.mark.parametrize("game", GAMES)
def test_layout_names_the_views_fields_and_sizes_are_documented(game: str) -> None:
    """Each game's LAYOUT draws fields its view sends (a renamed field would vanish from the
    frames silently), and the doc page gives every player count's frame size."""
    spec = game_spec(game)
    env = cahoots_envs.make(game)
    env.reset(seed=0)
    tables = [frame.view_table(spec, env.unwrapped.game, seat) for seat in (None, 0)]
    layout = spec.view.LAYOUT
    for table in tables:
        for item in layout["info"] + layout["center"]:
            assert item["key"] in table or item["key"] in ("draw_order", "goal_order",
                                                           "ranks_passed"), item
        for item in layout["seatStats"] + layout["seatFlags"] + layout["seatExtras"]:
            assert item["key"] in table["seats"][0], item
    page = Path(spec.doc_page).read_text()
    for n in spec.rules.PLAYER_COUNTS:
        height, width = frame.FrameRenderer(spec, n).size
        assert f"1280×{height}" in page and width == 1280, (n, height)
