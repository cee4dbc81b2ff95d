"""How many threads the BLAS library behind numpy may use: the one knob every entry point that
plays network policies sets (training, ``cahoots strength``)."""

from __future__ import annotations

import os
import warnings


def limit_blas_threads(threads: int) -> None:
    """One BLAS thread (or ``threads``): the numpy opponent networks multiply small matrices, and
    a multi-threaded OpenBLAS on a busy 2-core machine ran them 40x slower (24 ms vs 0.6 ms for a
    64x711 @ 711x64 product). Every entry point (``cahoots train``, ``python -m
    cahoots_envs.training.train``, ``cahoots strength``) calls it before playing."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        if "OPENBLAS_NUM_THREADS" not in os.environ:
            warnings.warn("threadpoolctl is not installed: set OPENBLAS_NUM_THREADS=1 if the "
                          "opponents' numpy networks are slow", stacklevel=2)
        return
    threadpool_limits(threads, user_api="blas")
