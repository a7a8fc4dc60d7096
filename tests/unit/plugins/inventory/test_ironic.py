# -*- coding: utf-8 -*-
"""The pure parts of the inventory plugin: variables, the host's address, built-in groups, group names, connection
options."""

import pytest
from ansible.errors import AnsibleParserError

from ansible_collections.baremetal.lifecycle.plugins.inventory import ironic
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import CONNECTION_ARGUMENT_SPEC

NODE = {
    'uuid': '5f1c2d6e-6a9c-4a55-9d3c-2b3f8e0c1a11', 'name': 'rack1-node07', 'provision_state': 'wait call-back',
    'power_state': 'power on', 'maintenance': False, 'maintenance_reason': None, 'resource_class': 'baremetal.large',
    'conductor_group': 'rack1', 'driver': 'redfish', 'traits': ['CUSTOM_GPU', 'HW_CPU_X86_AVX2'],
    'driver_info': {'redfish_address': 'http://127.0.0.1:8000', 'redfish_password': 'pw', 'bmc_key': 'k'},
    'properties': {}, 'extra': {}, 'owner': None, 'lessee': None, 'description': None, 'health': 'Warning',
    'instance_info': {'image_source': 'http://127.0.0.1/private.img', 'ssh_address': '192.0.2.17',
                      'image_pull_secret': 'pull-secret'},
}


def test_host_vars_are_the_public_fields_with_secrets_masked():
    variables = ironic.host_vars(NODE)
    assert set(variables) == set('ironic_' + field for field in ironic.FIELDS)
    assert 'instance_info' not in ironic.FIELDS
    assert variables['ironic_driver_info'] == {'redfish_address': 'http://127.0.0.1:8000',
                                               'redfish_password': '********', 'bmc_key': '********'}


def test_no_address_and_no_instance_info_by_default():
    assert ironic.address_source('none') is None
    assert ironic.requested_fields(None) == ironic.FIELDS
    assert 'ansible_host' not in ironic.host_vars(NODE)


def test_the_address_from_a_key_of_extra():
    source = ironic.address_source('extra:ssh_address')
    assert source == ('extra', 'ssh_address')
    assert ironic.requested_fields(source) == ironic.FIELDS
    node = dict(NODE, extra={'ssh_address': '198.51.100.4', 'rack': 'r1'})
    assert ironic.host_vars(node, source)['ansible_host'] == '198.51.100.4'


def test_the_address_from_instance_info_keeps_only_that_key():
    source = ironic.address_source('instance_info:ssh_address')
    assert ironic.requested_fields(source) == ironic.FIELDS + ('instance_info',)
    variables = ironic.host_vars(NODE, source)
    assert variables['ansible_host'] == '192.0.2.17'
    assert set(variables) == set('ironic_' + field for field in ironic.FIELDS) | {'ansible_host'}
    assert 'pull-secret' not in repr(variables) and 'private.img' not in repr(variables)


def test_a_node_without_a_text_under_the_key_gets_no_address():
    source = ('extra', 'ssh_address')
    for extra in ({}, None, {'ssh_address': ''}, {'ssh_address': None}, {'ssh_address': {'ipv4': '192.0.2.1'}}):
        assert 'ansible_host' not in ironic.host_vars(dict(NODE, extra=extra), source), extra


def test_a_password_in_an_address_url_is_masked():
    node = dict(NODE, extra={'bmc_url': 'https://admin:hunter2@192.0.2.9'})
    assert ironic.host_vars(node, ('extra', 'bmc_url'))['ansible_host'] == 'https://admin:********@192.0.2.9'


@pytest.mark.parametrize('host_address', ['', 'extra', 'extra:', 'properties:ip', 'driver_info:redfish_address',
                                          'ssh_address', 'None'])
def test_an_unknown_host_address_is_refused_with_the_forms(host_address):
    with pytest.raises(AnsibleParserError) as caught:
        ironic.address_source(host_address)
    assert ('host_address must be none, or extra: or instance_info: followed by the key that holds the address '
            '(extra:ssh_address), got %r.' % host_address) in str(caught.value)


@pytest.mark.parametrize('host_address', ['instance_info:image_pull_secret', 'instance_info:configdrive',
                                          'extra:api_token', 'instance_info:root_password', 'extra:ssh_key'])
def test_a_key_named_like_a_secret_is_refused(host_address):
    field, key = host_address.split(':')
    with pytest.raises(AnsibleParserError) as caught:
        ironic.address_source(host_address)
    assert 'host_address names %s key %r, which is named like a secret' % (field, key) in str(caught.value)


def test_built_in_groups_with_sanitized_names():
    groups = [ironic.InventoryModule._sanitize_group_name(group) for group in ironic.node_groups(ironic.host_vars(NODE))]
    assert groups == ['provision_state_wait_call_back', 'not_in_maintenance', 'resource_class_baremetal_large',
                      'conductor_group_rack1', 'trait_CUSTOM_GPU', 'trait_HW_CPU_X86_AVX2', 'health_Warning']


def test_no_group_for_what_a_node_lacks():
    node = dict(NODE, provision_state='enroll', maintenance=True, resource_class=None, conductor_group='', traits=None,
                health=None)
    assert ironic.node_groups(ironic.host_vars(node)) == ['provision_state_enroll', 'in_maintenance']


def test_an_ironic_older_than_health_gives_no_health_variable_and_no_health_group():
    older = dict((field, value) for field, value in NODE.items() if field != 'health')
    variables = ironic.host_vars(older)
    assert 'ironic_health' not in variables
    assert not [group for group in ironic.node_groups(variables) if group.startswith('health_')]


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


def test_the_file_is_checked_before_ansible_reads_its_options():
    plugin = ironic.InventoryModule()
    plugin._load_name = 'baremetal.lifecycle.ironic'
    with pytest.raises(AnsibleParserError, match=r"^baremetal.lifecycle.ironic: host_address must be a string, got a "
                                                 r"list \(\['extra:ip'\]\)"):
        plugin.set_options(direct={'plugin': 'baremetal.lifecycle.ironic', 'host_address': ['extra:ip']})
