# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Ironic's conductors as a task reads them over time, and which of them are dead on evidence.

Ironic's API calls a conductor alive while its last heartbeat is younger than ``[conductor]heartbeat_timeout``. That
reading is only as good as the heartbeats: a conductor on SQLite records none (Ironic itself then ignores the
heartbeat, and takes a conductor for offline only once it deregistered), so a single-process Ironic on SQLite reports
its own, working conductor dead from a minute after it starts. A conductor is therefore dead here only when Ironic
reports it so AND this task saw some conductor's heartbeat advance between two of its reads: then heartbeats are
recorded, and a conductor whose own stopped is dead. Without that evidence a conductor is never dead, whatever Ironic
reports: a wrong guess would fail a node that is still moving, and waiting costs nothing but the task's timeout.
The heartbeat must advance while the conductor reads alive on both sides: a conductor on SQLite that restarts also
moves its updated_at (it registers again), and after the first minute it read dead before that.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ConductorWatch(object):
    """Every read of GET /v1/conductors in one task; ``read`` turns a listing into the conductors by name."""

    def __init__(self):
        self._alive_heartbeat = {}  # hostname -> its updated_at at the first read that found it alive
        self.heartbeats_seen = False  # some conductor's heartbeat advanced between two reads of this task

    def read(self, listed):
        """The conductors of a listing (each with hostname, conductor_group, alive, updated_at) by each name a node's
        reservation gives them: {name: dict(conductor, dead=..., taken_over=...)}.

        ``dead``: Ironic reports it not alive and heartbeats are seen to be recorded (see the module's docstring).
        A conductor whose json-rpc port is not the default registers as HOST:PORT but reserves nodes under the bare
        HOST: it is listed under both. ``taken_over`` says whether Ironic's takeover finds the nodes reserved under
        that name once the conductor is dead: it looks for the registered hostname only, so never under the bare HOST.
        """
        for conductor in listed:
            if not conductor.get('alive'):
                self._alive_heartbeat.pop(conductor['hostname'], None)
                continue
            first = self._alive_heartbeat.setdefault(conductor['hostname'], conductor.get('updated_at'))
            if first != conductor.get('updated_at'):
                self.heartbeats_seen = True
        named = {}
        for conductor in listed:
            conductor = dict(conductor, dead=not conductor.get('alive') and self.heartbeats_seen)
            hostname = conductor['hostname']
            host, _colon, port = hostname.rpartition(':')
            if port.isdigit() and (host.startswith('[') or ':' not in host):
                named[host.strip('[]')] = dict(conductor, taken_over=False)
            named[hostname] = dict(conductor, taken_over=True)
        return named


def unproven_death(conductor):
    """What the task makes of a conductor Ironic reports not alive without evidence (a sentence), or '' otherwise."""
    if conductor is None or conductor.get('alive') or conductor.get('dead'):
        return ''
    return (" Ironic reports its conductor %s not alive (last heartbeat %s), but no conductor's heartbeat advanced "
            "while the task read them (an Ironic on SQLite records none), so the task did not take it for dead and "
            "waited." % (conductor['hostname'], conductor.get('updated_at') or 'never'))
