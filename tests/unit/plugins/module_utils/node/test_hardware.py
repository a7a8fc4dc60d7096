# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pure parts of node/hardware.py (BIOS, RAID, firmware): the difference, the steps, the target.

Servicing end to end, through the engine's planner, is tested against a real Ironic in tests/integration/test_hardware.py.
"""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import functools

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware as hw
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware_cycle as cycle
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware_declaration as hwd
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware_difference as hwdiff
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets

from .bios_registry import REGISTRY
from .test_hardware_difference import BUILT, LAYOUT, current, node
from ..engine.fake_ironic import FakeIronic


def test_password_values_never_appear():
    declaration = hwd.HardwareDeclaration(bios_settings={'SetupPwd': 'hunter2', 'ProcTurboMode': 'Disabled'})
    changes = hwdiff.difference(declaration, current(bios=REGISTRY))
    assert changes['bios_settings']['SetupPwd'] == {'before': None, 'after': secrets.MASK}
    steps = hw.hardware_steps(declaration, changes, node())
    shown = hw.shown_steps(steps, declaration, REGISTRY)
    assert 'hunter2' not in str(shown) and 'hunter2' in str(steps)
    assert secrets.no_log_values({'BiosAdminPassword': 's3cret', 'NumCores': 4}) == set(['s3cret'])


def test_only_differing_bios_settings_are_applied_and_values_compare_as_text():
    declaration = hwd.HardwareDeclaration(bios_settings={'ProcTurboMode': 'Enabled', 'NumCores': 4})
    changes = hwdiff.difference(declaration, current(bios=REGISTRY))
    assert changes['bios_settings'] == {'NumCores': {'before': '8', 'after': 4}}
    assert hw.hardware_steps(declaration, changes, node()) == [
        {'interface': 'bios', 'step': 'apply_configuration', 'args': {'settings': [{'name': 'NumCores', 'value': 4}]}}]
    same = hwd.HardwareDeclaration(bios_settings={'NumCores': 8})
    assert hw.hardware_steps(same, hwdiff.difference(same, current(bios=REGISTRY)), node()) == []


def test_firmware_is_updated_only_below_the_declared_version():
    firmware = [{'component': 'bios', 'version': '2.10', 'url': 'http://127.0.0.1/bios.bin'},
                {'component': 'bmc', 'version': '1.5', 'url': 'http://127.0.0.1/bmc.bin', 'wait': 60},
                {'component': 'nic:1', 'version': '3', 'url': 'http://127.0.0.1/nic.bin'}]
    reported = {'bios': {'component': 'bios', 'current_version': '2.9'},
                'bmc': {'component': 'bmc', 'current_version': '1.6'}}
    declaration = hwd.HardwareDeclaration(firmware=firmware)
    changes = hwdiff.difference(declaration, current(firmware=reported))
    assert changes['firmware'] == {'bios': {'before': '2.9', 'after': '2.10'}, 'nic:1': {'before': None, 'after': '3'}}
    assert hw.hardware_steps(declaration, changes, node()) == [{'interface': 'firmware', 'step': 'update', 'args': {
        'settings': [{'component': 'bios', 'url': 'http://127.0.0.1/bios.bin'},
                     {'component': 'nic:1', 'url': 'http://127.0.0.1/nic.bin'}]}}]


def test_a_different_layout_is_recorded_then_deleted_and_created():
    declaration = hwd.HardwareDeclaration(raid=LAYOUT)
    built = {'logical_disks': [{'size_gb': 1900, 'raid_level': '1+0', 'is_root_volume': True}]}
    changes = hwdiff.difference(declaration, current(raid_config=built, target_raid_config={}))
    assert changes['raid']['target_raid_config'] == {'before': {}, 'after': LAYOUT}
    assert changes['raid']['logical_disks[0]'] == {'before': built['logical_disks'][0], 'after': LAYOUT['logical_disks'][0]}
    assert changes['raid']['logical_disks[1]'] == {'before': None, 'after': LAYOUT['logical_disks'][1]}
    assert hw.hardware_steps(declaration, changes, node(raid_config=built)) == [
        {'interface': 'raid', 'step': 'delete_configuration'}, {'interface': 'raid', 'step': 'create_configuration'}]


def test_no_raid_deletes_only_what_is_built():
    declaration = hwd.HardwareDeclaration(raid={})
    changes = hwdiff.difference(declaration, current(raid_config=BUILT, target_raid_config=LAYOUT))
    assert hw.hardware_steps(declaration, changes, node(raid_config=BUILT)) == [
        {'interface': 'raid', 'step': 'delete_configuration'}]
    assert hwdiff.difference(declaration, current(raid_config={}, target_raid_config={}))['raid'] == {}


def test_steps_run_firmware_then_raid_then_bios():
    declaration = hwd.HardwareDeclaration(bios_settings={'NumCores': 4}, raid=LAYOUT,
                                          firmware=[{'component': 'bmc', 'version': '2', 'url': 'http://127.0.0.1/b'}])
    steps = hw.hardware_steps(declaration, hwdiff.difference(declaration, current(bios=REGISTRY)), node())
    assert [(step['interface'], step['step']) for step in steps] == [
        ('firmware', 'update'), ('raid', 'delete_configuration'), ('raid', 'create_configuration'),
        ('bios', 'apply_configuration')]


class ReadOnlyIronic(object):
    """One node and its BIOS cache, as GETs answer them; any write fails the test."""

    def __init__(self, node, bios):
        self.node = node
        self.bios = bios

    def find_node(self, ident, fields=None):
        return dict(self.node) if ident in (self.node['uuid'], self.node['name']) else None

    def get_bios(self, uuid):
        return [dict(entry) for entry in self.bios.values()]


@pytest.mark.parametrize('fields, declaration, words', [
    ({}, hwd.HardwareDeclaration(raid=LAYOUT), "node n1: raid needs raid.delete_configuration and raid.create_configuration, "
                                               "which its raid_interface 'fake' does not offer. Set raid_interface"),
    ({'bios_interface': 'no-bios'}, hwd.HardwareDeclaration(bios_settings={'NumCores': 4}, apply='servicing', allow_reboot=True),
     "bios_settings needs bios.apply_configuration, which its bios_interface 'no-bios' does not offer"),
])
def test_an_interface_that_offers_no_such_step_is_refused_before_the_plan(fields, declaration, words):
    client = ReadOnlyIronic(node('active' if declaration.apply == 'servicing' else 'manageable', **fields), REGISTRY)
    with pytest.raises(hwd.HardwareError) as error:
        hw.prepare(client, client.node, declaration)
    assert words in str(error.value)
    # apply: never runs no step: it reports the difference
    assert hw.prepare(client, client.node, declaration._replace(apply='never'))['goal'] is None
    # an interface the rule does not name is trusted
    client.node.update(raid_interface='agent', bios_interface='redfish')
    assert hw.prepare(client, client.node, declaration)['goal'] is not None


def test_the_node_view_masks_what_ironic_quotes_in_last_error_and_maintenance_reason():
    quoted = node(last_error="clean step failed: {'args': {'admin_password': 'MARKER-1'}}",
                  maintenance_reason='BMC reset, password=MARKER-2')
    client = ReadOnlyIronic(quoted, REGISTRY)
    result = hw.configure(client, [(quoted, hwd.HardwareDeclaration(bios_settings={'NumCores': 4}, apply='never'))])[0]
    assert 'MARKER' not in repr(result)
    assert result['node']['last_error'] == "clean step failed: {'args': {'admin_password': '********'}}"


@pytest.mark.parametrize('name', ['SetupToken', 'AdminPwd', 'BmcSecret', 'BootPassword', 'TpmKey'])
def test_the_old_value_of_a_setting_named_like_a_secret_is_masked_in_changes_and_diff(name):
    registry = dict(REGISTRY, **{name: {'name': name, 'value': 'OLD-MARKER', 'attribute_type': 'String'}})
    client = ReadOnlyIronic(node(), registry)
    result = hw.configure(client, [(client.node, hwd.HardwareDeclaration(bios_settings={name: 'NEW-MARKER'}, apply='never'))])[0]
    assert 'MARKER' not in repr(result['changes']) and 'MARKER' not in repr(result['diff'])
    assert result['changes']['bios_settings'][name] == {'before': secrets.MASK, 'after': secrets.MASK}


def test_a_declared_value_of_a_setting_whose_registry_says_password_is_handed_to_ansible_to_scrub():
    # BootPin names no secret: only its registry tells, once read; the echo of the task's arguments must hide it too.
    registry = dict(REGISTRY, BootPin={'name': 'BootPin', 'value': 'OLD-PIN', 'attribute_type': 'Password'})
    client = ReadOnlyIronic(node(), registry)
    declaration = hwd.HardwareDeclaration(bios_settings={'BootPin': 'pin-found-4242', 'NumCores': 37},
                                          apply='never')
    result = hw.configure(client, [(client.node, declaration)])[0]
    assert 'pin-found' not in repr(result) and 'OLD-PIN' not in repr(result)
    assert 'pin-found-4242' in secrets.found_secrets()
    assert '37' not in secrets.found_secrets()


def test_a_node_an_interrupted_cycle_leaves_moving_past_the_timeout_refuses_the_task_in_the_engines_words(
        monkeypatch):
    fake = FakeIronic(tick=10000)
    monkeypatch.setattr(cycle, 'wait_for_cycles', functools.partial(cycle.wait_for_cycles, clock=fake.clock,
                                                                    sleep=fake.sleep))
    fake.add('u-1', 'clean wait', target='manageable')
    fake.stalled.add('u-1')
    declaration = hwd.HardwareDeclaration(bios_settings={'NumCores': 4})
    with pytest.raises(hwd.HardwareError) as caught:
        hw.configure(fake, [(dict(fake.nodes['u-1']), declaration)], timeout=300)
    assert str(caught.value).startswith(
        "node u-1: not started: it was still 'clean wait' (target 'manageable') after 300 s and must come to rest "
        "before it can be planned.")
    assert fake.requests == [] and fake.now >= 300
