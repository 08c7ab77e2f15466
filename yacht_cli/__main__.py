"""``python -m yacht_cli``: the ``yacht`` command."""

import sys

from yacht_cli import main

sys.exit(main())
