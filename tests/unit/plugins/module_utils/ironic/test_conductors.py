# -*- coding: utf-8 -*-
"""Which conductors are dead: only what Ironic reports, once the task saw heartbeats recorded."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.conductors import ConductorWatch, unproven_death


def conductor(hostname, alive, updated_at, group=''):
    return {'hostname': hostname, 'conductor_group': group, 'alive': alive, 'updated_at': updated_at}


def test_a_conductor_ironic_reports_dead_is_not_dead_before_any_heartbeat_was_seen():
    # A single-process Ironic on SQLite: its only conductor reads dead, and its heartbeat never moves.
    watch = ConductorWatch()
    for _read in range(3):
        read = watch.read([conductor('localhost', False, '2026-11-26T00:36:15')])
        assert read['localhost']['dead'] is False and read['localhost']['alive'] is False
    assert not watch.heartbeats_seen


def test_a_conductor_ironic_reports_dead_is_dead_once_a_live_ones_heartbeat_advanced():
    watch = ConductorWatch()
    first = watch.read([conductor('c1', False, 'T1'), conductor('c2', True, 'T1')])
    assert not first['c1']['dead']
    second = watch.read([conductor('c1', False, 'T1'), conductor('c2', True, 'T2')])
    assert second['c1']['dead'] and not second['c2']['dead']
    # The evidence holds for the rest of the task: heartbeats are recorded by this Ironic.
    assert watch.read([conductor('c1', False, 'T1'), conductor('c2', True, 'T2')])['c1']['dead']


def test_a_restart_that_moves_a_dead_reading_conductors_updated_at_is_no_heartbeat():
    # On SQLite a conductor that starts again registers again, which sets its updated_at: it read dead before.
    watch = ConductorWatch()
    watch.read([conductor('c1', False, 'T0'), conductor('c2', False, 'T0')])
    read = watch.read([conductor('c1', True, 'T9'), conductor('c2', False, 'T0')])
    assert not watch.heartbeats_seen and not read['c2']['dead']


def test_a_conductor_on_a_json_rpc_port_is_named_by_its_bare_host_too_where_no_takeover_finds_its_nodes():
    read = ConductorWatch().read([conductor('127.0.0.2:8090', True, 'T'), conductor('[::1]:8090', True, 'T'),
                                  conductor('conductor-3', True, 'T')])
    assert sorted(read) == ['127.0.0.2', '127.0.0.2:8090', '::1', '[::1]:8090', 'conductor-3']
    assert read['127.0.0.2']['hostname'] == '127.0.0.2:8090'
    assert [name for name, entry in sorted(read.items()) if entry['taken_over']] == [
        '127.0.0.2:8090', '[::1]:8090', 'conductor-3']


def test_only_an_unproven_death_is_explained():
    assert unproven_death(None) == ''
    assert unproven_death(dict(conductor('c1', True, 'T'), dead=False)) == ''
    assert unproven_death(dict(conductor('c1', False, 'T'), dead=True)) == ''
    assert unproven_death(dict(conductor('c1', False, None), dead=False)).startswith(
        " Ironic reports its conductor c1 not alive (last heartbeat never), but no conductor's heartbeat advanced")
