# -*- coding: utf-8 -*-
"""IPMI over the wire: nodes of Ironic's real ``ipmi`` hardware type, whose ``ipmitool`` power and management
interfaces run Debian's ``ipmitool`` (tests/utils/debian_package.sh installs it) against an IPMI BMC emulator on 127.0.0.1
(tests/integration/ipmi_bmc.py: pyghmi's BMC server, one system each), driven through the collection's modules.

The shared test Ironic does not enable ``ipmi`` (tests rely on that): these tests share one Ironic of their own,
``ipmi_ironic``, started once for this file (pytest-xdist's --dist loadfile runs a file on one worker). What each
test checks on the BMC side is the emulator's own record of the system (its state file), never Ironic's word for it.
"""

import json
import os
import uuid

import pytest
import yaml

from ipmi_bmc import BMC_USERNAME, IPMITOOL, IpmiBMC
from test_module_examples import IPMI_EXAMPLES, module_examples, run_examples
from test_node import run_playbook_verbosely

# ipmi enabled beside fake-hardware, with the ipmitool power and management interfaces, on top of the role's.
IPMI_OVERRIDES = {
    'DEFAULT': {'enabled_hardware_types': 'ipmi,fake-hardware', 'enabled_power_interfaces': 'fake,ipmitool',
                'enabled_management_interfaces': 'fake,ipmitool,noop'},
    'ipmi': {
        # Ironic's default is 5 s between two commands to one BMC address, to spare fragile BMCs. Every emulator
        # here is on 127.0.0.1, so that pause would fall between any two commands of any two nodes; 1 s (the
        # least, a whole number) keeps Ironic's pacing without making every power action wait 5 s.
        'min_command_interval': 1,
        # Ironic's default retries a failed command for 60 s (every failure is retried, as Ironic and not ipmitool
        # does the retries): a wrong password would hold a task a minute. 3 s: three tries, then Ironic's reason.
        'command_retry_timeout': 3,
    },
}


def password():
    """A new password: 18 bytes (IPMI 2.0 allows 20), a marker to grep for ("Zq" is in no Ironic or Ansible text)."""
    return 'Zq%s' % uuid.uuid4().hex[:16]


@pytest.fixture(scope='module')
def ipmi_ironic(shared_ironic):
    """The Ironic of this file: the role's, with IPMI_OVERRIDES."""
    if not os.access(IPMITOOL, os.X_OK):
        pytest.fail('%s is missing: run tests/utils/debian_package.sh ipmitool /usr/bin/ipmitool ... (as root), as tests/run.sh does' % IPMITOOL,
                    pytrace=False)
    return shared_ironic(ironic_standalone_config_overrides=IPMI_OVERRIDES)


@pytest.fixture
def ipmi_bmc(tmp_path_factory):
    """Factory ``ipmi_bmc(password=None, kg_hex=None)``: a started emulator (a new password by default); every one is
    stopped by its PID after the test."""
    bmcs = []

    def start(secret=None, kg_hex=None):
        bmc = IpmiBMC(tmp_path_factory.mktemp('ipmi-bmc'), secret or password(), kg_hex)
        bmcs.append(bmc)
        return bmc.start()

    yield start
    for bmc in bmcs:
        bmc.stop()


@pytest.fixture
def on_ipmi(ipmi_ironic, run_module):
    """``on_ipmi(module, **args)``: run_module against ipmi_ironic."""
    def run(module, **args):
        return run_module(module, endpoint=ipmi_ironic.endpoint, **args)
    return run


@pytest.fixture
def names(ipmi_ironic):
    """Factory of node names on ipmi_ironic; those nodes are deleted after the test (in maintenance, so that a
    BMC that refuses or is gone does not stop the deletion)."""
    made = []

    def make():
        made.append('ipmi-%s' % uuid.uuid4().hex[:10])
        return made[-1]

    yield make
    for name in made:
        ipmi_ironic.api('PUT', '/nodes/%s/maintenance' % name, {'reason': 'test cleanup'}, expect=None)
        ipmi_ironic.api('DELETE', '/nodes/%s' % name, expect=None)


