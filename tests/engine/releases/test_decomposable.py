"""The decomposability test (maximum cardinality search and running intersection) and the
perfect sequences it returns."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ctadesk.engine.releases import Release, is_decomposable, perfect_sequence
from ctadesk.engine.releases.decomposable import graph_release, maximal_cliques

A, B, C, D = 0, 1, 2, 3


def release(*subtables, n_axes=4):
    return Release.of(n_axes, subtables)


def test_three_cycle_is_not_decomposable():
    assert not is_decomposable(release({A, B}, {B, C}, {A, C}))


def test_path_is_decomposable_with_its_separator():
    sequence = perfect_sequence(release({A, B}, {B, C}).frontier)
    assert sequence is not None and sequence.separators == (frozenset({B}),)


def test_four_cycle_is_not_decomposable_and_a_chord_makes_it_so():
    assert not is_decomposable(release({A, B}, {B, C}, {C, D}, {A, D}))
    assert is_decomposable(release({A, B, C}, {A, C, D}))


def test_triangle_inside_a_released_three_way_table_is_decomposable():
    assert is_decomposable(release({A, B}, {B, C}, {A, C}, {A, B, C}))


def test_unconnected_parts_have_an_empty_separator():
    assert perfect_sequence(release({A, B}, {C}).frontier).separators == (frozenset(),)


def _acyclic_by_definition(edges: list[frozenset[int]], n: int) -> bool:
    """Conformal with a chordal 2-section, by brute force over vertex subsets."""
    adjacent = {frozenset((u, v)) for e in edges for u in e for v in e if u != v}
    vertices = sorted(set().union(*edges))
    for size in range(4, len(vertices) + 1):
        for subset in itertools.combinations(vertices, size):
            degrees = [sum(frozenset((u, v)) in adjacent for v in subset if v != u) for u in subset]
            if all(d == 2 for d in degrees) and _connected(subset, adjacent):
                return False                                    # a chordless cycle
    cliques = maximal_cliques(vertices, adjacent)
    return all(any(clique <= e for e in edges) for clique in cliques)


def _connected(subset, adjacent) -> bool:
    reached, frontier = {subset[0]}, [subset[0]]
    while frontier:
        u = frontier.pop()
        for v in subset:
            if v not in reached and frozenset((u, v)) in adjacent:
                reached.add(v)
                frontier.append(v)
    return len(reached) == len(subset)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sets(st.integers(0, 4), min_size=1, max_size=4), min_size=1, max_size=6))
def test_the_test_agrees_with_the_definition(subtables):
    frontier = Release.of(5, subtables).frontier
    assert (perfect_sequence(frontier) is not None) == _acyclic_by_definition(list(frontier), 5)


def test_the_release_of_a_graph_is_its_maximal_cliques():
    square_with_chord = graph_release(4, range(4), [{A, B}, {B, C}, {C, D}, {A, D}, {A, C}])
    assert square_with_chord.frontier == {frozenset({A, B, C}), frozenset({A, C, D})}
