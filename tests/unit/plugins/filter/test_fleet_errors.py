# -*- coding: utf-8 -*-
"""The filter fleet_errors and the fleet schema: messages that name node and field, no secret in them, and a
schema that agrees with the modules it feeds."""

import json
import os
import sys

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.baremetal.lifecycle.plugins.filter.fleet_errors import fleet_errors
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware_declaration as _hardware
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import INTERFACES
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.states import DECLARABLE_STATES
from ansible_collections.baremetal.lifecycle.plugins.modules import baremetal_node

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
with open(os.path.join(ROOT, 'roles', 'fleet', 'files', 'fleet.schema.json')) as _handle:
    SCHEMA = json.load(_handle)
NODE = SCHEMA['definitions']['node']['properties']
# Options of baremetal_node that are about the task, not the record; the role sets them itself.
# The hardware configuration, applied with baremetal_hardware.
HARDWARE_FIELDS = {'bios_settings', 'raid', 'firmware'}


def test_a_valid_fleet_has_no_errors():
    fleet = [
        {'name': 'rack1-node01', 'driver': 'ipmi',
         'driver_info': {'ipmi_address': '127.0.0.1', 'ipmi_port': 623, 'ipmi_password': 'secret'},
         'ports': [{'address': '52:54:00:12:34:56', 'pxe_enabled': True}], 'traits': ['CUSTOM_GPU'],
         'interfaces': {'boot': 'pxe'}, 'extra': {'asset-tag': 'A1', 'gone': None}, 'provision_state': 'active',
         'maintenance': True, 'maintenance_reason': 'fan'},
        {'name': 'rack1-node02', 'driver': 'vendor-x', 'validate_driver_info': False, 'driver_info': {'x': 1}},
    ]
    assert fleet_errors(fleet, SCHEMA) == []
    assert fleet_errors([], SCHEMA) == []


@pytest.mark.parametrize('node, message', [
    ({'name': 'n', 'driver': 'fake-hardware', 'drvier': 1},
     "fleet[0] (n): drvier: is not a known field (did you mean 'driver'?)"),
    ({'driver': 'fake-hardware'}, 'fleet[0]: name: is required'),
    ({'name': 'n', 'driver': 'fake-hardware', 'ports': [{'address': '52:54:00:12:34'}]},
     "fleet[0] (n): ports[0].address '52:54:00:12:34' is not a MAC address; write six hexadecimal octets separated by "
     "colons, for example 52:54:00:12:34:56."),
    # 52:54:00:10:00:01 written without quotes: YAML 1.1 reads it as a base-60 number
    ({'name': 'n', 'driver': 'fake-hardware', 'ports': [{'address': 41135076001}]},
     'fleet[0] (n): ports[0].address: must be a string, got 41135076001 (integer); YAML reads a MAC address written '
     'without quotes whose octets are all decimal digits, such as 52:54:00:10:00:01, as a base-60 number. Quote it: '
     '"52:54:00:10:00:01".'),
    ({'name': 'n', 'driver': 'fake-hardware', 'ports': [{'pxe_enabled': True}]},
     'fleet[0] (n): ports[0].address: is required'),
    ({'name': 'n', 'driver': 'fake-hardware', 'provision_state': 'deployed'},
     "fleet[0] (n): provision_state: must be one of enroll, manageable, available, active, rescue, "
     "got 'deployed' (string)"),
    ({'name': 'n', 'driver': 'fake-hardware', 'maintenance': 'yes'},
     "fleet[0] (n): maintenance: must be a boolean, got 'yes' (string)"),
    ({'name': 'n', 'driver': 'fake-hardware', 'maintenance_reason': 'fan'},
     'fleet[0] (n): maintenance_reason: needs maintenance: true'),
    ({'name': 'n', 'driver': 'fake-hardware', 'extra': {'bad key': 1}},
     "fleet[0] (n): extra: key 'bad key' is not allowed: Ironic only updates keys made of letters, digits, _ and -"),
    ({'name': 'n', 'driver': 'fake-hardware', 'traits': ['CUSTOM_A', 'CUSTOM_A']},
     'fleet[0] (n): traits: lists an item twice'),
    ({'name': 'n', 'driver': 'fake-hardware', 'interfaces': {'boot': 'pxe', 'bot': 'x'}},
     "fleet[0] (n): interfaces.bot: is not a known field (did you mean 'boot'?)"),
    ({'name': 'n', 'driver': 'ipmi', 'driver_info': {'ipmi_address': '127.0.0.1', 'ipmi_port': 'six'}},
     "fleet[0] (n): driver_info key 'ipmi_port' must be an integer, got 'six' (str)"),
    ({'name': 'n', 'driver': 'ipmy'}, "fleet[0] (n): unknown driver 'ipmy' (did you mean 'ipmi'?)"),
    ('n', "fleet[0]: must be a dictionary, got 'n' (string)"),
    # As baremetal_node takes them: "8" is converted there (with a warning), "eight" refused before any enrolment.
    ({'name': 'n', 'driver': 'fake-hardware', 'properties': {'cpus': 'eight', 'memory_mb': '4096'}},
     "fleet[0] (n): properties.cpus must be a whole number (Ironic documents cpus as an integer), got a string "
     "'eight': write it as a number, such as cpus: 8."),
    ({'name': 'n', 'driver': 'fake-hardware', 'resource_class': ['a', 'b']},
     'fleet[0] (n): resource_class: must be a string, got a list'),
])
def test_each_error_names_the_node_and_the_field(node, message):
    errors = fleet_errors([node], SCHEMA)
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_names_uuids_and_mac_addresses_declared_twice():
    fleet = [{'name': 'a', 'driver': 'fake-hardware', 'uuid': '3c1e9a54-7f0c-4d0a-9d3e-4f1b2a6c8e01',
              'ports': [{'address': '52:54:00:00:00:0a'}]},
             {'name': 'a', 'driver': 'fake-hardware', 'uuid': '3C1E9A547F0C4D0A9D3E4F1B2A6C8E01',
              'ports': [{'address': '52:54:00:00:00:02'}, {'address': '52:54:00:00:00:0A'}]}]
    assert fleet_errors(fleet, SCHEMA) == [
        "fleet[1] (a): name: 'a' is also declared by fleet[0] (a)",
        "fleet[1] (a): uuid: '3C1E9A547F0C4D0A9D3E4F1B2A6C8E01' is also declared by fleet[0] (a)",
        "fleet[1] (a): ports[1].address: '52:54:00:00:00:0A' is also declared by fleet[0] (a)",
    ]


