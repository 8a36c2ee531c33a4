"""`python -m topocoll.reproduce`: an alias of `topocoll reproduce` (the same function)."""

import sys

from topocoll.cli.reproduce import main

sys.exit(main())
