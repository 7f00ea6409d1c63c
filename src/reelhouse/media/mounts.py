"""Mount tables: which file system a path lives on, and whether it can be watched.

Realtime monitoring relies on inotify, which only reports changes made through
this machine's kernel. On a network or shared file system (NFS, SMB, sshfs,
rclone, a VM's shared folder) changes made by other machines never arrive, so
a monitor there would look healthy while missing everything; those roots are
reported ``unsupported`` instead of watched.

Classification (:func:`watch_support`):

- Network and shared file systems (:data:`NETWORK_FS_TYPES`, plus FUSE file
  systems named in :data:`NETWORK_FUSE_SUBTYPES`) are unsupported with reason
  ``network_fs``.
- Every other FUSE file system (``fuse``, ``fuse.*``) is unsupported with
  reason ``unknown``: the daemon behind it can change content without the
  kernel seeing it, and we cannot tell which ones do. This includes
  ``fuse.mergerfs``: writes made through the pool are seen, but the usual
  setup also writes to the branches directly (downloaders, other containers),
  which inotify on the pool never reports. ``fuseblk`` (ntfs-3g, exfat-fuse on
  a local block device) is the exception: all writes go through this kernel.
- Anything else is assumed to be a local kernel file system and supported;
  unknown names default to supported because remote ones are the enumerable
  minority.

Everything here is pure: it parses text handed to it and reads no files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

REASON_NETWORK_FS = "network_fs"
REASON_UNKNOWN = "unknown"

NETWORK_FS_TYPES: frozenset[str] = frozenset(
    {
        "nfs", "nfs4", "cifs", "smb", "smb2", "smb3", "smbfs", "ncpfs",
        "afs", "coda", "ceph", "glusterfs", "lustre", "gpfs", "beegfs",
        "orangefs", "pvfs2", "ocfs2", "gfs2", "9p", "virtiofs", "vboxsf",
        "vmhgfs", "davfs", "webdav", "sshfs", "curlftpfs", "s3fs",
    }
)  # fmt: skip
"""Network, cluster and host-shared file systems: other machines write to them."""

NETWORK_FUSE_SUBTYPES: frozenset[str] = frozenset(
    {
        "sshfs", "rclone", "s3fs", "gcsfuse", "goofys", "juicefs", "davfs",
        "davfs2", "glusterfs", "cephfs", "ceph-fuse", "curlftpfs", "smbnetfs",
        "vmhgfs-fuse", "blobfuse", "blobfuse2", "mountpoint-s3", "seaweedfs",
    }
)  # fmt: skip
"""FUSE subtypes (the part after ``fuse.``) that are network backed."""

LOCAL_FUSE_TYPES: frozenset[str] = frozenset({"fuseblk"})
"""FUSE types that sit on a local block device: every write goes through this kernel."""

_OCTAL_ESCAPE = re.compile(r"\\([0-7]{3})")
_MOUNTINFO_MIN_FIELDS = 6  # id, parent, major:minor, root, mount point, options


@dataclass(frozen=True, slots=True)
class Mount:
    """One mount: where it is, its file system type and what is mounted."""

    mount_point: str
    fs_type: str
    source: str


@dataclass(frozen=True, slots=True)
class WatchSupport:
    """Whether inotify sees every change on a file system type.

    ``reason_code`` (``network_fs`` or ``unknown``) and ``message`` are set
    only when unsupported.
    """

    supported: bool
    reason_code: str | None = None
    message: str | None = None


def unescape_mount_field(field: str) -> str:
    """Undo the kernel's octal escapes (``\\040`` space, ``\\011`` tab,
    ``\\012`` newline, ``\\134`` backslash) in a mount table field."""
    return _OCTAL_ESCAPE.sub(lambda match: chr(int(match.group(1), 8)), field)


def parse_mountinfo(text: str) -> list[Mount]:
    """Parse ``/proc/self/mountinfo`` text into mounts, in table order.

    Line format: ``id parent major:minor root mount_point options
    [optional fields...] - fs_type source super_options``. Optional fields
    (``shared:1``, ``master:2``...) may be absent or repeated; the lone ``-``
    ends them. Malformed lines are skipped rather than failing the table,
    because one odd line must not turn monitoring off for every root.
    """
    mounts: list[Mount] = []
    for line in text.splitlines():
        mount = _parse_mountinfo_line(line)
        if mount is not None:
            mounts.append(mount)
    return mounts


def _parse_mountinfo_line(line: str) -> Mount | None:
    fields = line.split()
    try:
        separator = fields.index("-", _MOUNTINFO_MIN_FIELDS)
    except ValueError:
        return None
    after = fields[separator + 1 :]
    if not after:
        return None
    source = after[1] if len(after) > 1 else ""
    return Mount(
        mount_point=unescape_mount_field(fields[4]),
        fs_type=unescape_mount_field(after[0]),
        source=unescape_mount_field(source),
    )


def mount_for(path: str, mounts: Sequence[Mount]) -> Mount | None:
    """The mount holding ``path``: the longest mount point that is ``path``
    or one of its ancestors, compared by whole path components (``/mnt/media``
    does not hold ``/mnt/media2``).

    ``path`` should be absolute and already resolved (symbolic links
    followed); it is only normalised lexically here. When several mounts share
    a mount point the last one in the table wins: it is stacked on top and
    hides the others. ``None`` when nothing matches (a relative path or an
    empty table).
    """
    target = PurePosixPath(path)
    best: Mount | None = None
    best_depth = -1
    for mount in mounts:
        point = PurePosixPath(mount.mount_point)
        if not _is_within(target, point):
            continue
        depth = len(point.parts)
        if depth >= best_depth:
            best, best_depth = mount, depth
    return best


def _is_within(path: PurePosixPath, ancestor: PurePosixPath) -> bool:
    return path == ancestor or ancestor in path.parents


def watch_support(fs_type: str) -> WatchSupport:
    """Whether changes on a file system of type ``fs_type`` (as written in the
    mount table, e.g. ``nfs4``, ``fuse.rclone``) are reported by inotify.

    See the module docstring for the rules; matching ignores case.
    """
    name = fs_type.strip().lower()
    if name in NETWORK_FS_TYPES:
        return _network(fs_type)
    if name in LOCAL_FUSE_TYPES:
        return WatchSupport(supported=True)
    if name == "fuse" or name.startswith("fuse."):
        subtype = name.removeprefix("fuse").removeprefix(".")
        if subtype in NETWORK_FUSE_SUBTYPES:
            return _network(fs_type)
        return WatchSupport(
            supported=False,
            reason_code=REASON_UNKNOWN,
            message=(
                f"{fs_type} is a FUSE file system: changes made behind it "
                "are not reported, so realtime monitoring is off"
            ),
        )
    return WatchSupport(supported=True)


def _network(fs_type: str) -> WatchSupport:
    return WatchSupport(
        supported=False,
        reason_code=REASON_NETWORK_FS,
        message=(
            f"{fs_type} is a network file system: changes made on other "
            "machines are not reported, so realtime monitoring is off"
        ),
    )

