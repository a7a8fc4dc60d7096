# -*- coding: utf-8 -*-
"""baremetal_hardware's ``firmware`` through Ironic's real Redfish firmware interface, against sushy-tools' emulator
extended by redfish_firmware.py: the BMC fetches the image from a loopback server and its component then reports the
version the image names, which Ironic reads back into its firmware components."""

from __future__ import annotations

import pytest

from firmware_fleet import delete, enroll, firmware_versions
from redfish import RedfishBMC


@pytest.fixture(scope='module')
def bmc(tmp_path_factory):
    """One emulator, two systems of one model: system 0 for servicing, system 1 for cleaning."""
    started = RedfishBMC(tmp_path_factory.mktemp('redfish-firmware'), systems=2, models=['R640', 'R640'],
                         bios_versions=['1.2', '1.2'], bmc_versions=['2.8', '2.8']).start()
    yield started
    started.stop()


def test_servicing_a_deployed_node_brings_its_bios_to_the_image_version(firmware_ironic, bmc, firmware_images,
                                                                        run_module):
    node = enroll(firmware_ironic, bmc, 0, state='active')
    try:
        assert firmware_versions(firmware_ironic, node['uuid']) == {'bios': '1.2', 'bmc': '2.8'}
        url = firmware_images.url('bios', '1.3')

        result = run_module('baremetal_hardware', endpoint=firmware_ironic.endpoint, node=node['name'],
                            firmware=[{'component': 'bios', 'version': '1.3', 'url': url}],
                            apply='servicing', allow_reboot=True, timeout=300)

        assert not result.get('failed'), result.get('msg')
        assert result['changed'] is True and result['node']['provision_state'] == 'active'
        assert [(t['verb'], t['from'], t['to']) for t in result['transitions']] == [('service', 'active', 'active')]
        assert firmware_images.fetched == ['/bios-1.3.bin']
        assert firmware_versions(firmware_ironic, node['uuid']) == {'bios': '1.3', 'bmc': '2.8'}
    finally:
        delete(firmware_ironic, node['uuid'])
