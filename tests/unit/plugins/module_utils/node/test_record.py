# -*- coding: utf-8 -*-
"""The pure half of baremetal_node (node/record.py): declarations, JSON patches, port reconciliation, diffs, secrets.

The behaviour against a real Ironic (reruns, writes, error messages) is tested in tests/integration/test_node.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import sys

import pytest
from ansible.module_utils import basic
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import record as node_utils
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.modules import baremetal_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import (
    PortChanges, creation_body, declared_record, dict_field_changes, integer_properties, node_changes,
    traits_change)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import IRONIC_MASK as IRONIC_SECRET_MASK

from .record_params import params, port

MASK = '********'


def apply_patch(record, operations):
    """What Ironic does with our operations (add/replace set, remove deletes), on a copy."""
    result = dict((key, dict(value) if isinstance(value, dict) else value) for key, value in record.items())
    for operation in operations:
        parts = operation['path'].strip('/').split('/')
        target = result
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        if operation['op'] == 'remove':
            del target[parts[-1]]
        else:
            target[parts[-1]] = operation['value']
    return result


# -- declarations --------------------------------------------------------------------------------

def test_only_given_fields_are_declared_and_interfaces_take_ironics_names():
    declared = declared_record(params(driver='redfish', properties={'cpu_arch': 'x86_64'},
                                      interfaces={'boot': 'pxe', 'deploy': None}, automated_clean=False))
    assert declared == {'driver': 'redfish', 'properties': {'cpu_arch': 'x86_64'}, 'boot_interface': 'pxe',
                        'automated_clean': False}


def test_ports_are_normalized_the_way_ironic_stores_them():
    declared = declared_record(params(ports=[port(' 52:54:00:AB:CD:EF ', local_link_connection={
        'switch_id': 'AA:BB:CC:DD:EE:FF', 'port_id': 'Eth1/1'})]))
    assert declared['ports'] == [port('52:54:00:ab:cd:ef', local_link_connection={
        'switch_id': 'aa:bb:cc:dd:ee:ff', 'port_id': 'Eth1/1'})]


def test_secrets_are_scrubbed_from_the_line_ansible_logs_to_syslog_and_from_the_result(monkeypatch, tmp_path, capsys,
                                                                                       echo_asked):
    """AnsibleModule logs its arguments from __init__, before any module code runs; the hook must come first."""
    secret = 'Hunter2-%s' % tmp_path.name
    args = tmp_path / 'args.json'
    module_args = {
        'name': 'n1', 'driver': 'redfish', 'endpoint': 'http://127.0.0.1:9', '_ansible_check_mode': True,
        'driver_info': {'redfish_address': 'http://127.0.0.1:9', 'redfish_password': secret, 'redfish_usernme': 'x'}}
    module_args.update(echo_asked)
    args.write_text(json.dumps({'ANSIBLE_MODULE_ARGS': module_args}))
    logged = []
    monkeypatch.setattr(sys, 'argv', ['baremetal_node', str(args)])
    monkeypatch.setattr(basic, '_ANSIBLE_ARGS', None)  # read the file above, not arguments cached by another test
    monkeypatch.setattr(basic.AnsibleModule, 'log', lambda module, msg, log_args=None: logged.append(msg))
    with pytest.raises(SystemExit):
        baremetal_node.main()  # fails on the misspelled key, before any request
    result = json.loads(capsys.readouterr().out)
    assert len(logged) == 1 and 'redfish_password' in logged[0] and secret not in logged[0]
    assert "did you mean 'redfish_username'?" in result['msg'] and result['api_calls'] == 0
    assert secret not in json.dumps(result)
    assert result['invocation']['module_args']['driver_info']['redfish_password'] != secret


# -- dictionary fields -----------------------------------------------------------------------------

def test_keys_are_set_removed_or_left_alone():
    current = {'cpu_arch': 'x86_64', 'memory_mb': 1024, 'inspected': 'yes'}
    operations, before, after = dict_field_changes(
        'properties', current, {'memory_mb': 2048, 'cpu_arch': 'x86_64', 'local_gb': None, 'inspected': None,
                                'cpus': 4}, send_secrets=False)
    assert operations == [
        {'op': 'add', 'path': '/properties/cpus', 'value': 4},
        {'op': 'remove', 'path': '/properties/inspected'},
        {'op': 'add', 'path': '/properties/memory_mb', 'value': 2048},
    ]
    assert before == {'inspected': 'yes', 'memory_mb': 1024}
    assert after == {'cpus': 4, 'memory_mb': 2048}


def test_a_secret_ironic_masks_is_not_compared_unless_asked():
    current = {'redfish_address': 'http://127.0.0.1:8000', 'redfish_password': IRONIC_SECRET_MASK}
    wanted = {'redfish_address': 'http://127.0.0.1:8000', 'redfish_password': 'new-password'}
    assert dict_field_changes('driver_info', current, wanted, send_secrets=False) == ([], {}, {})
    operations, _before, _after = dict_field_changes('driver_info', current, wanted, send_secrets=True)
    assert operations == [{'op': 'add', 'path': '/driver_info/redfish_password', 'value': 'new-password'}]


def test_a_secret_the_node_lacks_is_sent_even_on_update():
    operations, _before, after = dict_field_changes(
        'driver_info', {'redfish_address': 'x'}, {'redfish_password': 'pw'}, send_secrets=False)
    assert operations == [{'op': 'add', 'path': '/driver_info/redfish_password', 'value': 'pw'}]
    assert secrets.masked({'driver_info': after}) == {'driver_info': {'redfish_password': MASK}}


def test_a_value_ironic_masked_is_treated_as_secret_whatever_its_name():
    current = {'vendor_token_like': IRONIC_SECRET_MASK}
    assert dict_field_changes('instance_info', current, {'vendor_token_like': 'v'}, False)[0] == []


def test_secret_handling_only_applies_to_the_fields_that_hold_secrets():
    operations = dict_field_changes('extra', {'password': 'a'}, {'password': 'b'}, False)[0]
    assert operations == [{'op': 'add', 'path': '/extra/password', 'value': 'b'}]


json_values = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5))
keys = st.text(alphabet='abcdef_-', min_size=1, max_size=4)


@given(current=st.dictionaries(keys, json_values.filter(lambda value: value is not None)),
       wanted=st.dictionaries(keys, json_values))
def test_applying_the_patch_gives_what_was_declared_and_a_second_pass_is_empty(current, wanted):
    operations, _before, _after = dict_field_changes('extra', current, wanted, False)
    result = apply_patch({'extra': current}, operations)['extra']
    for key, value in wanted.items():
        if value is None:
            assert key not in result
        else:
            assert result[key] == value
    for key in set(current) - set(wanted):
        assert result[key] == current[key]
    assert dict_field_changes('extra', result, wanted, False) == ([], {}, {})


# -- the node record --------------------------------------------------------------------------------

NODE = {
    'uuid': 'u-1', 'name': 'n1', 'driver': 'redfish', 'conductor_group': 'rack1', 'resource_class': 'small',
    'boot_interface': 'pxe', 'properties': {}, 'traits': ['CUSTOM_B', 'CUSTOM_A'],
    'driver_info': {'redfish_address': 'http://127.0.0.1:8000', 'redfish_password': IRONIC_SECRET_MASK},
}


def test_scalar_fields_and_interfaces_are_replaced_when_they_differ():
    declared = declared_record(params(resource_class='large', conductor_group='RACK1', interfaces={'boot': 'pxe'},
                                      description='spare'))
    operations, before, after = node_changes(NODE, declared, send_secrets=False)
    assert operations == [{'op': 'replace', 'path': '/description', 'value': 'spare'},
                          {'op': 'replace', 'path': '/resource_class', 'value': 'large'}]
    assert before == {'description': None, 'resource_class': 'small'}
    assert after == {'description': 'spare', 'resource_class': 'large'}


def test_an_unchanged_node_needs_no_operation():
    declared = declared_record(params(driver='redfish', driver_info={'redfish_address': 'http://127.0.0.1:8000',
                                                                     'redfish_password': 'whatever'},
                                      traits=['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_A']))
    assert node_changes(NODE, declared, send_secrets=False) == ([], {}, {})
    assert traits_change(NODE, declared) is None


def test_traits_become_exactly_the_declared_list():
    assert traits_change(NODE, declared_record(params(traits=['CUSTOM_C']))) == ['CUSTOM_C']
    assert traits_change(NODE, declared_record(params(traits=[]))) == []
    assert traits_change(NODE, declared_record(params())) is None


def test_the_creation_body_drops_null_keys_and_leaves_ports_and_traits_to_their_own_requests():
    declared = declared_record(params(driver='fake-hardware', properties={'a': 1, 'b': None}, traits=['CUSTOM_A'],
                                      ports=[port('52:54:00:00:00:01')]))
    assert creation_body(declared, 'n1', None) == {'name': 'n1', 'driver': 'fake-hardware', 'properties': {'a': 1}}
    assert creation_body(declared, 'n1', 'u-9')['uuid'] == 'u-9'


# -- ports ------------------------------------------------------------------------------------------

CURRENT_PORTS = [
    {'uuid': 'p1', 'address': '52:54:00:00:00:01', 'pxe_enabled': True, 'physical_network': None,
     'local_link_connection': {'switch_id': 'aa:bb:cc:dd:ee:ff', 'port_id': 'e1'}},
    {'uuid': 'p2', 'address': '52:54:00:00:00:02', 'pxe_enabled': True, 'physical_network': None,
     'local_link_connection': {}},
]


def test_ports_are_matched_by_address_and_only_given_attributes_are_compared():
    wanted = [port('52:54:00:00:00:01'), port('52:54:00:00:00:02', pxe_enabled=False)]
    changes = PortChanges(CURRENT_PORTS, wanted)
    assert changes.create == [] and changes.delete == []
    assert changes.update == [(CURRENT_PORTS[1], [{'op': 'replace', 'path': '/pxe_enabled', 'value': False}])]


def test_ports_not_declared_are_deleted_and_new_ones_created():
    wanted = [port('52:54:00:00:00:03', physical_network='prov')]
    changes = PortChanges(CURRENT_PORTS, wanted)
    assert [entry['uuid'] for entry in changes.delete] == ['p1', 'p2']
    assert changes.create == wanted
    assert changes.after == [{'address': '52:54:00:00:00:03', 'physical_network': 'prov'}]


def test_the_same_ports_are_no_change():
    wanted = [port('52:54:00:00:00:02'), port('52:54:00:00:00:01', local_link_connection={
        'switch_id': 'aa:bb:cc:dd:ee:ff', 'port_id': 'e1'})]
    assert not PortChanges(CURRENT_PORTS, wanted)


# -- many nodes ------------------------------------------------------------------------------------

def test_secret_values_are_found_in_every_element_of_nodes():
    values = secrets.no_log_values({'nodes': [
        {'name': 'a', 'driver': 'redfish', 'driver_info': {'redfish_password': 'pw-a'}},
        {'name': 'b', 'driver': 'ipmi', 'driver_info': {'ipmi_password': 'pw-b'}},
        'not-a-dict', {'name': 'c', 'driver_info': ['wrong type']}]})
    assert {'pw-a', 'pw-b'} <= values and 'a' not in values


def test_flags_and_shard_are_compared_field_by_field():
    node = {'protected': True, 'protected_reason': 'db', 'shard': 's1', 'retired': False}
    assert node_changes(node, {'protected': True, 'shard': 's1'}, False)[0] == []
    operations, before, after = node_changes(node, {'protected_reason': 'database', 'shard': 's2'}, False)
    assert operations == [{'op': 'replace', 'path': '/protected_reason', 'value': 'database'},
                          {'op': 'replace', 'path': '/shard', 'value': 's2'}]
    assert before == {'protected_reason': 'db', 'shard': 's1'}


def test_disable_power_off_is_declared_and_needs_the_api_that_has_it():
    declared = node_utils.declared_record(params(name='n1', disable_power_off=True))
    assert declared['disable_power_off'] is True
    assert 'disable_power_off' in node_utils.required_features(declared)
    assert capabilities.FEATURE_MIN_VERSION['disable_power_off'] == (1, 95)


def test_integer_properties_given_as_strings_of_digits_become_integers_with_a_warning_naming_each():
    given = {'cpus': '8', 'memory_mb': 4096, 'local_gb': ' 100 ', 'cpu_arch': '64'}
    properties, warnings = integer_properties(given)
    assert properties == {'cpus': 8, 'memory_mb': 4096, 'local_gb': 100, 'cpu_arch': '64'}
    assert given['cpus'] == '8'  # the declaration given is left as it is
    assert warnings == [
        "properties.cpus was given as the string '8' and is sent to Ironic as the integer 8: write it as a number "
        "(cpus: 8); arguments written name=value (properties=cpus=8) and templated values are strings.",
        "properties.local_gb was given as the string ' 100 ' and is sent to Ironic as the integer 100: write it as a "
        "number (local_gb: 100); arguments written name=value (properties=local_gb=100) and templated values are "
        "strings."]
    assert [secrets.masked_text(warning) for warning in warnings] == warnings  # nothing in them looks secret
    assert integer_properties({'cpus': 8}) == ({'cpus': 8}, [])
    assert integer_properties(None) == (None, [])
