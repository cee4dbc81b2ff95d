"""Self-play training from a YAML config: ``python training/train.py --config configs/<game>.yaml``.

A thin entry point; the work is in ``cahoots_envs.training.train`` (see its docstring).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cahoots_envs.training.train import main

if __name__ == "__main__":
    raise SystemExit(main())
