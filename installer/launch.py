"""Entry point of the bundled app: the same as the `ctadesk` command.

The MILP portfolio starts its heuristic as ``sys.executable -c CODE``; in the
bundle sys.executable is this program, so it runs CODE the way Python would.
"""

import sys

if len(sys.argv) > 2 and sys.argv[1] == "-c":
    exec(compile(sys.argv[2], "<portfolio worker>", "exec"))  # noqa: S102 (our own code string)
    sys.exit(0)

from ctadesk.cli import main  # noqa: E402

sys.exit(main())
