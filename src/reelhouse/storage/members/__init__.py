"""Members: accounts, password and PIN hashing, and the views the API and command line need.

``_accounts`` adds and lists members and hashes secrets (argon2id; old
``scrypt$`` hashes still verify and are rehashed on sign-in); ``_views``
reads what a User response needs besides the row and applies ``user set``.
"""

from ._accounts import (
    ARGON2_MEMORY_KIB,
    ARGON2_PARALLELISM,
    ARGON2_TIME_COST,
    UserRecord,
    add_user,
    find_user_by_name,
    get_user,
    hash_password,
    list_users,
    needs_rehash,
    rehash_if_needed,
    verify_dummy,
    verify_password,
)
from ._views import (
    Credentials,
    MemberChanges,
    MemberView,
    credentials_by_name,
    get_member,
    library_ids,
    list_members,
    note_login,
    update_member,
)

__all__ = [
    "ARGON2_MEMORY_KIB",
    "ARGON2_PARALLELISM",
    "ARGON2_TIME_COST",
    "Credentials",
    "MemberChanges",
    "MemberView",
    "UserRecord",
    "add_user",
    "credentials_by_name",
    "find_user_by_name",
    "get_member",
    "get_user",
    "hash_password",
    "library_ids",
    "list_members",
    "list_users",
    "needs_rehash",
    "note_login",
    "rehash_if_needed",
    "update_member",
    "verify_dummy",
    "verify_password",
]
