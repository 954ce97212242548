"""Releases are closed downward and held by their frontier."""

from ctadesk.engine.releases import Release, lattice

A, B, C = 0, 1, 2


def test_a_release_holds_every_sub_marginal_of_its_frontier():
    release = Release.of(3, [{A, B}, {B}, {C}])
    assert release.frontier == {frozenset({A, B}), frozenset({C})}
    assert {A} in release and set() in release and {A, C} not in release
    assert len(release) == 5            # [], [A], [B], [AB], [C]


def test_withdrawing_a_sub_table_withdraws_everything_above_it():
    release = Release.everything(3).withdrawing({A, B})
    assert release.frontier == {frozenset({A, C}), frozenset({B, C})}
    assert len(release) == 6


def test_the_releases_below_are_one_sub_table_smaller():
    release = Release.everything(3)
    assert sorted(len(r) for r in release.below()) == [7]
    assert {len(r) for r in Release.of(3, [{A, B}, {C}]).below()} == {4}


def test_the_lattice_has_two_to_the_k_sub_tables():
    assert len(lattice(4)) == 16 and len(Release.everything(4)) == 16
