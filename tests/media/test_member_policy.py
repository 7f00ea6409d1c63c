"""The effective UserPolicy rules (pure)."""

from __future__ import annotations

from reelhouse.media.member_policy import MemberFacts, effective_policy, library_scope

LIBRARIES = ["L1", "L2", "L3"]


def facts(*, admin: bool = False, policy: dict | None = None, granted: tuple[str, ...] = ()) -> MemberFacts:
    return MemberFacts(is_admin=admin, disabled=False, hidden=False, policy=policy or {}, granted_libraries=granted)


def test_administrators_see_every_library_and_may_download() -> None:
    policy = effective_policy(facts(admin=True, policy={"allowDownload": False}), LIBRARIES)
    assert policy["accessibleLibraries"] == LIBRARIES and policy["allLibraries"] is True
    assert policy["allowDownload"] is True
    assert library_scope(facts(admin=True)).library_ids is None


def test_all_libraries_lists_every_library_including_later_ones() -> None:
    member = facts(policy={"allLibraries": True}, granted=("L1",))
    assert effective_policy(member, LIBRARIES)["accessibleLibraries"] == LIBRARIES
    assert library_scope(member).allows("a library made tomorrow")


def test_a_member_sees_only_granted_libraries_that_exist() -> None:
    member = facts(granted=("L2", "gone"))
    policy = effective_policy(member, LIBRARIES)
    assert policy["accessibleLibraries"] == ["L2"] and policy["allLibraries"] is False
    scope = library_scope(member)
    assert scope.allows("L2") and not scope.allows("L1")


def test_allow_download_is_false_under_parental_controls_unless_set() -> None:
    assert effective_policy(facts(), LIBRARIES)["allowDownload"] is True
    assert effective_policy(facts(policy={"parental": {"maxAge": 12}}), LIBRARIES)["allowDownload"] is False
    allowed = facts(policy={"parental": {"maxAge": 12}, "allowDownload": True})
    assert effective_policy(allowed, LIBRARIES)["allowDownload"] is True
    assert effective_policy(allowed, LIBRARIES)["parental"] == {  # the rule as normalised
        "maxAge": 12, "blockedTags": [], "blockedGenres": [], "blockedItems": [], "allowedItems": [],
        "dailyLimitMinutes": 0, "windows": [],
    }  # fmt: skip
