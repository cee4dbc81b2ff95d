"""Exceptions that are part of the public contract."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action that is masked out or out of range was given to ``raw_env.step``, or an action
    of a wrong type (anything but a Python int, a numpy integer or a 0-d integer array: a bool,
    a float, a string, ...) or out of range to either env's ``step``.

    The env's state is unchanged when this is raised, so the caller may retry.
    """


class RetiredEnvError(ValueError):
    """An env id of an earlier version (``kansas_city-v0`` once ``-v1`` is out) was asked for.
    The message names the current id and what changed since; game logs of earlier versions whose
    rules are unchanged still replay."""


class EnvNotResetError(RuntimeError):
    """``step``, ``observe``, ``last`` or ``render`` was called before ``reset``."""


class IncompatiblePolicyError(ValueError):
    """A saved policy does not match the env it is asked to play (id, options, layout, actions)."""


class NotAvailableError(NotImplementedError):
    """An optional part of a game (a world sampler, a global-state layout, a batched engine) was
    asked for where the game does not provide it: "<part> is not available for <game>"."""


class InfosetRequiredError(TypeError):
    """A policy that decides from an information set (a search bot, ``needs_infoset = True``) was
    asked to act from an observation alone. Call ``act_infoset(cahoots_envs.search.infoset(env))``
    or let a harness do it: ``cahoots eval``/``play``, ``run_tournament``, ``SeatEnv`` pools."""


class GameSpecError(TypeError, ValueError):
    """A ``GameSpec`` that cannot be a game: a required member is missing, or a declared value is
    not one that is allowed (``VERSION`` not a non-negative int, an empty ``PLAYER_COUNTS``, ...).

    Raised when the spec is built and again by ``register_game`` before it touches any registry;
    the message has one line per problem, saying what is wrong and what is allowed. It is both a
    ``TypeError`` and a ``ValueError``."""
