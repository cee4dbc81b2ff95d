"""Retired: ``cahoots_coop-v0`` is now ``cahoots_envs.cahoots_coop_v1`` (the v1 observation holds every
public fact). Calling anything here raises ``RetiredEnvError`` saying what changed."""

from typing import Any

from cahoots_envs.errors import RetiredEnvError


def _retired() -> RetiredEnvError:
    from cahoots_envs.registry import game_spec

    try:
        game_spec("cahoots_coop-v0")
    except RetiredEnvError as exc:
        return exc
    raise AssertionError("cahoots_coop-v0 is expected to be retired")  # pragma: no cover


def env(**options: Any) -> Any:
    raise _retired()


def raw_env(**options: Any) -> Any:
    raise _retired()


def __getattr__(name: str) -> Any:
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}: {_retired()}")
