"""ctadesk: controlled tabular adjustment for statistical offices."""

#: the one place the version is kept: the wheel (pyproject's dynamic version), `ctadesk --version`,
#: the About box and the installer read it from here
__version__ = "0.1.0"
