# -*- coding: utf-8 -*-
"""The real Redfish protocol: nodes of the redfish hardware type driven by Ironic through sushy-tools' emulator
(tests/integration/redfish.py), which refuses a wrong password and can stop answering for real."""

import time
import uuid

import pytest

from dedicated import result_of, start_module


@pytest.fixture
def bmc_node(ironic, redfish_bmc, run_module):
    """A Redfish BMC with one system, and a node enrolled by the module to drive it; the node is deleted after the
    test (in maintenance, so that a dead BMC does not stop the deletion)."""
    bmc = redfish_bmc()
    name = 'redfish-%s' % uuid.uuid4().hex[:10]
    result = run_module('baremetal_node', name=name, driver='redfish', driver_info=bmc.driver_info())
    assert not result.get('failed'), result.get('msg')
    yield bmc, result['node']
    wait_for_power_action(ironic, name)
    ironic.api('PUT', '/nodes/%s/maintenance' % name, {'reason': 'test cleanup'}, expect=None)
    ironic.api('DELETE', '/nodes/%s' % name, expect=None)


def wait_for_power_action(ironic, name, seconds=120):
    deadline = time.monotonic() + seconds
    while ironic.api('GET', '/nodes/%s' % name)['target_power_state'] is not None:
        assert time.monotonic() < deadline, 'Ironic is still powering node %s' % name
        time.sleep(0.5)


def test_enroll_and_verify_reads_the_power_state_through_the_bmc(ironic, run_module, bmc_node):
    bmc, node = bmc_node
    assert node['provision_state'] == 'enroll' and node['power_state'] is None

    result = run_module('baremetal_provision_state', node=node['name'], state='manageable')

    assert not result.get('failed'), result.get('msg')
    assert result['node']['provision_state'] == 'manageable'
    # Verification read the power state from the emulator: Ironic had none before.
    assert ironic.api('GET', '/nodes/%s' % node['uuid'])['power_state'] == 'power off'
    assert '"GET /redfish/v1/Systems/%s HTTP/1.1" 200' % bmc.system_ids[0] in bmc.log()


def test_verify_with_a_wrong_password_fails_with_the_bmc_refusal(ironic, run_module, redfish_bmc, fresh_node):
    bmc = redfish_bmc()
    wrong = 'Zq-wrong-%s' % uuid.uuid4().hex
    node = fresh_node(driver='redfish', driver_info=bmc.driver_info(password=wrong))

    result = run_module('baremetal_provision_state', node=node['name'], state='manageable')

    assert result.get('failed')
    assert node['name'] in result['msg'] and '401' in result['msg'], result['msg']
    assert ironic.api('GET', '/nodes/%s' % node['uuid'])['provision_state'] == 'enroll'
    # The node is back where it was (only its last_error changed): no change, before true.
    assert result['changed'] is False and [(t['from'], t['to']) for t in result['transitions']] == [('enroll', 'enroll')]
    assert wrong not in str(result)


def warnings(result):
    """The texts of a module result's warnings (ansible-core 2.19 and later hand them over as WarningSummary objects)."""
    return [warning if isinstance(warning, str) else warning['event']['msg'] for warning in result.get('warnings') or []]


def test_a_corrected_password_that_on_create_keeps_is_warned_of_and_always_writes_it(run_module, redfish_bmc, fresh_node):
    bmc = redfish_bmc()
    wrong = 'Zq-wrong-%s' % uuid.uuid4().hex
    node = fresh_node(driver='redfish', driver_info=bmc.driver_info(password=wrong))
    quiet = run_module('baremetal_node', name=node['name'], driver='redfish', driver_info=bmc.driver_info(password=wrong))
    assert quiet['changed'] is False and warnings(quiet) == []  # an ordinary rerun says nothing
    assert run_module('baremetal_provision_state', node=node['name'], state='manageable')['failed']

    # The rerun with the right password, on_create: the stored one is kept, and the task says so (before: nothing).
    rerun = run_module('baremetal_node', name=node['name'], driver='redfish', driver_info=bmc.driver_info())
    assert not rerun.get('failed') and rerun['changed'] is False, rerun.get('msg')
    (warning,) = warnings(rerun)
    assert warning.startswith('node %s: its BMC refused the credentials Ironic holds' % node['name'])
    assert 'returned code 401' in warning and 'set update_secrets to always to write it' in warning
    # Also when the same task goes on to move it, and fails doing so.
    moved = run_module('baremetal_node', name=node['name'], driver='redfish', driver_info=bmc.driver_info(),
                       provision_state='manageable')
    assert moved['failed'] and warnings(moved) == [warning] and moved['changed'] is False
    assert wrong not in str([rerun, moved]) and bmc.password not in str([rerun, moved])

    fixed = run_module('baremetal_node', name=node['name'], driver='redfish', driver_info=bmc.driver_info(),
                       update_secrets='always', provision_state='manageable')
    assert not fixed.get('failed'), fixed.get('msg')
    assert fixed['node']['provision_state'] == 'manageable' and warnings(fixed) == []
    assert warnings(run_module('baremetal_node', name=node['name'], driver='redfish', driver_info=bmc.driver_info())) == []


def test_power_on_and_off_reach_the_emulated_system(ironic, run_module, bmc_node):
    bmc, node = bmc_node
    for state, reached, emulated in (('powered_on', 'power on', 'On'), ('powered_off', 'power off', 'Off')):
        result = run_module('baremetal_power', node=node['name'], state=state, timeout=120)
        assert not result.get('failed'), result.get('msg')
        assert result['changed'] is True and result['node']['power_state'] == reached
        assert bmc.power_state() == emulated

        mark = ironic.log_mark()
        assert run_module('baremetal_power', node=node['name'], state=state)['changed'] is False
        assert ironic.write_requests_since(mark) == []


def test_a_bmc_that_stops_answering_mid_action_fails_the_task_with_why(ironic, bmc_node, tmp_path):
    bmc, node = bmc_node
    task = start_module(ironic, tmp_path, module='baremetal_power', node=node['name'], state='powered_on', timeout=120)
    # The emulator applies a power change 1 to 11 s after accepting it, and Ironic reads the power state until
    # then: killed once it has accepted the reset, the BMC stops answering while Ironic waits for the new state.
    deadline = time.monotonic() + 60
    while 'ComputerSystem.Reset' not in bmc.log():
        assert time.monotonic() < deadline and task.poll() is None, bmc.log()[-2000:]
        time.sleep(0.05)
    bmc.stop()

    result = result_of(task)

    assert result.get('failed'), result
    assert "node %s: Ironic could not 'power on' it" % node['name'] in result['msg'], result['msg']
    assert 'Connection refused' in result['msg'] or 'Unable to connect' in result['msg'], result['msg']
    assert bmc.password not in str(result)
