"""`python -m topocoll.cli`: the `topocoll` command."""

import sys

from topocoll.cli import main

sys.exit(main())
