"""RLlib self-play training from a YAML config:
``python training/rllib_train.py --config configs/rllib/<game>.yaml [--address auto]``.

A thin entry point; the work is in ``cahoots_envs.rllib.train`` (see its docstring). Run it in
the RLlib virtual environment (``.venv-rllib``, see docs/scale.md).
"""

import os
import sys
from pathlib import Path

# one BLAS thread: the evaluation's numpy networks multiply small matrices (see training/train.py)
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cahoots_envs.rllib.train import main

if __name__ == "__main__":
    raise SystemExit(main())
