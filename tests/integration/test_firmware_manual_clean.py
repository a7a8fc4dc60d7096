# -*- coding: utf-8 -*-
"""baremetal_firmware_campaign brings a manageable (not deployed) node of an emulated Redfish system to its baseline
by manual cleaning, for real: Ironic's Redfish firmware clean step needs the deploy ramdisk (requires_ramdisk), which
the test agent (agent.py) plays over Ironic's agent protocol while Ironic's real redfish power, management and
firmware interfaces drive the emulator of redfish_firmware.py.

The node's hardware type is ``fake-hardware``, which takes any interface (Ironic's driver_factory lets fake hardware
combine them for testing): ``redfish`` power, management and firmware, ``fake`` boot (nothing to PXE-boot: the agent
plays the booted ramdisk while Ironic keeps the node powered on in a cleaning state) and ``direct`` deploy (the agent's
cleaning: Ironic reboots the node into the ramdisk, waits for its heartbeat, asks it for its clean steps, then runs
the firmware steps out of band in ``clean wait``).

One Ironic (the agent's settings and the firmware ones merged), one emulated system, one node."""

from __future__ import annotations

import uuid

import pytest

from agent import AgentPlayer
from firmware_fleet import FIRMWARE_IRONIC, delete, firmware_versions, wait_for
from redfish import RedfishBMC
from test_agent_protocol import AGENT_IRONIC, HEARTBEAT, collection_writes, power_actions_since, states_since
from test_firmware_campaign import service_steps_sent


def merged(*configs):
    """Ironic settings merged section by section (a later config's option wins)."""
    result = {}
    for config in configs:
        for section, options in config.items():
            result.setdefault(section, {}).update(options)
    return result


# The test Ironic: a played agent's settings (test_agent_protocol.AGENT_IRONIC, each with why) and the Redfish
# firmware interface's, tuned to the emulator (firmware_fleet.FIRMWARE_IRONIC, each with why).
CLEAN_IRONIC = merged(AGENT_IRONIC, FIRMWARE_IRONIC)
# Ironic's redfish interfaces look for a verify_ca option in a config group named after the hardware type
# ([fake-hardware], which does not exist: NoSuchOptError) unless driver_info gives a value other than True; the
# emulator is plain http on loopback, nothing to verify.
DRIVER_INFO = {'redfish_verify_ca': False}
INTERFACES = {'power_interface': 'redfish', 'management_interface': 'redfish', 'firmware_interface': 'redfish',
              'boot_interface': 'fake', 'deploy_interface': 'direct'}


@pytest.fixture(scope='module')
def clean_ironic(shared_ironic):
    return shared_ironic(ironic_standalone_config_overrides=CLEAN_IRONIC)


@pytest.fixture(scope='module')
def agent(clean_ironic):
    played = AgentPlayer(clean_ironic, interval=HEARTBEAT)
    yield played
    played.stop()


@pytest.fixture(scope='module')
def bmc(tmp_path_factory):
    started = RedfishBMC(tmp_path_factory.mktemp('redfish-clean'), systems=1, models=['R640'], bios_versions=['1.2'],
                         bmc_versions=['2.8']).start()
    yield started
    started.stop()


@pytest.fixture
def node(clean_ironic, agent, bmc):
    """The emulated system enrolled as a manageable node whose port has the played machine's MAC: (node, played)."""
    mac = '52:54:00:%02x:%02x:%02x' % tuple(uuid.uuid4().bytes[:3])
    played = agent.play(mac)
    created = clean_ironic.api('POST', '/v1/nodes', dict(
        INTERFACES, name='fw-clean-%s' % uuid.uuid4().hex[:8], driver='fake-hardware',
        driver_info=dict(bmc.driver_info(0), **DRIVER_INFO)))
    try:
        clean_ironic.api('POST', '/v1/ports', {'node_uuid': created['uuid'], 'address': mac})
        clean_ironic.api('PUT', '/v1/nodes/%s/states/provision' % created['uuid'], {'target': 'manage'})
        managed = wait_for(clean_ironic, created['uuid'], ('manageable', 'enroll'))
        assert managed['provision_state'] == 'manageable', managed['last_error']
        yield managed, played
    finally:
        agent.unplug(played)
        delete(clean_ironic, created['uuid'])


def test_a_manageable_node_reaches_its_baseline_by_manual_cleaning_on_the_played_agent(
        clean_ironic, node, bmc, firmware_images, run_module):
    managed, played = node
    assert firmware_versions(clean_ironic, managed['uuid']) == {'bios': '1.2', 'bmc': '2.8'}
    urls = [firmware_images.url('bmc', '2.9'), firmware_images.url('bmc', '2.10'), firmware_images.url('bios', '1.3')]
    baseline = [{'name': 'Contoso R640', 'match': {'model': 'R640'}, 'components': [
        {'component': 'bmc', 'version': '2.10', 'url': urls[1],
         'stepping_stones': [{'version': '2.9', 'url': urls[0]}]},
        {'component': 'bios', 'version': '1.3', 'url': urls[2]}]}]
    args = dict(endpoint=clean_ironic.endpoint, nodes=[managed['name']], firmware_baseline=baseline, timeout=600)
    mark = clean_ironic.log_mark()

    result = run_module('baremetal_firmware_campaign', **args)

    assert not result.get('failed'), result.get('msg')
    (entry,) = result['nodes']
    assert entry['mode'] == 'cleaning' and entry['changed'] and entry['left'] == []
    assert [(step['component'], step['version']) for step in entry['done']] == [
        ('bmc', '2.9'), ('bmc', '2.10'), ('bios', '1.3')]
    # One manual clean: Ironic rebooted the node into the ramdisk and waited (clean wait) for the played agent's
    # heartbeat, asked it for its clean steps, then ran each firmware step out of band in clean wait (none on the
    # agent), rebooted the node for the BIOS update, and powered it off at the end.
    assert states_since(clean_ironic, mark, managed['uuid']) == (
        ['cleaning', 'clean wait'] + ['cleaning', 'clean wait'] * 3 + ['cleaning', 'manageable'])
    assert power_actions_since(clean_ironic, mark, managed['uuid']) == [
        'power on by rebooting', 'power on by rebooting', 'power off by power off']
    assert set(played.received) == {'clean.get_clean_steps'} and played.steps == []
    heartbeats = [request for request in clean_ironic.requests_since(mark)
                  if request.path == '/v1/heartbeat/%s' % managed['uuid'] and request.status == 202]
    assert len(heartbeats) >= 5, heartbeats
    assert service_steps_sent(clean_ironic, mark) == [(url, managed['uuid']) for url in urls]
    assert firmware_images.fetched == ['/bmc-2.9.bin', '/bmc-2.10.bin', '/bios-1.3.bin']
    # The versions read back from Ironic and from the emulated system itself.
    assert firmware_versions(clean_ironic, managed['uuid']) == {'bios': '1.3', 'bmc': '2.10'}
    assert bmc.firmware(0) == {'bios': '1.3', 'bmc': '2.10'}
    assert collection_writes(clean_ironic, mark) == ['PUT /v1/nodes/NODE/states/provision 202']

    # A rerun finds the node at its baseline: nothing to do, nothing sent.
    mark = clean_ironic.log_mark()
    rerun = run_module('baremetal_firmware_campaign', **args)
    assert not rerun.get('failed'), rerun.get('msg')
    assert not rerun['changed'] and [entry['changed'] for entry in rerun['nodes']] == [False]
    assert clean_ironic.write_requests_since(mark) == []
    assert len(firmware_images.fetched) == 3
