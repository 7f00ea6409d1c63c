from __future__ import annotations

import pytest

from reelhouse.media.mounts import (
    REASON_NETWORK_FS,
    REASON_UNKNOWN,
    Mount,
    mount_for,
    parse_mountinfo,
    unescape_mount_field,
    watch_support,
)

# Real lines, as the kernel writes them (escapes included).
MOUNTINFO = """\
22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro
23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
30 22 0:26 / /tmp rw,nosuid,nodev shared:14 - tmpfs tmpfs rw,size=8073600k
41 22 0:44 / /mnt/nas rw,relatime shared:30 - nfs4 nas.lan:/export/media rw,vers=4.2,addr=10.0.0.5
42 22 0:45 / /mnt/win\\040share rw,relatime shared:31 - cifs //server/My\\040Films rw,vers=3.1.1
43 22 0:46 / /mnt/cloud rw,nosuid,nodev,relatime shared:32 - fuse.rclone gdrive: rw,user_id=0
44 22 0:47 / /var/lib/docker/overlay2/abc/merged rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u
45 22 0:48 / /mnt/media rw,relatime shared:33 master:7 - btrfs /dev/sda1 rw,space_cache=v2
46 45 0:49 / /mnt/media/pool rw,relatime shared:34 - fuse.mergerfs disk1:disk2 rw,user_id=0
47 22 0:50 / /mnt/tab\\011and\\134slash rw,relatime - xfs /dev/sdb1 rw
48 22 0:51 /sub /mnt/ntfs rw,relatime - fuseblk /dev/sdc1 rw,user_id=0
"""


def test_parse_mountinfo_reads_every_well_formed_line_in_order() -> None:
    mounts = parse_mountinfo(MOUNTINFO)
    assert [m.mount_point for m in mounts] == [
        "/",
        "/proc",
        "/tmp",
        "/mnt/nas",
        "/mnt/win share",
        "/mnt/cloud",
        "/var/lib/docker/overlay2/abc/merged",
        "/mnt/media",
        "/mnt/media/pool",
        "/mnt/tab\tand\\slash",
        "/mnt/ntfs",
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "41 22 0:44 / /mnt/nas rw,relatime shared:30 - nfs4 nas.lan:/export/media rw",
            Mount("/mnt/nas", "nfs4", "nas.lan:/export/media"),
        ),
        (
            "42 22 0:45 / /mnt/win\\040share rw - cifs //server/My\\040Films rw",
            Mount("/mnt/win share", "cifs", "//server/My Films"),
        ),
        (
            "43 22 0:46 / /mnt/cloud rw - fuse.rclone gdrive: rw,user_id=0",
            Mount("/mnt/cloud", "fuse.rclone", "gdrive:"),
        ),
        (
            "44 22 0:47 / /merged rw - overlay overlay rw,lowerdir=/l",
            Mount("/merged", "overlay", "overlay"),
        ),
        (  # several optional fields before the separator
            "45 22 0:48 / /mnt/media rw shared:33 master:7 propagate_from:2 - btrfs /dev/sda1 rw",
            Mount("/mnt/media", "btrfs", "/dev/sda1"),
        ),
        (  # a mount point with a newline in its name
            "50 22 0:52 / /mnt/odd\\012name rw - ext4 /dev/sdd1 rw",
            Mount("/mnt/odd\nname", "ext4", "/dev/sdd1"),
        ),
        (  # sshfs the old way: plain "fuse" type, source names the daemon
            "51 22 0:53 / /mnt/ssh rw - fuse sshfs#me@host: rw",
            Mount("/mnt/ssh", "fuse", "sshfs#me@host:"),
        ),
        (  # a mount point containing "-" is not the separator
            "52 22 0:54 / /mnt/- rw - ext4 /dev/sde1 rw",
            Mount("/mnt/-", "ext4", "/dev/sde1"),
        ),
    ],
)
def test_parse_mountinfo_line(line: str, expected: Mount) -> None:
    assert parse_mountinfo(line) == [expected]


@pytest.mark.parametrize(
    "line",
    [
        "",
        "garbage",
        "41 22 0:44 / /mnt/nas rw,relatime shared:30 nfs4 server:/x rw",  # no separator
        "41 22 0:44 / /mnt/nas rw -",  # nothing after the separator
        "41 22 - nfs4 server:/x rw",  # too few fields before it
    ],
)
def test_parse_mountinfo_skips_malformed_lines(line: str) -> None:
    assert parse_mountinfo(line + "\n22 1 259:2 / / rw - ext4 /dev/sda1 rw") == [
        Mount("/", "ext4", "/dev/sda1")
    ]


