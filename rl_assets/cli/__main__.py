"""`python -m rl_assets.cli`: the same as the `rldelta` console script."""

import sys

from rl_assets.cli import main

sys.exit(main())
