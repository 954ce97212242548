"""Entry point of the bundled app: the same as the `ctadesk` command.

In the bundle sys.executable is this program, not a Python interpreter, and two kinds of
child process start it again:
* multiprocessing's spawn workers and resource tracker (the audit's parallel LPs,
  ctadesk/engine/audit/parallel.py): multiprocessing.freeze_support() runs them and exits
  (PyInstaller's runtime hook makes it do so on every platform);
* the MILP portfolio's heuristic process (ctadesk/engine/senses/portfolio.py), started as
  ``sys.executable -c CODE``: CODE is run the way Python would run it.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    if len(sys.argv) > 2 and sys.argv[1] == "-c":
        code = sys.argv[2]
        sys.argv = ["-c", *sys.argv[3:]]
        exec(compile(code, "<string>", "exec"), {"__name__": "__main__"})  # the portfolio's own code
        sys.exit(0)

    from ctadesk.cli import console

    console()
