"""`python -m ctadesk` behaves like the `ctadesk` command."""

from ctadesk.cli import console

if __name__ == "__main__":
    console()
