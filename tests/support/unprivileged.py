"""Real permission checks on real files, whoever runs the tests.

A device node that udev has not yet given to its group, or a user not in that group, makes the
kernel answer EACCES to ``open()``. Tests make that happen with a real file whose mode they
change; but root passes every mode check (CAP_DAC_OVERRIDE), so run as root the test would
never see the refusal. :func:`unprivileged_files` gives the calling thread the file access of
an ordinary user: as root, its filesystem user and group become ``nobody``'s (setfsuid(2),
setfsgid(2): per thread, and the change drops the filesystem capabilities with it,
capabilities(7)); as anyone else, nothing changes. :func:`shared_folder` is where such a
thread may work: files it makes there are its own, so it may change their mode."""

from __future__ import annotations

import ctypes
import os
import pwd
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _nobody() -> tuple[int, int]:
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return 65534, 65534
    return entry.pw_uid, entry.pw_gid


@contextmanager
def shared_folder() -> Iterator[Path]:
    """A fresh directory an ordinary user may work in (outside pytest's tmp_path, which is
    root's alone when root runs the tests), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="boardctl-unprivileged-"))
    try:
        if os.geteuid() == 0:
            uid, gid = _nobody()
            os.chown(folder, uid, gid)
            folder.chmod(0o755)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def unprivileged_files() -> Iterator[None]:
    """This thread's file access as an ordinary user's: a file whose mode shuts its owner out
    is refused by the kernel (EACCES), root or not. Keep it around the code under test only:
    as root, the thread can then read no file but the world's (not Python's own library under
    a root-only home: an import that is not done yet fails), and threads started inside keep
    the user's access for good."""
    if os.geteuid() != 0:
        yield
        return
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = _nobody()
    libc.setfsgid(gid)
    libc.setfsuid(uid)
    try:
        if libc.setfsuid(ctypes.c_uint(0xFFFFFFFF)) != uid:  # -1: asks, changes nothing
            pytest.fail("setfsuid did not take: the test cannot drop root's file access")
        yield
    finally:
        libc.setfsuid(0)
        libc.setfsgid(0)
