# -*- coding: utf-8 -*-
"""What the firmware tests share (test_redfish_firmware.py, test_firmware_campaign.py): the test Ironic whose
Redfish firmware interface updates in seconds, and Redfish nodes of the emulator of redfish_firmware.py brought to
manageable or active (adopted) with Ironic's real redfish power and firmware interfaces.

Ironic's firmware.update clean step needs the deploy ramdisk (requires_ramdisk); its service step does not, so a
deployed node is serviced without one. The nodes here are serviced; test_firmware_manual_clean.py runs the clean step
for real, by manual cleaning of a manageable node whose ramdisk the test agent (agent.py) plays. Adoption makes a
node active without a deploy (Ironic validates the boot interface and takes the node over as it is).
"""

from __future__ import annotations

import concurrent.futures
import time
import uuid

# The test Ironic, and why each setting differs from Ironic's default.
FIRMWARE_IRONIC = {
    'DEFAULT': {
        # Ironic's real Redfish firmware interface (the role enables only fake and no-firmware, so that the other
        # tests' Redfish nodes keep the interface they always had).
        'enabled_firmware_interfaces': 'fake,no-firmware,redfish',
    },
    'redfish': {
        # Ironic checks a running update every 60 s (default): the emulator's updates are done when asked.
        'firmware_update_status_interval': '1',
        'firmware_update_fail_interval': '1',
        # Ironic waits 300 s (default) after a BMC update before reading its version, and gives a reboot of the update
        # as long to reach its power state: the emulator's BMC updates at once and its power changes in 1 s
        # (redfish_firmware.POWER_DELAY).
        'firmware_update_reboot_delay': '5',
        'firmware_update_bmc_version_check_interval': '1',
        # After the last update Ironic reads the BMC's resources 3 times 30 s apart (default) to see it is stable:
        # once, at once, is enough of an emulator that never restarts.
        'firmware_update_required_successes': '1',
        'firmware_update_validation_interval': '0',
    },
    'conductor': {
        # How often Ironic looks for nodes whose step timed out (default 60 s): a failure is seen in seconds.
        'check_provision_state_interval': '2',
    },
}

# No power-state sync ([conductor]sync_power_state_interval, 60 s by default; 0 disables it): each sync reads every
# Redfish node's power state, boot mode, secure boot state, health and vendor, and Ironic 39 hashes the BMC password
# (PBKDF2, 600,000 rounds of SHA-512: 0.77 s of CPU here) for each of those reads. Four nodes cost a quarter of a core,
# a third of this Ironic's CPU in the campaign tests, and no firmware test reads a state the sync keeps.
FIRMWARE_SYNC_POWER_STATE_INTERVAL = 0

# Adoption validates the boot interface: pxe wants a deploy kernel and ramdisk named (never fetched by adoption).
ADOPTED_DRIVER_INFO = {'deploy_kernel': 'http://127.0.0.1:9/deploy.kernel',
                       'deploy_ramdisk': 'http://127.0.0.1:9/deploy.initramfs'}
INTERFACES = {'firmware_interface': 'redfish', 'boot_interface': 'pxe', 'deploy_interface': 'direct',
              'bios_interface': 'no-bios', 'inspect_interface': 'no-inspect'}


def node_fields(bmc, index, name=None):
    """The fields of a node driving system ``index`` of ``bmc`` with Ironic's redfish firmware interface."""
    driver_info = dict(bmc.driver_info(index), **ADOPTED_DRIVER_INFO)
    return dict(INTERFACES, name=name or 'fw-%s' % uuid.uuid4().hex[:10], driver='redfish', driver_info=driver_info)


def wait_for(ironic, node_uuid, states, seconds=180):
    """The node once its provision state is one of ``states`` and it has no target."""
    deadline = time.monotonic() + seconds
    while True:
        node = ironic.api('GET', '/v1/nodes/%s' % node_uuid)
        if node['provision_state'] in states and not node['target_provision_state']:
            return node
        assert time.monotonic() < deadline, 'node %s is %s (%s)' % (
            node_uuid, node['provision_state'], node['last_error'])
        time.sleep(0.5)


def enroll(ironic, bmc, index, state='manageable', name=None):
    """A node of system ``index`` in ``state`` (manageable, or active by adoption): the node as Ironic returns it."""
    node = ironic.api('POST', '/v1/nodes', node_fields(bmc, index, name))
    ironic.api('PUT', '/v1/nodes/%s/states/provision' % node['uuid'], {'target': 'manage'})
    node = wait_for(ironic, node['uuid'], ('manageable', 'enroll'))
    assert node['provision_state'] == 'manageable', node['last_error']
    if state == 'active':
        ironic.api('PATCH', '/v1/nodes/%s' % node['uuid'],
                   [{'op': 'add', 'path': '/instance_info/image_source', 'value': 'http://127.0.0.1:9/disk.img'}])
        ironic.api('PUT', '/v1/nodes/%s/states/provision' % node['uuid'], {'target': 'adopt'})
        node = wait_for(ironic, node['uuid'], ('active', 'adopt failed'))
        assert node['provision_state'] == 'active', node['last_error']
    return node


def enroll_all(ironic, bmc, states, names=None):
    """The nodes of systems 0, 1... of ``bmc``, each brought to its state of ``states`` (as enroll does) at the same
    time: Ironic manages and adopts them in parallel, as it would a fleet. The nodes in the order of ``states``."""
    names = names or [None] * len(states)
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(states)) as pool:
        enrolling = [pool.submit(enroll, ironic, bmc, index, state, name)
                     for index, (state, name) in enumerate(zip(states, names))]
    return [future.result() for future in enrolling]


def firmware_versions(ironic, node_uuid):
    """{component: current_version} as Ironic records them."""
    return dict((entry['component'], entry['current_version'])
                for entry in ironic.api('GET', '/v1/nodes/%s/firmware' % node_uuid)['firmware'])


def delete(ironic, node_uuid):
    ironic.api('PUT', '/v1/nodes/%s/maintenance' % node_uuid, {'reason': 'test cleanup'}, expect=None)
    ironic.api('DELETE', '/v1/nodes/%s' % node_uuid, expect=None)
