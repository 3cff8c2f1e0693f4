"""``python -m elite_ui.bench``: the benchmark's command line."""

import sys

from .cli import main

sys.exit(main())
