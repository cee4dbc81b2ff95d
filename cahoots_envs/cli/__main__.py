"""``python -m cahoots_envs.cli``: the ``cahoots`` command without the console script."""

import sys

from cahoots_envs.cli import main

sys.exit(main())
