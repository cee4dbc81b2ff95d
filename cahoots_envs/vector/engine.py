"""Loading a game's batched engine: ``engine_class(spec)`` imports the module (or class) its
``GameSpec`` names as ``batched``.

The engine base itself, ``BatchedEngine``, lives in ``cahoots_envs.core.batched`` (games import it
from there: a game imports only ``cahoots_envs.core``); it is re-exported here, with
``DEAL_ERROR_SHOWN`` and ``OUTPUT_BUFFERS``, for code that imports it from its former home.
"""

from __future__ import annotations

import importlib

from cahoots_envs.core.batched import DEAL_ERROR_SHOWN, OUTPUT_BUFFERS, BatchedEngine
from cahoots_envs.core.spec import GameSpec

__all__ = ["DEAL_ERROR_SHOWN", "OUTPUT_BUFFERS", "BatchedEngine", "engine_class"]


def engine_class(spec: GameSpec) -> type[BatchedEngine]:
    """The batched engine class of ``spec``'s game. Its ``batched`` member names a module whose
    ``Engine`` subclasses ``BatchedEngine`` (a dotted path such as
    ``"cahoots_envs.games.kansas_city.batched"``, or the module itself), or the class itself
    (``"package.module:ClassName"``, or the class object); a game without one raises
    ``NotAvailableError``."""
    member = spec.require("batched")
    if isinstance(member, str):
        path, _, attribute = member.partition(":")
        module = importlib.import_module(path)
        cls = getattr(module, attribute or "Engine", None)
    else:
        cls = member if isinstance(member, type) else getattr(member, "Engine", None)
    if not (isinstance(cls, type) and issubclass(cls, BatchedEngine)):
        raise TypeError(f"{spec.env_id}: the batched member {member!r} must name a module whose "
                        "Engine subclasses cahoots_envs.core.batched.BatchedEngine")
    return cls