def test_unescape_mount_field_leaves_unescaped_text_alone() -> None:
    assert unescape_mount_field("/mnt/Filme \u00e4") == "/mnt/Filme \u00e4"
    assert unescape_mount_field("/a\\040b\\134c") == "/a b\\c"


MOUNTS = parse_mountinfo(MOUNTINFO)


@pytest.mark.parametrize(
    ("path", "mount_point"),
    [
        ("/", "/"),
        ("/home/me/Movies", "/"),
        ("/mnt/nas", "/mnt/nas"),
        ("/mnt/nas/Movies/Heat (1995)", "/mnt/nas"),
        ("/mnt/nas2/Movies", "/"),  # component aware: /mnt/nas does not hold /mnt/nas2
        ("/mnt/media/Shows", "/mnt/media"),
        ("/mnt/media/pool/Shows", "/mnt/media/pool"),  # longest prefix wins
        ("/mnt/media/poolside", "/mnt/media"),
        ("/mnt/win share/Films", "/mnt/win share"),
        ("/mnt/nas/./Movies/../Shows", "/mnt/nas"),
    ],
)
def test_mount_for_picks_the_longest_mount_point_by_component(
    path: str, mount_point: str
) -> None:
    mount = mount_for(path, MOUNTS)
    assert mount is not None
    assert mount.mount_point == mount_point


def test_mount_for_prefers_the_last_of_stacked_mounts() -> None:
    mounts = parse_mountinfo(
        "22 1 259:2 / / rw - ext4 /dev/sda1 rw\n"
        "60 22 0:60 / /srv rw - autofs systemd-1 rw\n"
        "61 60 0:61 / /srv rw - nfs4 nas:/srv rw\n"
    )
    mount = mount_for("/srv/media", mounts)
    assert mount is not None
    assert mount.fs_type == "nfs4"


def test_mount_for_without_a_matching_mount_is_none() -> None:
    assert mount_for("/anything", []) is None
    assert mount_for("relative/path", MOUNTS) is None


@pytest.mark.parametrize(
    "fs_type",
    [
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "sshfs", "fuse.sshfs",
        "fuse.rclone", "fuse.s3fs", "fuse.gcsfuse", "9p", "afs", "ceph",
        "glusterfs", "fuse.glusterfs", "davfs", "webdav", "virtiofs", "NFS4",
    ],
)  # fmt: skip
def test_watch_support_rejects_network_file_systems(fs_type: str) -> None:
    support = watch_support(fs_type)
    assert support.supported is False
    assert support.reason_code == REASON_NETWORK_FS
    assert support.message is not None and fs_type in support.message


@pytest.mark.parametrize(
    "fs_type", ["fuse", "fuse.mergerfs", "fuse.bindfs", "fuse.some-new-thing"]
)
def test_watch_support_rejects_other_fuse_file_systems_as_unknown(fs_type: str) -> None:
    support = watch_support(fs_type)
    assert support.supported is False
    assert support.reason_code == REASON_UNKNOWN
    assert support.message is not None and "FUSE" in support.message


@pytest.mark.parametrize(
    "fs_type",
    [
        "ext4", "xfs", "btrfs", "zfs", "tmpfs", "overlay", "f2fs", "vfat",
        "exfat", "ntfs3", "fuseblk", "bcachefs", "some-future-local-fs",
    ],
)  # fmt: skip
def test_watch_support_accepts_local_file_systems(fs_type: str) -> None:
    support = watch_support(fs_type)
    assert support.supported is True
    assert support.reason_code is None
    assert support.message is None


def test_network_and_fuse_mounts_from_a_real_table_are_classified() -> None:
    def support_at(path: str) -> str | None:
        mount = mount_for(path, MOUNTS)
        assert mount is not None
        return watch_support(mount.fs_type).reason_code

    assert support_at("/mnt/nas/Movies") == REASON_NETWORK_FS
    assert support_at("/mnt/win share/Films") == REASON_NETWORK_FS
    assert support_at("/mnt/cloud/Shows") == REASON_NETWORK_FS
    assert support_at("/mnt/media/pool/Shows") == REASON_UNKNOWN
    assert support_at("/mnt/media/Shows") is None
    assert support_at("/var/lib/docker/overlay2/abc/merged/media") is None
    assert support_at("/mnt/ntfs/Films") is None
