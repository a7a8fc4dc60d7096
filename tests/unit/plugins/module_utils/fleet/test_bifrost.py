# -*- coding: utf-8 -*-
"""fleet/bifrost: a Bifrost inventory as the fleet role's list of nodes, or one message naming every key it cannot map.

The inventories below are written from Bifrost's documented inventory format (its "Inventory file format" how-to):
a mapping of node name to the node's fields."""

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.bifrost import from_bifrost, looks_like_bifrost

REDFISH = {
    'uuid': '6f0c1b6e-3f43-4b51-9a4c-0d6a4c2f7e10',
    'driver': 'redfish',
    'driver_info': {'redfish_address': 'https://10.20.0.11', 'redfish_system_id': '/redfish/v1/Systems/1',
                    'redfish_username': 'root', 'redfish_password': 'not-a-real-one'},
    'nics': [{'mac': 'b8:59:9f:10:00:01',
              'local_link_connection': {'switch_id': '0c:29:ef:00:00:01', 'port_id': 'Ethernet1/7'}},
             {'mac': 'b8:59:9f:10:00:02'}],
    'properties': {'cpu_arch': 'aarch64', 'cpus': '64', 'ram': '262144', 'disk_size': '1788',
                   'root_device': {'serial': 'S4EVNF0M801234'}, 'capabilities': 'boot_mode:uefi'},
    'instance_info': {'image_source': 'http://10.20.0.1:8080/ubuntu.qcow2', 'image_checksum': 'sha256:abc'},
    'ipv4_address': '10.20.1.11',
    'ipv4_subnet_mask': '255.255.252.0',
    'ipv4_gateway': '10.20.0.1',
    'ipv4_nameserver': ['10.20.0.2', '10.20.0.3'],
    'host_groups': ['compute', 'arm'],
}

# Old inventories keep driver_info in the sections power, deploy, management and console.
LEGACY_IPMI = {
    'driver': 'ipmi',
    'driver_info': {'power': {'ipmi_address': '10.20.0.12', 'ipmi_username': 'ADMIN', 'ipmi_password': 'pw'},
                    'deploy': {'deploy_kernel': 'http://10.20.0.1/ipa.kernel'},
                    'management': {'ipmi_bridging': 'no'},
                    'console': {'ipmi_terminal_port': 9012},
                    'ipmi_port': 623},
    'nics': [{'mac': 'b8:59:9f:10:00:03'}],
}


def test_a_node_is_mapped_to_the_roles_fields():
    fleet, error = from_bifrost({'arm-01': REDFISH})
    assert error is None
    assert fleet == [{
        'name': 'arm-01',
        'uuid': REDFISH['uuid'],
        'driver': 'redfish',
        'driver_info': REDFISH['driver_info'],
        'ports': [{'address': 'b8:59:9f:10:00:01',
                   'local_link_connection': {'switch_id': '0c:29:ef:00:00:01', 'port_id': 'Ethernet1/7'}},
                  {'address': 'b8:59:9f:10:00:02'}],
        # Bifrost's names become Ironic's; its strings of digits become the integers Ironic documents.
        'properties': {'cpu_arch': 'aarch64', 'cpus': 64, 'memory_mb': 262144, 'local_gb': 1788,
                       'root_device': {'serial': 'S4EVNF0M801234'}, 'capabilities': 'boot_mode:uefi'},
        'instance_info': REDFISH['instance_info'],
        'extra': {'ipv4_address': '10.20.1.11', 'ipv4_subnet_mask': '255.255.252.0', 'ipv4_gateway': '10.20.0.1',
                  'ipv4_nameserver': ['10.20.0.2', '10.20.0.3'], 'host_groups': ['compute', 'arm']},
    }]


def test_the_legacy_sections_of_driver_info_are_flattened():
    (node,), error = from_bifrost({'ipmi-01': LEGACY_IPMI})
    assert error is None
    assert node['driver_info'] == {'ipmi_address': '10.20.0.12', 'ipmi_username': 'ADMIN', 'ipmi_password': 'pw',
                                   'deploy_kernel': 'http://10.20.0.1/ipa.kernel', 'ipmi_bridging': 'no',
                                   'ipmi_terminal_port': 9012, 'ipmi_port': 623}


def test_the_per_node_ramdisk_of_older_bifrost_goes_to_driver_info():
    host = {'driver': 'ipmi', 'ipa_kernel_url': 'http://10.20.0.1/k', 'ipa_ramdisk_url': 'http://10.20.0.1/r'}
    (node,), error = from_bifrost({'n': host})
    assert error is None
    assert node['driver_info'] == {'deploy_kernel': 'http://10.20.0.1/k', 'deploy_ramdisk': 'http://10.20.0.1/r'}
    (node,), error = from_bifrost({'n': dict(host, driver_info={'ipmi_address': '10.0.0.1'})})
    assert node['driver_info'] == {'ipmi_address': '10.0.0.1', 'deploy_kernel': 'http://10.20.0.1/k',
                                   'deploy_ramdisk': 'http://10.20.0.1/r'}