def enroll(on_ipmi, name, bmc, **fields):
    result = on_ipmi('baremetal_node', name=name, driver='ipmi', driver_info=bmc.driver_info(), **fields)
    assert not result.get('failed'), result.get('msg')
    return result


def test_enroll_and_manage_verify_the_node_through_its_bmc(ipmi_ironic, on_ipmi, ipmi_bmc, names):
    bmc, name = ipmi_bmc(kg_hex=uuid.uuid4().hex), names()
    enrolled = enroll(on_ipmi, name, bmc)
    node = enrolled['node']
    assert (node['driver'], node['interfaces']['power'], node['interfaces']['management']) == (
        'ipmi', 'ipmitool', 'ipmitool')
    assert node['provision_state'] == 'enroll' and node['power_state'] is None and bmc.state()['power_reads'] == 0

    managed = on_ipmi('baremetal_provision_state', node=name, state='manageable')

    assert not managed.get('failed'), managed.get('msg')
    assert managed['node']['provision_state'] == 'manageable'
    # Ironic's verification read the power state from the BMC, with the password and the Kg key.
    assert bmc.state()['power_reads'] >= 1 and bmc.state()['power'] == 'off'
    assert ipmi_ironic.api('GET', '/nodes/%s' % name)['power_state'] == 'power off'
    # Ironic shows the password masked and the Kg key in clear; the collection masks both.
    shown = ipmi_ironic.api('GET', '/nodes/%s' % name)['driver_info']
    assert (shown['ipmi_password'], shown['ipmi_hex_kg_key']) == ('******', bmc.kg_hex)
    assert (node['driver_info']['ipmi_password'], node['driver_info']['ipmi_hex_kg_key']) == ('********', '********')
    for result in (enrolled, managed):
        assert bmc.password not in json.dumps(result) and bmc.kg_hex not in json.dumps(result)


def test_power_on_reboot_and_off_reach_the_emulated_system(ipmi_ironic, on_ipmi, ipmi_bmc, names):
    bmc, name = ipmi_bmc(), names()
    enroll(on_ipmi, name, bmc, provision_state='manageable')
    for state, reached, emulated, changes in (('powered_on', 'power on', 'on', 1), ('rebooted', 'power on', 'on', 2),
                                              ('powered_off', 'power off', 'off', 1)):
        before = bmc.state()['power_changes']

        result = on_ipmi('baremetal_power', node=name, state=state, timeout=120)

        assert not result.get('failed'), result.get('msg')
        assert result['changed'] is True and result['node']['power_state'] == reached
        # The system itself: a reboot is Ironic's power off, then power on (ipmitool's "power off", "power on").
        assert bmc.state()['power'] == emulated and bmc.state()['power_changes'] - before == changes, bmc.log()
        if state != 'rebooted':
            mark = ipmi_ironic.log_mark()
            assert on_ipmi('baremetal_power', node=name, state=state)['changed'] is False
            assert ipmi_ironic.write_requests_since(mark) == []


ROTATION = '''
- name: Rotate the IPMI password of two nodes, each checked against its BMC
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Give Ironic the new BMC passwords
      baremetal.lifecycle.baremetal_node:
        nodes: %(nodes)s
        update_secrets: always
      register: rotation
      ignore_errors: true

    - name: Keep the result for the test
      ansible.builtin.copy:
        content: "{{ rotation | to_json }}"
        dest: %(result_file)s
        mode: "0600"
'''


