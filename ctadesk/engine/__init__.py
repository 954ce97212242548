"""The engine: pure numpy/scipy/solvers, no Qt and no file formats."""
