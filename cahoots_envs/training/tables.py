"""Moved: ``cahoots_envs.evaluation.tables`` (issue 55: match-playing and the strength tables live in
evaluation, which ranks below training). This old path keeps working: importing it warns with a
``DeprecationWarning`` naming the new one, and every name is the new module's own object."""

from cahoots_envs.core.moved import moved_module
from cahoots_envs.evaluation import tables as _moved

__getattr__, __dir__ = moved_module(__name__, _moved)