def test_credential_rotation_is_verified_against_each_bmc_and_a_refused_one_is_named_masked(
        ipmi_ironic, on_ipmi, ipmi_bmc, names, tmp_path):
    """docs/credential-rotation.md with IPMI: the BMCs change their password first (the emulator takes no password
    change over IPMI: it restarts with the new one), then the playbook gives Ironic the new passwords, one of them
    mistyped; at -vvvv with --diff, no password of either nor the old one appears anywhere."""
    old, kg_hex = password(), uuid.uuid4().hex
    bmcs, members = [ipmi_bmc(old, kg_hex=kg_hex), ipmi_bmc(old)], [names(), names()]
    for name, bmc in zip(members, bmcs):
        enroll(on_ipmi, name, bmc, provision_state='manageable')
    new, wrong = password(), password()
    for bmc in bmcs:
        bmc.restart(new)
    # A boot device the check reads: with a Kg key, a BMC without one cannot be told from one that refuses the session
    # (test_with_a_kg_key_a_bmc_without_a_boot_device_is_not_called_verified).
    assert bmcs[0].ipmitool('chassis', 'bootdev', 'disk')[0] == 0 and bmcs[0].state()['boot_device'] == 'hd'
    for bmc in bmcs:  # the BMCs refuse the old password now
        assert 'Unable to establish IPMI v2 / RMCP+ session' in bmc.ipmitool('power', 'status', password=old)[1]
    reads = [bmc.state()['boot_device_reads'] for bmc in bmcs]
    declared = [{'name': members[0], 'driver_info': {'ipmi_password': new, 'ipmi_hex_kg_key': kg_hex}},
                {'name': members[1], 'driver_info': {'ipmi_password': wrong}}]
    playbook = tmp_path / 'rotate.yml'
    playbook.write_text(ROTATION % {'nodes': json.dumps(declared), 'result_file': tmp_path / 'rotation.json'},
                        encoding='utf-8')
    mark = ipmi_ironic.log_mark()

    process, output = run_playbook_verbosely(ipmi_ironic, playbook)

    assert process.returncode == 0, output[-3000:]
    result = json.loads((tmp_path / 'rotation.json').read_text(encoding='utf-8'))
    good, bad = result['nodes']
    assert (good['name'], good['changed'], good['bmc_verified'], good['error']) == (members[0], True, True, None)
    assert (bad['name'], bad['changed'], bad['bmc_verified']) == (members[1], True, False)
    # Ironic's own reason: the ipmitool command it ran for the boot device, which the BMC refused.
    assert bad['error'].startswith('node %s: Ironic cannot use its BMC with the new driver_info: Ironic refused GET '
                                   '/v1/nodes/' % members[1]), bad['error']
    assert 'management/boot_device (HTTP 500): IPMI call failed: chassis bootparam get 5.' in bad['error'], bad['error']
    assert result['failed_nodes'] == ['nodes[1] (%s)' % members[1]]
    # Each BMC was asked for its boot device once, by Ironic, for the check; the only writes are the two records.
    assert [bmc.state()['boot_device_reads'] - read for bmc, read in zip(bmcs, reads)] == [1, 0]
    assert sorted(request.method for request in ipmi_ironic.write_requests_since(mark)) == ['PATCH', 'PATCH']
    for secret in (old, new, wrong, kg_hex):
        assert secret not in output and secret not in json.dumps(result)

    # The verified node now works with the BMC: Ironic powers it on with the new password.
    powered = on_ipmi('baremetal_power', node=members[0], state='powered_on', timeout=120)
    assert not powered.get('failed'), powered.get('msg')
    assert bmcs[0].state()['power'] == 'on'


def test_with_a_kg_key_a_bmc_without_a_boot_device_is_not_called_verified(ipmi_ironic, on_ipmi, ipmi_bmc, names):
    """With a Kg key, ipmitool 1.8.19 exits 0 when the BMC refuses the session: Ironic answers the boot device read of
    a BMC that refuses the new password as that of a BMC with no boot device set (no error). The rotation is reported
    neither verified nor failed, with a warning saying why (before: bmc_verified true for a password the BMC refuses).
    """
    bmc, name = ipmi_bmc(kg_hex=uuid.uuid4().hex), names()
    enroll(on_ipmi, name, bmc, provision_state='manageable')
    bmc.restart(password())  # the BMC changed its password; the one given below is another

    result = on_ipmi('baremetal_node', name=name, driver_info={'ipmi_password': password()}, update_secrets='always')

    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is True and result['bmc_verified'] is None
    read = ipmi_ironic.api('GET', '/nodes/%s/management/boot_device' % name)
    assert read == {'boot_device': None, 'persistent': False}
    assert bmc.state()['boot_device_reads'] == 0  # the BMC refused the session: the read never reached the system
    (warning,) = [text if isinstance(text, str) else text['event']['msg'] for text in result['warnings']]
    assert warning.startswith('node %s: Ironic read no boot device from its BMC, which is also what it reads when the '
                              'BMC refuses the session. With ipmi_hex_kg_key set, the ipmitool management interface '
                              'cannot tell the two apart, so bmc_verified is null.' % name), warning
    assert bmc.kg_hex not in json.dumps(result)


