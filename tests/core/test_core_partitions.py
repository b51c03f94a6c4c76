"""Model ids: what is a valid partition key, and how it becomes a path."""

import pytest

from rl_assets.partitions import InvalidRepoId, slug, unslug, validate_repo_id


@pytest.mark.parametrize("repo_id", ["laion/foo-8B", "rldelta-demo/rl-alpha-20-8B", "a/b", "Org_1/name.v2"])
def test_valid_ids_round_trip_through_slug(repo_id):
    assert validate_repo_id(repo_id) == repo_id
    assert "/" not in slug(repo_id)
    assert unslug(slug(repo_id)) == repo_id


@pytest.mark.parametrize(
    "repo_id, fragment",
    [
        ("bad id", "spaces"),
        ("a/b..c", "'..'"),
        ("a/b--c", "'--'"),
        ("a/b,c", "commas"),
        ("a/b[1]", "brackets"),
        ("noslash", "exactly one '/'"),
        ("a/b/c", "exactly one '/'"),
        ("a/-b", "must start"),
        ("a/b-", "must not end"),
        ("", "empty"),
        ("a/" + "x" * 97, "longer than 96"),
    ],
)
def test_invalid_ids_are_refused_with_the_rule(repo_id, fragment):
    with pytest.raises(InvalidRepoId) as err:
        validate_repo_id(repo_id)
    assert fragment in str(err.value)
    if repo_id:
        assert repr(repo_id)[:20] in str(err.value) or repo_id[:20] in str(err.value)


def test_distinct_ids_never_share_a_slug():
    ids = ["a/b-c", "a-b/c", "ab/c"]
    assert len({slug(i) for i in ids}) == len(ids)
