"""The batched engines' shared numba helpers, now ``cahoots_envs.core.numba_kernels``: re-exported
here for code that imports them from their former home (imports numba, as that module does)."""

from __future__ import annotations

from cahoots_envs.core import numba_kernels as _kernels

__all__ = list(_kernels.__all__)
globals().update({name: getattr(_kernels, name) for name in __all__})
