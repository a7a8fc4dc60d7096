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


def live_stat(pid):
    """The fields of /proc/PID/stat after the command name, or None when the process is gone or a zombie (one that
    init has not reaped yet)."""
    try:
        with open('/proc/%s/stat' % pid, encoding='utf-8', errors='replace') as handle:
            fields = handle.read().rsplit(') ', 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] in ('Z', 'X', 'x') else fields


def live_members(pgids):
    """The live processes of any of these process groups, from one pass over /proc."""
    members = []
    for entry in os.listdir('/proc'):
        fields = live_stat(entry) if entry.isdigit() else None
        if fields is not None and int(fields[2]) in pgids:
            members.append(int(entry))
    return members


def group_members(pgid):
    """The live processes of a process group."""
    return live_members({pgid})


def _signal_group(pgid, signum):
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        pass


def _wait_until_gone(pgids, seconds):
    """The live members of the groups once none is left, or after ``seconds``."""
    deadline = time.monotonic() + seconds
    while live_members(pgids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return live_members(pgids)


def stop_process_groups(base_dir, timeout=STOP_TIMEOUT):
    """Stops what an instance of the role runs in ``base_dir`` as the role's stop does (tasks/stopped.yml), without a
    playbook: SIGTERM to the process group of each pid file (Ironic's first, then its database server's), SIGKILL to
    what is left after ``timeout`` seconds, then the pid files removed. Raises when a group survives SIGKILL."""
    for patterns in PID_FILE_ORDER:
        pid_files = sorted(path for pattern in patterns for path in glob.glob(os.path.join(str(base_dir), pattern)))
        groups = set()
        for path in pid_files:
            with open(path, encoding='utf-8') as handle:
                text = handle.read().strip()
            if text.isdigit() and group_members(int(text)):
                groups.add(int(text))
                _signal_group(int(text), signal.SIGTERM)
        if _wait_until_gone(groups, timeout):
            for pgid in groups:
                _signal_group(pgid, signal.SIGKILL)
            survivors = _wait_until_gone(groups, 5)
            if survivors:
                raise RuntimeError('processes %s of %s survived SIGKILL' % (survivors, base_dir))
        for path in pid_files:
            os.remove(path)
