# -*- coding: utf-8 -*-
"""baremetal_hardware's ``firmware`` through Ironic's real Redfish firmware interface, against sushy-tools' emulator
extended by redfish_firmware.py: the BMC fetches the image from a loopback server and its component then reports the
version the image names, which Ironic reads back into its firmware components. A network adapter's firmware too:
Ironic records it as a ``nic:<adapter>`` component, and a campaign brings it to a baseline after the BMC and BIOS."""

from __future__ import annotations

import re

import pytest

from firmware_fleet import delete, enroll, firmware_versions
from redfish import RedfishBMC


@pytest.fixture(scope='module')
def bmc(tmp_path_factory):
    """One emulator, three systems of one model: system 0 for servicing, system 1 for cleaning, system 2 with a
    network adapter."""
    started = RedfishBMC(tmp_path_factory.mktemp('redfish-firmware'), systems=3, models=['R640'] * 3,
                         bios_versions=['1.2'] * 3, bmc_versions=['2.8'] * 3,
                         nic_versions=[None, None, {'NIC.Slot.1': '22.31'}]).start()
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


def test_a_campaign_brings_bmc_bios_and_nic_to_the_baseline_in_its_order(firmware_ironic, bmc, firmware_images,
                                                                         run_module):
    node = enroll(firmware_ironic, bmc, 2, state='active')
    try:
        info = run_module('baremetal_node_info', endpoint=firmware_ironic.endpoint, node=node['name'], firmware=True)
        assert not info.get('failed'), info.get('msg')
        recorded = dict((entry['component'], entry) for entry in info['nodes'][0]['firmware'])
        assert sorted(recorded) == ['bios', 'bmc', 'nic:NIC.Slot.1']
        assert (recorded['nic:NIC.Slot.1']['current_version'], recorded['nic:NIC.Slot.1']['model']) == (
            '22.31', 'EN-25G')
        urls = [firmware_images.url('bmc', '2.9'), firmware_images.url('bios', '1.3'),
                firmware_images.url('nic:NIC.Slot.1', '22.40')]
        baseline = [{'name': 'Contoso R640', 'match': {'model': 'R640'}, 'components': [
            {'component': 'bmc', 'version': '2.9', 'url': urls[0]},
            {'component': 'bios', 'version': '1.3', 'url': urls[1]},
            {'component': 'nic:NIC.Slot.1', 'version': '22.40', 'url': urls[2]}]}]
        mark = firmware_ironic.log_mark()

        result = run_module('baremetal_firmware_campaign', endpoint=firmware_ironic.endpoint, nodes=[node['name']],
                            firmware_baseline=baseline, allow_disruptive=True, timeout=600)

        assert not result.get('failed'), result.get('msg')
        (entry,) = result['nodes']
        assert [(step['component'], step['version']) for step in entry['done']] == [
            ('bmc', '2.9'), ('bios', '1.3'), ('nic:NIC.Slot.1', '22.40')]
        # Ironic ran the steps in the baseline's order, each image once, from its own log.
        sent = re.findall(r"Executing \{'interface': 'firmware', 'step': 'update', 'args': \{'settings': \[\{"
                          r"'component': '[^']+', 'url': '([^']+)'\}\]\}.*? on node " + node['uuid'],
                          firmware_ironic.log_since(mark))
        assert sent == urls
        assert firmware_versions(firmware_ironic, node['uuid']) == {
            'bmc': '2.9', 'bios': '1.3', 'nic:NIC.Slot.1': '22.40'}
    finally:
        delete(firmware_ironic, node['uuid'])
