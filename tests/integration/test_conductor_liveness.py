# -*- coding: utf-8 -*-
"""The embedded default, a single-process Ironic on SQLite, reports its own working conductor dead once it has run
for longer than [conductor]heartbeat_timeout (SQLite records no heartbeat). A node that conductor holds for long is
still moving: the task waits and ends with Ironic's own reason, never with a guess about a dead conductor.

The Ironic here has run past its heartbeat_timeout (shortened to 5 s so that takes seconds, not a minute; the reading is
the same) and retries a Redfish BMC that refuses connections for about a minute (the role shortens that for speed).
"""

from __future__ import annotations

import os
import signal
import socket
import time

from dedicated import result_of, start_module

HEARTBEAT_TIMEOUT = 5
# Longer than the engine's grace for a node without progress (engine/waiter.py SUSPECT_AFTER, STRANDED_GRACE).
BMC_STOPPED_SECONDS = 35
# Each of Ironic's connection attempts is sushy's own 10 tries 3 s apart: two attempts (Ironic's default is 5, over two
# minutes) hold the node of a BMC that refuses connections in verifying for about a minute, longer than
# BMC_STOPPED_SECONDS, which the test checks.
REDFISH_RETRIES = {'connection_attempts': 2, 'connection_retry_interval': 4}


def started_sqlite_ironic(make_ironic):
    """A single-process Ironic on SQLite with REDFISH_RETRIES, once its conductor reads dead."""
    ironic = make_ironic()
    ironic.role_vars.update(ironic_standalone_heartbeat_timeout=HEARTBEAT_TIMEOUT,
                            ironic_standalone_config_overrides={'redfish': REDFISH_RETRIES})
    ironic.start()
    deadline = time.monotonic() + 60
    while conductors_read_dead(ironic) != ['localhost']:
        assert time.monotonic() < deadline, 'the conductor never read dead'
        time.sleep(1)
    return ironic


def closed_loopback_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def conductors_read_dead(ironic):
    return [c['hostname'] for c in ironic.api('GET', '/v1/conductors?fields=hostname,alive')['conductors']
            if not c['alive']]


def test_nodes_held_by_a_conductor_ironic_reports_dead_end_as_ironic_ends_them(make_ironic, redfish_bmc, tmp_path):
    """Two tasks at once: a node whose BMC refuses connections (Ironic retries, then fails the verification), and
    one whose BMC is stopped (it accepts connections and answers none) for longer than the engine's grace, then
    goes on (the verification completes)."""
    ironic = started_sqlite_ironic(make_ironic)
    refused = 'refused-%d' % os.getpid()
    refused_task = start_module(
        ironic, tmp_path, module='baremetal_node', name=refused, driver='redfish', provision_state='manageable',
        timeout=600, driver_info={'redfish_address': 'http://127.0.0.1:%d' % closed_loopback_port(),
                                  'redfish_system_id': '/redfish/v1/Systems/1', 'redfish_username': 'admin',
                                  'redfish_password': 'nobody-listens'})

    bmc = redfish_bmc()
    stopped = ironic.api('POST', '/v1/nodes', {'name': 'stopped-bmc-%d' % os.getpid(), 'driver': 'redfish',
                                               'driver_info': bmc.driver_info()})
    mark = ironic.log_mark()
    os.kill(bmc.process.pid, signal.SIGSTOP)
    try:
        stopped_task = start_module(ironic, tmp_path, nodes=[stopped['name']], state='manageable', timeout=600)
        deadline = time.monotonic() + 60
        while not [r for r in ironic.requests_since(mark) if r.method == 'PUT' and r.status == 202
                   and r.path.split('/')[3:5] in ([stopped['name'], 'states'], [stopped['uuid'], 'states'])]:
            assert time.monotonic() < deadline and stopped_task.poll() is None, 'the task never sent manage'
            time.sleep(0.2)
        time.sleep(BMC_STOPPED_SECONDS)
        held = ironic.api('GET', '/v1/nodes/%s' % stopped['uuid'])
        assert held['provision_state'] == 'verifying' and held['reservation'], held
        assert stopped_task.poll() is None, 'the task ended while the conductor still held the node'
        refused_node = ironic.api('GET', '/v1/nodes/%s' % refused)
        assert refused_node['provision_state'] == 'verifying' and refused_node['reservation'], refused_node
        assert refused_task.poll() is None, 'the task ended while the conductor still held the node'
    finally:
        os.kill(bmc.process.pid, signal.SIGCONT)

    result = result_of(stopped_task, timeout=700)
    assert not result.get('failed'), result.get('msg')
    assert result['nodes'][0]['node']['provision_state'] == 'manageable'

    result = result_of(refused_task, timeout=700)
    assert result.get('failed')
    assert 'Connection refused' in result['msg'] or 'connection failed' in result['msg'], result['msg']
    assert 'reports down' not in result['msg'] and 'restart the ironic-conductor' not in result['msg'], result['msg']
    assert ironic.api('GET', '/v1/nodes/%s' % refused)['provision_state'] == 'enroll'
    assert conductors_read_dead(ironic) == ['localhost']  # what Ironic reported all along
