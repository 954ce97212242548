"""Entry point of the bundled app: the same as the `ctadesk` command."""

import sys

from ctadesk.cli import main

sys.exit(main())