def test_secret_values_never_appear():
    secret = 'hunter2-do-not-show'
    fleet = [{'name': 'n', 'driver': 'ipmi', 'driver_info': {'ipmi_address': '127.0.0.1', 'ipmi_password': [secret]},
              'instance_info': {'configdrive': {'meta_data': secret}}}, {'name': secret, 'driver': 1}]
    errors = fleet_errors(fleet, SCHEMA)
    assert errors and not [error for error in errors if secret in error and not error.startswith('fleet[1]')]
    assert fleet_errors({'name': 'n', 'driver_info': {'ipmi_password': secret}}, SCHEMA) == [
        'fleet: must be a list, got a dictionary']


def test_a_broken_schema_is_reported():
    with pytest.raises(AnsibleFilterError, match='not a valid JSON Schema'):
        fleet_errors([], {'type': 'no-such-type'})


def test_without_jsonschema_the_filter_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, 'jsonschema', None)  # import jsonschema raises ImportError
    with pytest.raises(AnsibleFilterError, match=r"^The fleet role's check of the fleet description \(the filter "
                       r"baremetal\.lifecycle\.fleet_errors\) needs the Python library jsonschema, .* -m pip install -r "
                       r"\S+/requirements\.txt\.$"):
        fleet_errors([], SCHEMA)


def test_the_schema_declares_every_record_option_of_baremetal_node():
    # The record options of an element of nodes, which is what the role passes; state (and how state absent deletes a
    # node, keep_workload), the node's states and how its provision state is reached are the role's own business.
    record = (set(baremetal_node.ELEMENT_SPEC) - {'state', 'keep_workload'} - set(baremetal_node.STATE_SPEC)
              - set(baremetal_node.ELEMENT_PROVISION_OPTIONS))
    assert set(NODE) - {'maintenance', 'maintenance_reason', 'provision_state', 'power'} - HARDWARE_FIELDS == record
    assert set(NODE['interfaces']['properties']) == set(INTERFACES)
    port = baremetal_node.ARGUMENT_SPEC['ports']['options']
    assert set(SCHEMA['definitions']['node']['properties']['ports']['items']['properties']) == set(port)


def test_the_schema_declares_the_hardware_keys_baremetal_hardware_accepts():
    definitions = SCHEMA['definitions']
    assert set(definitions['logical_disk']['properties']) == set(_hardware.RAID_DISK_KEYS)
    assert definitions['logical_disk']['properties']['raid_level']['enum'] == list(_hardware.RAID_LEVELS)
    assert set(definitions['firmware']['items']['properties']) == set(_hardware.FIRMWARE_KEYS)
    assert fleet_errors([{'name': 'n', 'driver': 'fake-hardware', 'raid': {'logical_disks': [{'raid_level': 1}]},
                          'firmware': [{'component': 'bmc'}]}], SCHEMA) != []


def test_the_schema_declares_the_declarable_provision_states():
    assert NODE['provision_state']['enum'] == list(DECLARABLE_STATES)


def test_a_wave_pause_without_waves_is_named_by_the_role_variables():
    settings = {'fleet_wave_pause': '60', 'fleet_wave_size': '', 'fleet_concurrency': '4'}
    messages = fleet_errors([], SCHEMA, settings)
    assert messages == ['fleet_wave_pause (60 s) is the pause between two waves, and without fleet_wave_size the task '
                        'runs no waves. Set fleet_wave_size (such as 10, or "25%" of the nodes that change), or leave '
                        'fleet_wave_pause out.']
    assert fleet_errors([], SCHEMA, dict(settings, fleet_wave_size='2')) == []
    assert fleet_errors([], SCHEMA, dict(settings, fleet_wave_pause='0')) == []


def test_a_bifrost_inventory_given_as_the_roles_own_format_says_to_set_fleet_format():
    inventory = {'edge-01': {'driver': 'ipmi', 'nics': [{'mac': '52:54:00:e1:00:01'}]},
                 'edge-02': {'uuid': '3c1e9a54-7f0c-4d0a-9d3e-4f1b2a6c8e01', 'driver': 'ipmi'}}
    assert fleet_errors(inventory, SCHEMA) == [
        'fleet: must be a list of nodes, and this is a dictionary of nodes by name (edge-01, edge-02), which looks '
        'like a Bifrost inventory: set fleet_format: bifrost (with the file in fleet_file) to read it as one.']
    # One node of the role's own format, not in a list, is no Bifrost inventory.
    assert fleet_errors({'name': 'n', 'driver': 'fake-hardware'}, SCHEMA) == ['fleet: must be a list, got a dictionary']
