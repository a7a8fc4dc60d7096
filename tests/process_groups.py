# -*- coding: utf-8 -*-
"""Stopping what the role ironic_standalone started, by the PIDs it recorded, without a playbook: what the tests'
fixtures do at the end of a module or session (tests/conftest.py, IronicInstance.stop)."""

from __future__ import annotations

import glob
import os
import signal
import time

# The role's pid files, each holding the id of a process group it started (setsid), in the order the role's stop
# stops them: Ironic's processes, then the database server they use.
PID_FILE_ORDER = (('ironic*.pid',), ('postgresql.pid', 'mariadb.pid'))
STOP_TIMEOUT = 15  # seconds from SIGTERM to SIGKILL, the role's default (ironic_standalone_stop_timeout)


def group_members(pgid):
    """The live processes of a process group (a zombie that init has not reaped yet is not one)."""
    members = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry, encoding='utf-8', errors='replace') as handle:
                fields = handle.read().rsplit(') ', 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] not in ('Z', 'X', 'x') and int(fields[2]) == pgid:
            members.append(int(entry))
    return members


def _signal_group(pgid, signum):
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        pass


def stop_process_groups(base_dir, timeout=STOP_TIMEOUT):
    """Stops what an instance of the role runs in ``base_dir`` as the role's stop does (tasks/stopped.yml), without a
    playbook: SIGTERM to the process group of each pid file (Ironic's first, then its database server's), SIGKILL to
    what is left after ``timeout`` seconds, then the pid files removed. Raises when a group survives SIGKILL."""
    for patterns in PID_FILE_ORDER:
        pid_files = sorted(path for pattern in patterns for path in glob.glob(os.path.join(str(base_dir), pattern)))
        groups = []
        for path in pid_files:
            with open(path, encoding='utf-8') as handle:
                text = handle.read().strip()
            if text.isdigit() and group_members(int(text)):
                groups.append(int(text))
                _signal_group(groups[-1], signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while any(group_members(pgid) for pgid in groups) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pgid in groups:
            _signal_group(pgid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while any(group_members(pgid) for pgid in groups) and time.monotonic() < deadline:
            time.sleep(0.1)
        survivors = [pid for pgid in groups for pid in group_members(pgid)]
        if survivors:
            raise RuntimeError('processes %s of %s survived SIGKILL' % (survivors, base_dir))
        for path in pid_files:
            os.remove(path)