def test_the_inner_name_wins_over_the_key_and_the_order_is_kept():
    fleet, error = from_bifrost({'b': {'driver': 'fake-hardware'}, 'a': {'name': 'a-renamed', 'driver': 'ipmi'}})
    assert error is None
    assert [node['name'] for node in fleet] == ['b', 'a-renamed']
    assert fleet[0] == {'name': 'b', 'driver': 'fake-hardware'}


def test_every_key_it_cannot_map_is_named_in_one_message_and_no_node_is_returned():
    inventory = {
        'ok-01': {'driver': 'fake-hardware'},
        'odd-01': dict(LEGACY_IPMI, provisioning_interface='eth1', properties={'ram': '1024', 'gpus': '4'},
                       nics=[{'mac': 'b8:59:9f:10:00:04', 'extra': {'switchport': {'mode': 'access'}}}]),
        'odd-02': {'driver': 'redfish', 'instance_info': {'image_source': 'x', 'configdrive': {'meta_data': {}}},
                   'driver_info': {'ipmi_address': 'a', 'power': {'ipmi_address': 'b'}}},
    }
    fleet, error = from_bifrost(inventory)
    assert fleet == []
    assert error == (
        "The Bifrost inventory has keys the role cannot map: "
        "odd-01: nics[0].extra, provisioning_interface, properties.gpus; "
        "odd-02: instance_info.configdrive (give it as config_drive of "
        "baremetal.lifecycle.baremetal_provision_state), driver_info.power.ipmi_address (driver_info.ipmi_address "
        "is also given, with another value). "
        "Remove them from the file, or describe those nodes in the role's own format (fleet_format: fleet).")


def test_the_same_key_with_the_same_value_in_a_section_is_fine():
    driver_info = {'ipmi_address': 'a', 'power': {'ipmi_address': 'a'}}
    (node,), error = from_bifrost({'n': {'driver': 'ipmi', 'driver_info': driver_info}})
    assert error is None
    assert node['driver_info'] == {'ipmi_address': 'a'}


def test_values_of_the_wrong_shape_are_named_too():
    fleet, error = from_bifrost({'a': 'ipmi', 'b': {'driver': 'ipmi', 'nics': {'mac': 'x'}, 'properties': [],
                                                    'driver_info': {'deploy': 'k'}}, 'c': {'nics': [{}]}})
    assert fleet == []
    assert 'a: a node must be a mapping of its fields; ' in error
    assert ('b: nics (must be a list), properties (must be a mapping), driver_info.deploy (a legacy section must be '
            'a mapping); ') in error
    assert 'c: nics[0] (must be a mapping with mac).' in error


def test_an_empty_inventory_is_an_empty_fleet_and_a_list_is_refused():
    assert from_bifrost({}) == ([], None)
    assert from_bifrost([]) == ([], None)
    fleet, error = from_bifrost([{'name': 'x', 'driver': 'ipmi'}])
    assert fleet == [] and 'must be a mapping of node name to node, got a list' in error


@pytest.mark.parametrize('description, bifrost', [
    ({'edge-01': {'driver': 'ipmi'}, 'edge-02': {'nics': [{'mac': '52:54:00:e1:00:01'}]}}, True),
    ({'name': 'n1', 'driver': 'ipmi'}, False),  # one node of the role's own format, not in a list
    ({'edge-01': {'driver': 'ipmi'}, 'edge-02': 'ipmi'}, False),
    ({'edge-01': {'no_such_field': 1}}, False),
    ([{'name': 'n1'}], False), ({}, False), (None, False),
])
def test_a_bifrost_inventory_is_told_by_its_shape(description, bifrost):
    assert looks_like_bifrost(description) is bifrost


def test_an_integer_property_that_is_not_a_whole_number_is_named_and_digits_need_no_warning():
    fleet, error = from_bifrost({'n': {'driver': 'ipmi',
                                       'properties': {'cpus': 'eight', 'ram': '4096', 'disk_size': 1.5}}})
    assert fleet == []
    assert "n: properties.cpus (must be a whole number, got 'eight'), properties.disk_size (must be a whole number, " \
           "got 1.5)." in error
    (node,), error = from_bifrost({'n': {'driver': 'ipmi', 'properties': {'cpus': 2, 'ram': '4096'}}})
    assert error is None and node['properties'] == {'cpus': 2, 'memory_mb': 4096}
