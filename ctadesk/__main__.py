"""`python -m ctadesk` behaves like the `ctadesk` command."""

import sys

from ctadesk.cli import main

if __name__ == "__main__":
    sys.exit(main())
