"""Start bwrap in a user namespace whose sandbox uid is an unprivileged outer uid (runs outside, as root).

`python3 -I dropuid.py UID N FILE... -- COMMAND...`: makes a user namespace mapping inner 0 to root
(bwrap sets the sandbox up as root: it can reach the toolchain under a root-only home) and inner
1000 to the outer UID (what the host runs as, after `setpriv` inside drops every capability);
opens each FILE to read (for a bwrap option that takes an fd, such as `--ro-bind-data`); replaces
`@userns` in COMMAND by the namespace's fd and `@fd:I` by the I-th file's; execs COMMAND.
No workbench import: it is started with `-I` like runner/egress.py.
"""

from __future__ import annotations

import ctypes
import os
import sys

CLONE_NEWUSER = 0x10000000
INNER_UID = 1000


def user_namespace(uid: int) -> int:
    """An fd of a new user namespace: inner 0 -> outer 0, inner INNER_UID -> outer UID (uids and gids)."""
    libc = ctypes.CDLL(None, use_errno=True)
    ready_r, ready_w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the holder: unshares, waits until its maps are written and its namespace is opened
        code = 0 if libc.unshare(CLONE_NEWUSER) == 0 else 1
        os.write(ready_w, b"x")
        os.read(done_r, 1)
        os._exit(code)
    try:
        os.read(ready_r, 1)
        for name in ("uid_map", "gid_map"):
            with open(f"/proc/{pid}/{name}", "w", encoding="ascii") as fh:
                fh.write(f"0 0 1\n{INNER_UID} {uid} 1\n")
        return os.open(f"/proc/{pid}/ns/user", os.O_RDONLY)
    finally:
        os.write(done_w, b"x")
        os.waitpid(pid, 0)
        for fd in (ready_r, ready_w, done_r, done_w):
            os.close(fd)


def main(argv: list[str]) -> int:
    uid, count = int(argv[0]), int(argv[1])
    files, rest = argv[2:2 + count], argv[2 + count:]
    if not rest or rest[0] != "--" or uid <= 0 or os.geteuid() != 0:
        print("dropuid: usage (as root): UID N FILE... -- COMMAND...", file=sys.stderr)
        return 96
    fds = [os.open(path, os.O_RDONLY | os.O_NOFOLLOW) for path in files]
    ns = user_namespace(uid)
    for fd in (*fds, ns):
        os.set_inheritable(fd, True)
    command = [str(ns) if a == "@userns" else str(fds[int(a[4:])]) if a.startswith("@fd:") else a for a in rest[1:]]
    os.execv(command[0], command)
    return 97  # pragma: no cover - execv does not return


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
