# -*- coding: utf-8 -*-
"""BMC credential rotation that proves itself: baremetal_node with a new driver_info password and update_secrets:
always checks, right after each node's write, that Ironic can use it with the real BMC (sushy-tools' emulator
behind HTTP basic authentication, tests/integration/redfish.py). The playbook is the one docs/credential-rotation.md
shows, without the wave options; the last test rotates in waves and stops at the wave of a wrong password."""

import json
import os
import re
import signal
import time
import uuid

import pytest

PLAYBOOK = '''
- name: Rotate the BMC password of a fleet
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Give Ironic the new BMC passwords, each checked against its BMC right after its write
      baremetal.lifecycle.baremetal_node:
        nodes: "{{ fleet }}"
        update_secrets: always
      register: rotation
      ignore_errors: true

    - name: Keep the result for the test
      ansible.builtin.copy:
        content: "{{ rotation | to_json }}"
        dest: "{{ result_file }}"
        mode: "0600"
'''


@pytest.fixture
def fleet(ironic, redfish_bmc, run_module):
    """Five Redfish nodes on two BMCs (three systems and two), enrolled and made manageable with the BMCs' first
    password (Ironic verifies them on the way): ``(bmcs, [(name, bmc, system index)])``. Deleted afterwards."""
    old = 'Zq-old-%s' % uuid.uuid4().hex
    bmcs = [redfish_bmc(systems=3, password=old), redfish_bmc(systems=2, password=old)]
    tag = uuid.uuid4().hex[:8]
    members = [('rotate-%s-%d-%d' % (tag, number, index), bmc, index)
               for number, bmc in enumerate(bmcs) for index in range(len(bmc.system_ids))]
    enrolled = run_module('baremetal_node', nodes=[{'name': name, 'driver': 'redfish', 'driver_info': bmc.driver_info(index)}
                                                   for name, bmc, index in members])
    assert not enrolled.get('failed'), enrolled.get('msg')
    managed = run_module('baremetal_provision_state', nodes=[name for name, _bmc, _index in members], state='manageable',
                         concurrency=len(members))
    assert not managed.get('failed'), managed.get('msg')
    yield bmcs, members
    for name, _bmc, _index in members:
        ironic.api('DELETE', '/nodes/%s' % name, expect=None)


def rotate(run_playbook, tmp_path, fleet_declaration):
    """Run the rotation playbook: (rc, output, the registered result)."""
    result_file = tmp_path / 'rotation.json'
    rc, output = run_playbook(PLAYBOOK, {'fleet': fleet_declaration, 'result_file': str(result_file)})
    return rc, output, json.loads(result_file.read_text(encoding='utf-8'))


def bmc_reads(bmc, since):
    """The system ids the BMC answered GET with 200 after offset ``since`` of its log."""
    return set(re.findall(r'"GET /redfish/v1/Systems/([0-9a-f-]+) HTTP/1.1" 200', bmc.log()[since:]))


def test_a_rotation_to_the_right_password_is_verified_on_every_node_and_writes_only_the_records(
        ironic, run_playbook, tmp_path, fleet):
    bmcs, members = fleet
    new = 'Zq-new-%s' % uuid.uuid4().hex
    for bmc in bmcs:
        bmc.set_password(new)  # the BMCs were changed first: Ironic's password is now the old, refused one
    logs = [len(bmc.log()) for bmc in bmcs]
    mark = ironic.log_mark()

    rc, output, result = rotate(run_playbook, tmp_path, [{'name': name, 'driver_info': {'redfish_password': new}}
                                                         for name, _bmc, _index in members])

    assert rc == 0 and not result.get('failed'), output[-3000:]
    assert [(node['name'], node['changed'], node['bmc_verified'], node['error']) for node in result['nodes']] == [
        (name, True, True, None) for name, _bmc, _index in members]
    # Each node's BMC was asked with the new password, and the check wrote nothing: the only writes are the records.
    for number, bmc in enumerate(bmcs):
        assert bmc_reads(bmc, logs[number]) == set(bmc.system_ids)
    writes = ironic.write_requests_since(mark)
    assert sorted(request.method for request in writes) == ['PATCH'] * len(members), writes
    checks = [request.path for request in ironic.requests_since(mark) if '/management/boot_device' in request.path]
    assert len(checks) == len(members)
    assert new not in output and new not in json.dumps(result)


