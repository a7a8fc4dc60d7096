# -*- coding: utf-8 -*-
"""baremetal_power against a real Ironic: fake-hardware nodes power instantly; a Redfish node whose BMC address is
a closed loopback port is a node Ironic really tries, and fails, to power."""

import socket
import time

import pytest


def closed_loopback_url():
    """A Redfish address nothing listens on: a port that was free a moment ago, on loopback only."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return 'http://127.0.0.1:%d' % sock.getsockname()[1]


def power_of(ironic, node):
    current = ironic.api('GET', '/nodes/%s' % node['uuid'])
    return current['power_state'], current['target_power_state']


def wait_until_ironic_gives_up(ironic, node, seconds=120):
    """Ironic keeps retrying an unreachable BMC for a while after the task has returned; let it finish."""
    deadline = time.monotonic() + seconds
    while power_of(ironic, node)[1] is not None:
        assert time.monotonic() < deadline, 'Ironic is still trying to power node %s' % node['name']
        time.sleep(0.5)


@pytest.fixture
def unreachable_node(ironic, fresh_node):
    node = fresh_node(driver='redfish', driver_info={'redfish_address': closed_loopback_url(),
                                                     'redfish_username': 'admin', 'redfish_password': 'unused'})
    yield node
    wait_until_ironic_gives_up(ironic, node)


@pytest.mark.smoke
@pytest.mark.parametrize('state, reached', [('powered_on', 'power on'), ('powered_off', 'power off'),
                                            ('soft_powered_off', 'power off')])
def test_on_and_off_are_reached_and_idempotent(ironic, run_module, fresh_node, state, reached):
    node = fresh_node()
    result = run_module('baremetal_power', diff=True, node=node['name'], state=state)
    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is True
    assert result['diff'] == {'before': {'power_state': None}, 'after': {'power_state': reached}}
    assert result['node']['power_state'] == reached and result['node']['target_power_state'] is None
    assert power_of(ironic, node) == (reached, None)

    mark = ironic.log_mark()
    for check in (True, False):
        again = run_module('baremetal_power', check=check, node=node['uuid'], state=state)
        assert again['changed'] is False
    assert ironic.write_requests_since(mark) == []


@pytest.mark.smoke
@pytest.mark.parametrize('state', ['rebooted', 'soft_rebooted'])
def test_reboots_always_report_a_change_and_end_powered_on(ironic, run_module, fresh_node, state):
    node = fresh_node()
    ironic.api('PUT', '/nodes/%s/states/power' % node['uuid'], {'target': 'power on'})
    for run in ('first', 'second'):
        mark = ironic.log_mark()
        result = run_module('baremetal_power', node=node['name'], state=state)
        assert result['changed'] is True and result['node']['power_state'] == 'power on', run
        writes = ironic.write_requests_since(mark)
        assert [(request.method, request.path) for request in writes] == [
            ('PUT', '/v1/nodes/%s/states/power' % node['uuid'])]
    assert power_of(ironic, node) == ('power on', None)


def test_check_mode_reports_the_change_and_does_not_act(ironic, run_module, fresh_node):
    node = fresh_node()
    mark = ironic.log_mark()
    for state in ('powered_on', 'rebooted', 'soft_rebooted'):
        assert run_module('baremetal_power', check=True, node=node['name'], state=state)['changed'] is True
    assert ironic.write_requests_since(mark) == []
    assert power_of(ironic, node) == (None, None)


def test_a_node_ironic_cannot_power_fails_with_ironics_reason(ironic, run_module, unreachable_node):
    result = run_module('baremetal_power', node=unreachable_node['name'], state='powered_on', timeout=120)
    assert result['failed'] is True and result['changed'] is False
    assert "Ironic could not 'power on' it" in result['msg']
    assert unreachable_node['driver_info']['redfish_address'] in result['msg']  # Ironic's own words
    assert 'Check the BMC address and credentials in driver_info' in result['msg']
    assert power_of(ironic, unreachable_node) == (None, None)
    assert result['node']['last_error']


def test_a_soft_action_that_does_not_finish_in_time_fails_with_advice(ironic, run_module, unreachable_node):
    result = run_module('baremetal_power', node=unreachable_node['name'], state='soft_powered_off', timeout=1)
    # The task gave up at its timeout, not when Ironic did: Ironic is still trying the unreachable BMC (its target
    # is set until it gives up, wait_until_ironic_gives_up).
    assert power_of(ironic, unreachable_node)[1] is not None
    assert result['failed'] is True
    assert "'soft power off' did not finish within 1 s" in result['msg']
    assert 'state: powered_off to cut the power' in result['msg']
    assert power_of(ironic, unreachable_node)[0] is None


def test_a_name_that_matches_no_node_fails_and_says_how_to_find_it(ironic, run_module):
    mark = ironic.log_mark()
    result = run_module('baremetal_power', node='no-such-node-anywhere', state='powered_on')
    assert result['failed'] is True
    assert "No node is named or has the UUID 'no-such-node-anywhere'" in result['msg']
    assert ironic.write_requests_since(mark) == []


@pytest.mark.parametrize('state', ['powered_off', 'soft_powered_off'])
def test_a_node_that_must_never_be_powered_off_is_refused_with_no_write(ironic, run_module, fresh_node, state):
    node = fresh_node(disable_power_off=True)
    ironic.api('PUT', '/nodes/%s/states/power' % node['uuid'], {'target': 'power on'})
    for check in (True, False):
        mark = ironic.log_mark()
        result = run_module('baremetal_power', check=check, node=node['name'], state=state)
        assert result.get('failed') and result['changed'] is False
        assert 'disable_power_off' in result['msg'] and 'baremetal_node disable_power_off: false' in result['msg']
        assert result['node']['disable_power_off'] is True
        assert ironic.write_requests_since(mark) == []
    assert power_of(ironic, node) == ('power on', None)


def test_a_node_that_must_never_be_powered_off_is_rebooted_as_ironic_allows(ironic, run_module, fresh_node):
    node = fresh_node(disable_power_off=True)
    ironic.api('PUT', '/nodes/%s/states/power' % node['uuid'], {'target': 'power on'})
    result = run_module('baremetal_power', node=node['name'], state='rebooted')
    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is True and power_of(ironic, node) == ('power on', None)
