"""The PySide6 desktop application: builds requests, runs the engine in a worker, shows results."""