def test_a_wrong_password_fails_that_node_by_name_with_the_bmc_refusal_and_the_others_are_verified(
        ironic, run_playbook, tmp_path, fleet):
    bmcs, members = fleet
    new, wrong = 'Zq-new-%s' % uuid.uuid4().hex, 'Zq-wrong-%s' % uuid.uuid4().hex
    for bmc in bmcs:
        bmc.set_password(new)
    bad = members[3][0]  # the first node of the second BMC: the other node of that BMC must still pass

    rc, output, result = rotate(run_playbook, tmp_path, [
        {'name': name, 'driver_info': {'redfish_password': wrong if name == bad else new}} for name, _bmc, _index in members])

    assert rc == 0 and result['failed'] is True, output[-3000:]
    assert result['failed_nodes'] == ['nodes[3] (%s)' % bad]
    by_name = dict((node['name'], node) for node in result['nodes'])
    failed = by_name.pop(bad)
    assert failed['changed'] is True and failed['bmc_verified'] is False
    assert failed['error'].startswith('node %s: Ironic cannot use its BMC with the new driver_info' % bad), failed['error']
    assert '401' in failed['error'], failed['error']  # the BMC's own refusal, through Ironic
    assert 'nodes[3] (%s): node %s: Ironic cannot use its BMC' % (bad, bad) in result['msg'], result['msg']
    assert all(node['bmc_verified'] is True and node['error'] is None for node in by_name.values()), by_name
    # The record holds what was written; Ironic has not noticed yet (no maintenance), which is why the check exists.
    node = ironic.api('GET', '/nodes/%s' % bad)
    assert node['maintenance'] is False and node['provision_state'] == 'manageable'
    for secret in (wrong, new):
        assert secret not in output and secret not in json.dumps(result)


def test_a_rotation_in_waves_stops_at_the_wave_of_a_wrong_password(ironic, run_module, fleet):
    bmcs, members = fleet
    new, wrong = 'Zq-new-%s' % uuid.uuid4().hex, 'Zq-wrong-%s' % uuid.uuid4().hex
    for bmc in bmcs:
        bmc.set_password(new)
    names = [name for name, _bmc, _index in members]
    bad = names[1]  # in the first wave of two nodes
    mark = ironic.log_mark()

    result = run_module('baremetal_node', update_secrets='always', wave_size='2', nodes=[
        {'name': name, 'driver_info': {'redfish_password': wrong if name == bad else new}} for name in names])

    assert result['failed'] is True
    assert result['waves'] == [names[0:2], names[2:4], names[4:]]
    assert [(node['name'], node['wave'], node['started'], node['error'] is not None) for node in result['nodes']] == [
        (names[0], 1, True, False), (names[1], 1, True, True), (names[2], 2, False, False),
        (names[3], 2, False, False), (names[4], 3, False, False)]
    assert 'Not started, as no wave starts once the failures are over the budget' in result['msg']
    # Only the first wave's records were written: the others still hold the old password, and Ironic was not asked.
    patched = set(request.path.rsplit('/', 1)[-1] for request in ironic.write_requests_since(mark))
    uuids = dict((name, ironic.api('GET', '/nodes/%s' % name)['uuid']) for name in names)
    assert patched == set([uuids[names[0]], uuids[names[1]]]), patched
    for secret in (wrong, new):
        assert secret not in json.dumps(result)


def test_a_bmc_that_answers_no_check_within_api_timeout_is_named_and_not_asked_twice(ironic, run_module, redfish_bmc,
                                                                                     new_name):
    """A BMC that accepts connections and answers nothing (its emulator stopped): Ironic waits for it (its [redfish]
    read_timeout, 30 s in the tests' Ironic) longer than the module waits for Ironic (api_timeout). The lost answer is
    not asked again: Ironic still holds the node's lock for the first read, so a second one would only meet that lock
    (HTTP 409, 'locked') and the task would blame it."""
    bmc = redfish_bmc()
    name = new_name()
    enrolled = run_module('baremetal_node', name=name, driver='redfish', driver_info=bmc.driver_info())
    assert not enrolled.get('failed'), enrolled.get('msg')
    new = 'Zq-new-%s' % uuid.uuid4().hex
    bmc.set_password(new)
    mark = ironic.log_mark()
    os.kill(bmc.process.pid, signal.SIGSTOP)
    try:
        result = run_module('baremetal_node', name=name, driver_info={'redfish_password': new}, update_secrets='always',
                            api_timeout=3)
        # The task gave up at api_timeout, not when Ironic answered: Ironic still holds the node for its read of
        # the stopped BMC (until its own read_timeout, 30 s).
        held = ironic.api('GET', '/nodes/%s' % name)['reservation']
    finally:
        os.kill(bmc.process.pid, signal.SIGCONT)
    # Ironic's own read goes on once the BMC answers again; the node is left alone until then.
    deadline = time.monotonic() + 40
    while ironic.api('GET', '/nodes/%s' % name)['reservation'] is not None:
        assert time.monotonic() < deadline, 'Ironic still holds node %s' % name
        time.sleep(0.2)

    assert result['failed'] is True and result['bmc_verified'] is False and result['changed'] is True
    assert result['msg'].startswith('node %s: Ironic did not answer within api_timeout (3 s) ' % name), result['msg']
    assert 'the BMC is slow or does not answer' in result['msg'] and 'locked' not in result['msg'], result['msg']
    assert held is not None
    reads = [request for request in ironic.requests_since(mark) if request.path.endswith('/management/boot_device')]
    assert len(reads) == 1, reads
    assert new not in json.dumps(result)
