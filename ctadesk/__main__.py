"""`python -m ctadesk` behaves like the `ctadesk` command."""

import sys

from ctadesk.cli import main

sys.exit(main())
