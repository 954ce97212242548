"""What the tests read off published tables: the side of its true value each sensitive cell was
published on, by cell key (the office's view, from the service's own problem)."""

from collections import defaultdict

import numpy as np

from ctadesk.app.online import OnlineService, cell_keys
from ctadesk.app.online.service import TableWithheld


def publish_all(service: OnlineService, tables) -> dict[str, list[tuple[float, float, float, float]]]:
    """Publish ``tables`` in order; per sensitive cell key, one (original, published, lower level,
    upper level) per table it appeared in (a table the service withholds publishes nothing)."""
    seen: dict[str, list[tuple[float, float, float, float]]] = defaultdict(list)
    for spanning in tables:
        structure, problem = service.problem(spanning)
        try:
            values = service.publish(spanning).values
        except TableWithheld:
            continue
        keys = cell_keys(structure)
        for k, i in enumerate(problem.sensitive):
            seen[keys[i]].append((problem.values[i], values[i], problem.lower_protection[k],
                                  problem.upper_protection[k]))
    return seen


def both_sides(seen) -> list[str]:
    """Cells published above their true value in one table and below it in another."""
    tolerance = 1e-9
    crossed = []
    for key, publications in seen.items():
        moves = np.array([published - original for original, published, _, _ in publications])
        scale = tolerance * max(1.0, abs(publications[0][0]))
        if np.any(moves > scale) and np.any(moves < -scale):
            crossed.append(key)
    return crossed
