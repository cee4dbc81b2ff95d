"""``python -m cahoots_envs``: the ``cahoots`` command without the console script."""

import sys

from cahoots_envs.cli import main

if __name__ == "__main__":
    sys.exit(main())
