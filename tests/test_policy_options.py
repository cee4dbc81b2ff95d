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
    check_compatible(meta, env_info("texas_euchre-v0", {}))  # the default: compatible
    with pytest.raises(IncompatiblePolicyError, match="empty_deck_throw_down"):
        check_compatible(meta, env_info("texas_euchre-v0", {"empty_deck_throw_down": True}))
    with pytest.raises(IncompatiblePolicyError, match="empty_deck_throw_down"):
        cahoots_envs.load_policy("zoo:texas_euchre", "texas_euchre-v0",
                                 {"empty_deck_throw_down": True})
