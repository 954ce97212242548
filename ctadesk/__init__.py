"""ctadesk: controlled tabular adjustment for statistical offices."""

__version__ = "0.1.0"