def test_a_wrong_password_fails_manage_with_ironic_reason_and_what_ironic_records_is_read_masked(
        ipmi_ironic, on_ipmi, ipmi_bmc, names):
    """What Ironic records when ipmitool fails, as it really is: last_error and the node's history say "IPMI call
    failed: power status." and never quote the command line (the password is in a file, ipmitool -f), which only
    Ironic's own log shows; the collection reads them back masked."""
    bmc, name, wrong = ipmi_bmc(), names(), password()
    on_ipmi('baremetal_node', name=name, driver='ipmi', driver_info=bmc.driver_info(password=wrong))

    managed = on_ipmi('baremetal_provision_state', node=name, state='manageable', timeout=120)

    assert managed['failed'] is True and managed['changed'] is False
    reason = 'Failed to get power state for node %s. Error: IPMI call failed: power status.' % managed['node']['uuid']
    assert managed['msg'] == ("node %s: 'manage' from 'enroll' ended in 'enroll' instead of 'manageable'. "
                              "Ironic says: %s" % (name, reason)), managed['msg']
    assert bmc.state()['power_reads'] == 0  # the BMC refused the session: no command reached the system

    info = on_ipmi('baremetal_node_info', name=name, history=True)
    assert not info.get('failed'), info.get('msg')
    (node,) = info['nodes']
    assert node['last_error'] == reason and node['provision_state'] == 'enroll'
    assert node['driver_info']['ipmi_password'] == '********'
    events = [event['event'] for event in node['history']]
    assert reason in events, events
    # The command Ironic ran, in its own log only: the password in a file (-f), never on the command line.
    with open(ipmi_ironic.log_path, encoding='utf-8', errors='replace') as stream:
        log = stream.read()
    assert '-p %d -U %s -R 1 -N 1 -f /tmp/' % (bmc.port, BMC_USERNAME) in log and 'power status' in log
    for secret in (wrong, bmc.password):
        assert secret not in json.dumps([managed, info]) and secret not in log


def test_the_ipmi_examples_of_the_modules_run_in_check_mode(ipmi_ironic, ipmi_bmc, tmp_path):
    """The modules' IPMI examples (test_module_examples.IPMI_EXAMPLES), in check mode as that file runs the others,
    on this file's Ironic, the emulator's port for the examples' ipmi_port; rack2-node01 exists on the emulator (the
    example that sets its image needs it) and rack3-node09 (which an example deletes) is a fake-hardware node."""
    bmc = ipmi_bmc()
    tasks = [task for module, name in IPMI_EXAMPLES for task in module_examples(module) if task['name'] == name]
    assert len(tasks) == len(IPMI_EXAMPLES)
    example = dict((key, value) for key, value in tasks[0]['baremetal.lifecycle.baremetal_node'].items()
                   if key in ('name', 'uuid'))
    # The BMC the examples name: the emulator's address and user, on another port.
    assert yaml.safe_dump(tasks).count('ipmi_address: 127.0.0.1') == 2
    assert yaml.safe_dump(tasks).count('ipmi_username: %s' % BMC_USERNAME) == 2
    assert yaml.safe_dump(tasks).count('ipmi_port: 6231') == 2
    made = [ipmi_ironic.api('POST', '/nodes', dict(example, driver='ipmi', driver_info=bmc.driver_info())),
            ipmi_ironic.api('POST', '/nodes', {'name': 'rack3-node09', 'driver': 'fake-hardware'})]
    try:
        run_examples(ipmi_ironic, tmp_path, tasks, {'ipmi_port: 6231': 'ipmi_port: %d' % bmc.port})
    finally:
        for node in made:
            ipmi_ironic.api('DELETE', '/nodes/%s' % node['uuid'], expect=None)
