"""A member's effective policy: what the reference says a User's ``policy`` shows and enforces.

Pure: the caller reads the member and the library ids from the store.
What is stored is only what was set (``users.policy`` JSON, the
``library_access`` rows and three columns); every value returned here is
*effective* -- administrators see every library and may download, a member
under parental controls may not download unless allowed, and so on -- so
the HTTP edge and the access checks never repeat these rules.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from .parental import parental_of

# Keys of users.policy that this server writes (the command line's `user set`).
ALL_LIBRARIES = "allLibraries"
ALLOW_DOWNLOAD = "allowDownload"
PARENTAL = "parental"


@dataclass(frozen=True, slots=True)
class MemberFacts:
    """What the store knows of one member, as the rules need it."""

    is_admin: bool
    disabled: bool
    hidden: bool
    policy: Mapping[str, Any]
    granted_libraries: tuple[str, ...]  # library_access rows of this member


@dataclass(frozen=True, slots=True)
class LibraryScope:
    """Which libraries a member may see: ``None`` ids = every library, now and later."""

    library_ids: frozenset[str] | None

    def allows(self, library_id: str) -> bool:
        return self.library_ids is None or library_id in self.library_ids


def sees_all_libraries(facts: MemberFacts) -> bool:
    """Administrators always see every library; so does a member with allLibraries."""
    return facts.is_admin or bool(facts.policy.get(ALL_LIBRARIES, False))


def library_scope(facts: MemberFacts) -> LibraryScope:
    if sees_all_libraries(facts):
        return LibraryScope(None)
    return LibraryScope(frozenset(facts.granted_libraries))


def effective_policy(facts: MemberFacts, all_library_ids: Collection[str]) -> dict[str, Any]:
    """UserPolicy as the reference shows it: every value effective, accessibleLibraries always present."""
    stored = facts.policy
    everything = sees_all_libraries(facts)
    existing = set(all_library_ids)
    if everything:
        accessible = sorted(existing)
    else:
        accessible = sorted(lib for lib in facts.granted_libraries if lib in existing)
    policy: dict[str, Any] = {
        "isAdmin": facts.is_admin,
        "isDisabled": facts.disabled,
        "isHidden": facts.hidden,
        "accessibleLibraries": accessible,
        "allLibraries": everything,
        "allowDownload": allow_download(facts),
        "castDisabled": bool(stored.get("castDisabled", False)),
        "contentDeletionLibraries": list(stored.get("contentDeletionLibraries", [])),
        "enableContentDeletion": facts.is_admin or bool(stored.get("enableContentDeletion", False)),
        "sessionOnlyLogin": bool(stored.get("sessionOnlyLogin", False)),
    }
    controls = parental_of(stored)
    if controls is not None:
        policy["parental"] = controls.to_json()
    return policy


def allow_download(facts: MemberFacts) -> bool:
    """True for administrators and unrestricted members; false under parental controls when unset."""
    if facts.is_admin:
        return True
    stored = facts.policy.get(ALLOW_DOWNLOAD)
    if stored is not None:
        return bool(stored)
    return not facts.policy.get(PARENTAL)


def plan_access(facts: MemberFacts) -> str:
    """MemberPlanAccess: ``full`` while there is no licence information (and always when disabled)."""
    return "full"
