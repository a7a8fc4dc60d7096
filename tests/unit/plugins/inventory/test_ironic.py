# -*- coding: utf-8 -*-
"""The pure parts of the inventory plugin: variables, built-in groups, group names, connection options."""

import pytest
from ansible.errors import AnsibleParserError

from ansible_collections.baremetal.lifecycle.plugins.inventory import ironic
from ansible_collections.baremetal.lifecycle.plugins.module_utils._module import CONNECTION_ARGUMENT_SPEC

NODE = {
    'uuid': '5f1c2d6e-6a9c-4a55-9d3c-2b3f8e0c1a11', 'name': 'rack1-node07', 'provision_state': 'wait call-back',
    'power_state': 'power on', 'maintenance': False, 'maintenance_reason': None, 'resource_class': 'baremetal.large',
    'conductor_group': 'rack1', 'driver': 'redfish', 'traits': ['CUSTOM_GPU', 'HW_CPU_X86_AVX2'],
    'driver_info': {'redfish_address': 'http://127.0.0.1:8000', 'redfish_password': 'pw', 'bmc_key': 'k'},
    'properties': {}, 'extra': {}, 'owner': None, 'lessee': None, 'description': None,
    'instance_info': {'image_source': 'http://127.0.0.1/private.img'},
}


def test_host_vars_are_the_public_fields_with_secrets_masked():
    variables = ironic.host_vars(NODE)
    assert set(variables) == set('ironic_' + field for field in ironic.FIELDS)
    assert 'instance_info' not in ironic.FIELDS
    assert variables['ironic_driver_info'] == {'redfish_address': 'http://127.0.0.1:8000',
                                               'redfish_password': '********', 'bmc_key': '********'}


def test_built_in_groups_with_sanitized_names():
    groups = [ironic.InventoryModule._sanitize_group_name(group) for group in ironic.node_groups(ironic.host_vars(NODE))]
    assert groups == ['provision_state_wait_call_back', 'not_in_maintenance', 'resource_class_baremetal_large',
                      'conductor_group_rack1', 'trait_CUSTOM_GPU', 'trait_HW_CPU_X86_AVX2']


def test_no_group_for_what_a_node_lacks():
    node = dict(NODE, provision_state='enroll', maintenance=True, resource_class=None, conductor_group='', traits=None)
    assert ironic.node_groups(ironic.host_vars(node)) == ['provision_state_enroll', 'in_maintenance']


def test_connection_options_are_the_modules_with_their_environment_fallback(monkeypatch):
    monkeypatch.setenv('OS_CLOUD', 'from-the-environment')
    options = {'api_timeout': 60, 'validate_certs': True}
    params = ironic.connection_params(options.get)
    assert set(params) == set(CONNECTION_ARGUMENT_SPEC)
    assert params['cloud'] == 'from-the-environment' and params['api_timeout'] == 60
    assert ironic.connection_params(dict(options, cloud='given').get)['cloud'] == 'given'
    monkeypatch.delenv('OS_CLOUD')
    assert ironic.connection_params(options.get)['cloud'] is None


def test_only_ironic_inventory_files_are_claimed(tmp_path):
    plugin = ironic.InventoryModule()
    for name, claimed in (('nodes.ironic.yml', True), ('nodes.ironic.yaml', True), ('ironic.yml', True),
                          ('ironic.yaml', True), ('nodes.ini', False), ('missing.ironic.yml', False)):
        path = tmp_path / name
        if name != 'missing.ironic.yml':
            path.write_text('plugin: baremetal.lifecycle.ironic\n')
        assert plugin.verify_file(str(path)) is claimed, name


def test_a_yaml_file_with_another_name_is_refused_with_the_naming_rule(tmp_path):
    path = tmp_path / 'nodes.yml'
    path.write_text('plugin: baremetal.lifecycle.ironic\n')
    with pytest.raises(AnsibleParserError) as caught:
        ironic.InventoryModule().verify_file(str(path))
    assert 'named ironic.yml or ironic.yaml, or whose names end in .ironic.yml or .ironic.yaml' in str(caught.value)
    assert 'rename %s' % path in str(caught.value)
