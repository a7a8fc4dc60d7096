# -*- coding: utf-8 -*-
"""baremetal_firmware_campaign against a real Ironic whose Redfish firmware interface drives the emulator of
redfish_firmware.py (the images served by redfish.FirmwareImages): two models, a stepping stone, every NIC of a model
(``nic:*``: each R640's NIC has a serial number of its own, so Ironic names it ``nic:<serial>``, another name on
every node), deployed nodes serviced, check mode, a deployed node refused without allow_disruptive, an interrupted
campaign continued without a repeated step (after stop_after, and after Ctrl-C in the middle of a cycle), a failing
image.

One Ironic and one emulator for the file; the nodes are deployed by adoption (firmware_fleet.enroll), as the
firmware.update clean step of manageable nodes needs the deploy ramdisk: only check mode plans one here, and
test_firmware_manual_clean.py runs one, with the test agent playing the ramdisk.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time

import pytest

from firmware_fleet import delete, enroll_all, firmware_versions
from redfish import RedfishBMC
from test_examples import EXAMPLE_CLOUD, ansible, ansible_argv, claim, wrap, write_clouds

# The emulated systems: (model, BIOS, BMC, (serial number, version) of its NIC in slot 1, or None) of each.
SYSTEMS = [('R640', '1.2', '2.8', ('EN25G-4F1A', '22.31')), ('R640', '1.2', '2.9', ('EN25G-7C02', '22.31')),
           ('XL170', '0.9', '5.1', None), ('R640', '1.2', '2.10', ('EN25G-9B3D', '22.40'))]
# The component Ironic records for the NIC of each system (None without one): named after its serial number.
NICS = ['nic:%s' % system[3][0] if system[3] else None for system in SYSTEMS]


@pytest.fixture(scope='module')
def bmc(tmp_path_factory):
    started = RedfishBMC(tmp_path_factory.mktemp('redfish-campaign'), systems=len(SYSTEMS),
                         models=[system[0] for system in SYSTEMS], bios_versions=[system[1] for system in SYSTEMS],
                         bmc_versions=[system[2] for system in SYSTEMS],
                         nic_versions=[{'NIC.Slot.1': system[3][1]} if system[3] else None for system in SYSTEMS],
                         nic_serials=[{'NIC.Slot.1': system[3][0]} if system[3] else None for system in SYSTEMS],
                         ).start()
    yield started
    started.stop()


@pytest.fixture(scope='module')
def fleet(firmware_ironic, bmc):
    """Systems 0-2 deployed (adopted), system 3 manageable: the nodes by index."""
    nodes = enroll_all(firmware_ironic, bmc, ['active', 'active', 'active', 'manageable'])
    yield nodes
    for node in nodes:
        delete(firmware_ironic, node['uuid'])


def baseline(firmware_images, xl170_bios_fail=None):
    return [
        {'name': 'Contoso R640', 'match': {'model': 'R640'}, 'components': [
            {'component': 'bmc', 'version': '2.10', 'url': firmware_images.url('bmc', '2.10'),
             'stepping_stones': [{'version': '2.9', 'url': firmware_images.url('bmc', '2.9')}]},
            {'component': 'bios', 'version': '1.3', 'url': firmware_images.url('bios', '1.3')},
            # Every NIC of the model, whatever its serial number (the image is for the adapter in slot 1).
            {'component': 'nic:*', 'version': '22.40', 'url': firmware_images.url('nic:NIC.Slot.1', '22.40')}]},
        {'name': 'Fabrikam XL170', 'match': {'model': 'XL170'}, 'components': [
            {'component': 'bios', 'version': '1.0', 'url': firmware_images.url('bios', '1.0', fail=xl170_bios_fail)}]},
    ]


def campaign(run_module, ironic, check=False, **args):
    return run_module('baremetal_firmware_campaign', check=check, diff=True, endpoint=ironic.endpoint,
                      timeout=600, **args)


def versions(result):
    return dict((entry['node']['name'], [(step['component'], step['version']) for step in entry['campaign']])
                for entry in result['nodes'])


def service_steps_sent(ironic, mark):
    """The firmware.update steps Ironic ran since mark, as (node UUID, image URL), from its log."""
    return re.findall(r"Executing \{'interface': 'firmware', 'step': 'update', 'args': \{'settings': \[\{'component': "
                      r"'[^']+', 'url': '([^']+)'\}\]\}.*? on node ([0-9a-f-]{36})", ironic.log_since(mark))


def test_check_mode_shows_the_whole_campaign_and_sends_nothing(firmware_ironic, fleet, firmware_images, run_module):
    names = [node['name'] for node in fleet]
    mark = firmware_ironic.log_mark()

    result = campaign(run_module, firmware_ironic, check=True, nodes=names, firmware_baseline=baseline(firmware_images),
                      wave_size=2, allow_disruptive=True)

    assert not result.get('failed'), result.get('msg')
    assert firmware_ironic.write_requests_since(mark) == []
    assert firmware_images.fetched == []
    # Each R640's own NIC, by the name Ironic records for it; the NIC of system 3 runs the target already.
    assert versions(result) == {
        names[0]: [('bmc', '2.9'), ('bmc', '2.10'), ('bios', '1.3'), (NICS[0], '22.40')],  # through the stepping stone
        names[1]: [('bmc', '2.10'), ('bios', '1.3'), (NICS[1], '22.40')],
        names[2]: [('bios', '1.0')],
        names[3]: [('bios', '1.3')]}
    entries = dict((entry['node']['name'], entry) for entry in result['nodes'])
    assert [entries[name]['mode'] for name in names] == ['servicing', 'servicing', 'servicing', 'cleaning']
    assert [entries[name]['model'] for name in names] == ['Contoso R640'] * 2 + ['Fabrikam XL170', 'Contoso R640']
    assert [len(entries[name]['steps']) for name in names] == [4, 3, 1, 1]
    assert entries[names[0]]['steps'][0] == {'interface': 'firmware', 'step': 'update', 'args': {'settings': [
        {'component': 'bmc', 'url': firmware_images.url('bmc', '2.9')}]}}
    assert entries[names[1]]['steps'][2] == {'interface': 'firmware', 'step': 'update', 'args': {'settings': [
        {'component': NICS[1], 'url': firmware_images.url('nic:NIC.Slot.1', '22.40')}]}}
    assert [(item['component'], item['baseline_component'], item['status'])
            for item in entries[names[3]]['components']] == [
        ('bmc', 'bmc', 'at_target'), ('bios', 'bios', 'behind'), (NICS[3], 'nic:*', 'at_target')]
    assert result['waves'] == [names[:2], names[2:]]
    assert all(entry['changed'] and entry['started'] is False for entry in result['nodes'])

    # Waves by a node field: one wave a group, the groups in the order their first node comes.
    for node, group in zip(fleet, ('rack-b', 'rack-a', 'rack-b', 'rack-a')):
        firmware_ironic.api('PATCH', '/nodes/%s' % node['uuid'],
                            [{'op': 'add', 'path': '/resource_class', 'value': group}])
    mark = firmware_ironic.log_mark()
    grouped = campaign(run_module, firmware_ironic, check=True, nodes=names,
                       firmware_baseline=baseline(firmware_images),
                       group_by='resource_class', allow_disruptive=True)
    assert not grouped.get('failed'), grouped.get('msg')
    assert firmware_ironic.write_requests_since(mark) == []
    assert grouped['waves'] == [[names[0], names[2]], [names[1], names[3]]]


def test_a_deployed_node_is_refused_without_allow_disruptive_before_any_write(firmware_ironic, fleet, firmware_images,
                                                                              run_module):
    mark = firmware_ironic.log_mark()

    result = campaign(run_module, firmware_ironic, nodes=[fleet[3]['name'], fleet[2]['name']],
                      firmware_baseline=baseline(firmware_images))

    assert result.get('failed')
    assert ('node %s is deployed (active): the campaign would service it (bios 1.0), which reboots its workload. '
            'Set allow_disruptive: true to allow it' % fleet[2]['name']) in result['msg'], result['msg']
    assert firmware_ironic.write_requests_since(mark) == []
    assert firmware_images.fetched == []


def test_an_interrupted_campaign_continues_without_repeating_a_step(firmware_ironic, bmc, fleet, firmware_images,
                                                                    run_module):
    deployed = [node['name'] for node in fleet[:3]]
    mark = firmware_ironic.log_mark()
    fetched = len(firmware_images.fetched)

    # One node a wave; the window ends during the first wave: the others wait for the next run.
    first = campaign(run_module, firmware_ironic, nodes=deployed, firmware_baseline=baseline(firmware_images),
                     wave_size=1, allow_disruptive=True, stop_after='5s')

    assert not first.get('failed'), first.get('msg')
    entries = first['nodes']
    assert [(entry['started'], entry['changed']) for entry in entries] == [
        (True, True), (False, False), (False, False)]
    assert entries[0]['done'] == entries[0]['campaign'] and entries[0]['left'] == []
    assert entries[1]['held_by'].startswith('stop_after 5s was reached: no new wave starts after it')
    assert first['totals']['not_started'] == 2
    # The node's own NIC is at the target, read back from Ironic (the NIC update counts as done).
    assert firmware_versions(firmware_ironic, fleet[0]['uuid']) == {'bmc': '2.10', 'bios': '1.3', NICS[0]: '22.40'}
    assert firmware_versions(firmware_ironic, fleet[1]['uuid']) == {'bmc': '2.9', 'bios': '1.2', NICS[1]: '22.31'}

    second = campaign(run_module, firmware_ironic, nodes=deployed, firmware_baseline=baseline(firmware_images),
                      allow_disruptive=True)

    assert not second.get('failed'), second.get('msg')
    assert [entry['changed'] for entry in second['nodes']] == [False, True, True]
    assert second['nodes'][0]['campaign'] == [] and second['nodes'][0]['status'] == 'at_target'
    assert [(step['component'], step['version']) for step in second['nodes'][1]['done']] == [
        ('bmc', '2.10'), ('bios', '1.3'), (NICS[1], '22.40')]
    assert firmware_versions(firmware_ironic, fleet[1]['uuid']) == {'bmc': '2.10', 'bios': '1.3', NICS[1]: '22.40'}
    assert firmware_versions(firmware_ironic, fleet[2]['uuid'])['bios'] == '1.0'
    # Each node's own NIC, as its system's adapter (slot 1, with its serial number) reports it.
    assert [bmc.network_adapters(index) for index in (0, 1)] == [
        {'NIC.Slot.1': (SYSTEMS[0][3][0], '22.40')}, {'NIC.Slot.1': (SYSTEMS[1][3][0], '22.40')}]
    # Every image once: no step ran twice over the two runs (the BMC fetched each image it applied).
    sent = service_steps_sent(firmware_ironic, mark)
    assert len(sent) == len(set(sent)) == 8, sent
    assert len(firmware_images.fetched) - fetched == 8

    # A third run finds every node at the baseline: nothing is sent.
    mark = firmware_ironic.log_mark()
    third = campaign(run_module, firmware_ironic, nodes=deployed, firmware_baseline=baseline(firmware_images),
                     allow_disruptive=True)
    assert not third.get('failed'), third.get('msg')
    assert [(entry['changed'], entry['campaign']) for entry in third['nodes']] == [(False, [])] * 3
    assert firmware_ironic.write_requests_since(mark) == []


def provision_state_becomes(ironic, node_uuid, state, timeout=120.0):
    """Wait for the node to be in ``state`` (an event of Ironic's), within timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        node = ironic.api('GET', '/v1/nodes/%s' % node_uuid)
        if node['provision_state'] == state:
            return node
        assert time.monotonic() < deadline, 'node %s never reached %s: it is %s (%s)' % (
            node_uuid, state, node['provision_state'], node['last_error'])
        time.sleep(0.2)


CAMPAIGN_PLAY = """- name: A firmware campaign
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Bring the nodes to the baseline
      baremetal.lifecycle.baremetal_firmware_campaign:
        nodes: "{{ campaign_nodes }}"
        firmware_baseline: "{{ campaign_baseline }}"
        allow_disruptive: true
        timeout: 600
"""


def start_playbook(tmp_path, clouds, extra_vars, name):
    """ansible-playbook of CAMPAIGN_PLAY started in a session of its own (so that os.killpg reaches it, its workers
    and its module, as Ctrl-C in a terminal does), its output in tmp_path/<name>.log: (process, log path)."""
    playbook = tmp_path / 'campaign.yml'
    playbook.write_text(CAMPAIGN_PLAY, encoding='utf-8')
    argv, env = ansible_argv(['ansible-playbook', str(playbook)], clouds, extra_vars)
    log = tmp_path / ('%s.log' % name)
    with open(log, 'wb') as output:
        process = subprocess.Popen(argv, cwd=str(tmp_path), env=env, stdout=output,  # pylint: disable=consider-using-with
                                   stderr=subprocess.STDOUT, start_new_session=True)
    return process, log


def stop_session(process):
    """Kill what is left of a playbook's session by its PID (idempotent)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def test_a_rerun_after_ctrl_c_waits_for_the_cycle_ironic_still_runs_and_repeats_no_step(
        firmware_ironic, firmware_images, run_module, tmp_path):
    """Ctrl-C ends the task, not Ironic's servicing: the rerun finds the node in service wait (its BMC still
    flashing: the emulator holds the task Running), waits for the cycle to end, then plans from the versions Ironic
    reports and sends nothing that ran. Check mode in between waits for nothing and plans from where the node lands.
    On the code before, both runs failed the node at once as "still moving"."""
    held_bmc = RedfishBMC(tmp_path / 'bmc', systems=1, models=['R640'], bios_versions=['1.2'],
                          bmc_versions=['2.8']).start()
    # The BMC through its stepping stone: two steps in one cycle, the first held while the BMC flashes.
    bmc_only = [{'name': 'Contoso R640', 'match': {'model': 'R640'}, 'components': [
        dict(baseline(firmware_images)[0]['components'][0])]}]
    node, processes = None, []
    try:
        (node,) = enroll_all(firmware_ironic, held_bmc, ['active'])
        clouds = write_clouds(tmp_path / 'clouds.yaml', {EXAMPLE_CLOUD: firmware_ironic})
        extra_vars = {'campaign_nodes': [node['name']], 'campaign_baseline': bmc_only}
        mark = firmware_ironic.log_mark()
        held_bmc.hold_firmware_tasks()

        first, first_log = start_playbook(tmp_path, clouds, extra_vars, 'first')
        processes.append(first)
        provision_state_becomes(firmware_ironic, node['uuid'], 'service wait')  # the BMC update is under way
        os.killpg(first.pid, signal.SIGINT)  # Ctrl-C
        assert first.wait(timeout=60) != 0, first_log.read_text()
        assert firmware_ironic.api('GET', '/v1/nodes/%s' % node['uuid'])['provision_state'] == 'service wait'

        # Check mode waits for nothing: it plans from where the node lands (active), with the versions of now.
        checked_at = firmware_ironic.log_mark()
        checked = run_module('baremetal_firmware_campaign', check=True, endpoint=firmware_ironic.endpoint,
                             nodes=[node['name']], firmware_baseline=bmc_only, allow_disruptive=True)
        assert not checked.get('failed'), checked.get('msg')
        assert firmware_ironic.write_requests_since(checked_at) == []
        (entry,) = checked['nodes']
        assert [(step['component'], step['version']) for step in entry['campaign']] == [('bmc', '2.9'), ('bmc', '2.10')]
        assert entry['mode'] == 'servicing' and entry['changed']
        # (A warning is a text, or a WarningSummary of ansible-core 2.19 and later.)
        assert "in check mode nothing is sent, so the task did not wait for it" in str(checked.get('warnings'))

        rerun_at = firmware_ironic.log_mark()
        rerun, rerun_log = start_playbook(tmp_path, clouds, extra_vars, 'rerun')
        processes.append(rerun)
        # The rerun reads the node and polls it while the BMC still flashes; then the BMC finishes.
        firmware_ironic.wait_for_requests(
            rerun_at, lambda requests: sum(1 for request in requests if request.method == 'GET'
                                           and request.path.startswith('/v1/nodes')) >= 4,
            'the rerun reading the node')
        assert firmware_ironic.api('GET', '/v1/nodes/%s' % node['uuid'])['provision_state'] == 'service wait'
        held_bmc.release_firmware_tasks()

        assert rerun.wait(timeout=600) == 0, rerun_log.read_text()
        output = rerun_log.read_text()
        assert 'failed=0' in output and 'still moving' not in output, output
        # The rerun waited for the first run's cycle, which ran every step, and found nothing left: no write.
        assert firmware_ironic.write_requests_since(rerun_at) == []
        assert firmware_versions(firmware_ironic, node['uuid']) == {'bmc': '2.10', 'bios': '1.2'}
        assert firmware_ironic.api('GET', '/v1/nodes/%s' % node['uuid'])['provision_state'] == 'active'
        # Every step once, over the interrupted run and the rerun.
        sent = [url for url, uuid in service_steps_sent(firmware_ironic, mark) if uuid == node['uuid']]
        assert sent == [firmware_images.url('bmc', '2.9'), firmware_images.url('bmc', '2.10')], sent
    finally:
        held_bmc.release_firmware_tasks()
        for process in processes:
            stop_session(process)
        if node is not None:
            delete(firmware_ironic, node['uuid'])
        held_bmc.stop()


def test_a_failing_image_leaves_the_node_failed_with_the_bmc_reason(firmware_ironic, fleet, firmware_images,
                                                                    run_module):
    node = fleet[2]
    # The XL170 is at 1.0 after the interrupted campaign's rerun: a baseline one step further, whose image fails.
    failing = [{'name': 'Fabrikam XL170', 'match': {'model': 'XL170'}, 'components': [
        {'component': 'bios', 'version': '1.1', 'url': firmware_images.url('bios', '1.1', fail='signature mismatch')}]}]

    result = campaign(run_module, firmware_ironic, nodes=[node['name']], firmware_baseline=failing,
                      allow_disruptive=True)

    assert result.get('failed')
    (entry,) = result['nodes']
    assert 'signature mismatch' in entry['error'] and entry['node']['provision_state'] == 'service failed'
    assert entry['done'] == [] and [step['version'] for step in entry['left']] == ['1.1']
    assert result['failed_nodes'] == [node['name']]
    assert firmware_versions(firmware_ironic, node['uuid'])['bios'] == '1.0'


# The images docs/firmware-campaigns.md names, at its image server's address.
DOCS_IMAGES = 'http://127.0.0.1:8080'
DOCS_FIRMWARE = [('r640-bmc-2.9.bin', 'bmc', '2.9'), ('r640-bmc-2.10.bin', 'bmc', '2.10'),
                 ('r640-bios-1.3.bin', 'bios', '1.3'), ('en25g-22.40.bin', 'nic:NIC.Slot.1', '22.40'),
                 ('xl170-bios-1.0.bin', 'bios', '1.0')]


def test_the_worked_example_of_the_docs_runs_as_written(firmware_ironic, firmware_images, tmp_path):
    """docs/firmware-campaigns.md: two models, a stepping stone, every NIC of the R640 (nic:*), two deployed nodes
    serviced, in check mode and then for real; its URLs on the test's image server."""
    docs_bmc = RedfishBMC(tmp_path / 'bmc', systems=2, models=['R640', 'XL170'], bios_versions=['1.2', '0.9'],
                          bmc_versions=['2.8', '5.1'], nic_versions=[{'NIC.Slot.1': '22.31'}, None],
                          nic_serials=[{'NIC.Slot.1': 'EN25G-4F1A'}, None]).start()
    nodes = []
    try:
        nodes = enroll_all(firmware_ironic, docs_bmc, ['active', 'active'], names=['rack1-node01', 'rack1-node02'])
        for name, component, version in DOCS_FIRMWARE:
            firmware_images.url(component, version, path='/firmware/' + name)
        tasks = [text.replace(DOCS_IMAGES, firmware_images.address)
                 for text in claim('docs/firmware-campaigns.md', 'tasks')]
        (tmp_path / 'tasks.yml').write_text(wrap(tasks), encoding='utf-8')
        clouds = write_clouds(tmp_path / 'clouds.yaml', {EXAMPLE_CLOUD: firmware_ironic})

        rc, output = ansible(['ansible-playbook', 'tasks.yml'], tmp_path, clouds)

        assert rc == 0, output
        # The plans the page shows, as the debug task prints them.
        assert ('rack1-node01 (Contoso R640, wave 1, servicing): bmc 2.9, bmc 2.10, bios 1.3, nic:EN25G-4F1A 22.40'
                in output), output
        assert 'rack1-node02 (Fabrikam XL170, wave 2, servicing): bios 1.0' in output, output
        assert firmware_versions(firmware_ironic, nodes[0]['uuid']) == {
            'bmc': '2.10', 'bios': '1.3', 'nic:EN25G-4F1A': '22.40'}
        assert firmware_versions(firmware_ironic, nodes[1]['uuid']) == {'bmc': '5.1', 'bios': '1.0'}
    finally:
        for node in nodes:
            delete(firmware_ironic, node['uuid'])
        docs_bmc.stop()
