"""Self-play training from a YAML config: ``python training/train.py --config configs/<game>.yaml``.

A thin entry point; the work is in ``cahoots_envs.training.train`` (see its docstring).
"""

import os
import sys
from pathlib import Path

# one BLAS thread: numpy's matmuls are small (opponent networks), and on a busy 2-core machine a
# multi-threaded OpenBLAS is 40x slower for a 64x711 @ 711x64 product (measured: 24 ms vs 0.6 ms)
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cahoots_envs.training.train import main

if __name__ == "__main__":
    raise SystemExit(main())
