"""Paper digests kept between builds: what a rebuild takes of them."""

from __future__ import annotations

import pytest

from confsite.cache.digests import PaperDigests

IDS = ["d", "a", "c", "b"]  # not sorted: the order kept is the dicts' own


def digests_of(ids: list[str]) -> PaperDigests:
    return PaperDigests(
        digests={i: f"digest {i}".encode() for i in ids},
        cards={i: ((f"slug-{i}",), b"brief", b"full") for i in ids},
        inputs_key="inputs",
        structure=b"structure",
        related={i: (f"related {i}",) for i in reversed(ids)},
        build="build",
        records={i: f"record {i}".encode() for i in ids[1:]},  # one paper without
    )


# All but one (the copy with a few dropped), most dropped, none, all and more.
@pytest.mark.parametrize("kept", [{"a", "c", "b"}, {"b"}, set(), {"a", "b", "c", "d", "x"}])
def test_only_keeps_the_given_papers_in_each_dict_s_order(kept: set[str]) -> None:
    made = digests_of(IDS)
    only = made.only(kept)
    for name in ("digests", "cards", "related", "records"):
        given, taken = getattr(made, name), getattr(only, name)
        assert list(taken.items()) == [(i, v) for i, v in given.items() if i in kept]
        assert taken is not given
    assert (only.inputs_key, only.structure, only.build) == ("inputs", b"structure", "build")
    assert made == digests_of(IDS)  # left as it was
