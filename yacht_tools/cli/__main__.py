"""``python -m yacht_tools.cli``: the ``yacht`` command."""

import sys

from yacht_tools.cli import main

sys.exit(main())
