# -*- coding: utf-8 -*-
"""The role baremetal.lifecycle.fleet with fleet_format: bifrost against a real Ironic: a Bifrost inventory is
enrolled with its ports and mapped properties, a rerun writes nothing, a change in the file updates the record
(Bifrost itself enrolls once and never updates), and keys the role cannot map are named in one message before any
write. The inventories are written from Bifrost's documented inventory format."""

from __future__ import annotations

import json
import uuid

PLAYBOOK = '''
- name: Converge a Bifrost inventory
  hosts: localhost
  gather_facts: false
  roles:
    - role: baremetal.lifecycle.fleet
      fleet_format: bifrost
      fleet_provision_state: manageable
'''


def inventory(tag):
    return {
        'bf-a-%s' % tag: {
            'uuid': str(uuid.uuid4()),
            'driver': 'fake-hardware',
            # the legacy sections of older inventories
            'driver_info': {'deploy': {'deploy_kernel': 'http://127.0.0.1:9/ipa.kernel',
                                       'deploy_ramdisk': 'http://127.0.0.1:9/ipa.initramfs'}},
            'nics': [{'mac': '52:54:%s:01' % _octets(tag),
                      'local_link_connection': {'switch_id': '0c:29:ef:00:00:01', 'port_id': 'Ethernet1/1'}},
                     {'mac': '52:54:%s:02' % _octets(tag)}],
            'properties': {'cpu_arch': 'x86_64', 'cpus': '16', 'ram': '32768', 'disk_size': '480',
                           'root_device': {'name': '/dev/sda'}},
            'ipv4_address': '192.0.2.21',
            'ipv4_gateway': '192.0.2.1',
            'host_groups': ['compute'],
        },
        'bf-b-%s' % tag: {
            'driver': 'fake-hardware',
            'nics': [{'mac': '52:54:%s:03' % _octets(tag)}],
            'properties': {'cpu_arch': 'x86_64', 'ram': '16384', 'capabilities': 'boot_mode:uefi'},
            'instance_info': {'image_source': 'http://127.0.0.1:9/os.qcow2'},
        },
        'bf-c-%s' % tag: {'name': 'bf-c-%s' % tag, 'driver': 'fake-hardware'},
    }


def _octets(tag):
    return '%s:%s:%s' % (tag[0:2], tag[2:4], tag[4:6])


def ports_of(ironic, name):
    return sorted((port['address'], port['local_link_connection'])
                  for port in ironic.api('GET', '/ports?node=%s&fields=address,local_link_connection' % name)['ports'])


def test_a_bifrost_inventory_is_enrolled_kept_in_sync_and_a_rerun_writes_nothing(ironic, run_playbook, tmp_path):
    tag = uuid.uuid4().hex[:6]
    nodes = inventory(tag)
    path = tmp_path / 'baremetal.json'
    path.write_text(json.dumps(nodes), encoding='utf-8')
    a, b, c = sorted(nodes)
    try:
        rc, output = run_playbook(PLAYBOOK, {'fleet_file': str(path)})
        assert rc == 0, output

        node = ironic.api('GET', '/nodes/%s' % a)
        assert node['uuid'] == nodes[a]['uuid']
        assert node['provision_state'] == 'manageable'
        assert node['driver_info'] == {'deploy_kernel': 'http://127.0.0.1:9/ipa.kernel',
                                       'deploy_ramdisk': 'http://127.0.0.1:9/ipa.initramfs'}
        # Bifrost writes the integer properties as strings of digits: Ironic gets the integers it documents.
        assert node['properties'] == {'cpu_arch': 'x86_64', 'cpus': 16, 'memory_mb': 32768, 'local_gb': 480,
                                      'root_device': {'name': '/dev/sda'}}
        assert node['extra'] == {'ipv4_address': '192.0.2.21', 'ipv4_gateway': '192.0.2.1', 'host_groups': ['compute']}
        assert ports_of(ironic, a) == [
            ('52:54:%s:01' % _octets(tag), {'switch_id': '0c:29:ef:00:00:01', 'port_id': 'Ethernet1/1'}),
            ('52:54:%s:02' % _octets(tag), {})]
        node = ironic.api('GET', '/nodes/%s' % b)
        assert node['properties'] == {'cpu_arch': 'x86_64', 'memory_mb': 16384, 'capabilities': 'boot_mode:uefi'}
        assert node['instance_info'] == {'image_source': 'http://127.0.0.1:9/os.qcow2'}
        assert ironic.api('GET', '/nodes/%s' % c)['provision_state'] == 'manageable'

        mark = ironic.log_mark()
        rc, output = run_playbook(PLAYBOOK, {'fleet_file': str(path)})
        assert rc == 0, output
        assert ironic.write_requests_since(mark) == []

        # The hardware of b changed: more memory, a second NIC. Bifrost would not update the record; the role does.
        nodes[b]['properties']['ram'] = '65536'
        nodes[b]['nics'].append({'mac': '52:54:%s:04' % _octets(tag)})
        path.write_text(json.dumps(nodes), encoding='utf-8')
        mark = ironic.log_mark()
        rc, output = run_playbook(PLAYBOOK, {'fleet_file': str(path)})
        assert rc == 0, output
        assert ironic.api('GET', '/nodes/%s' % b)['properties']['memory_mb'] == 65536
        assert [port[0] for port in ports_of(ironic, b)] == ['52:54:%s:03' % _octets(tag), '52:54:%s:04' % _octets(tag)]
        writes = ironic.write_requests_since(mark)
        b_uuid = ironic.api('GET', '/nodes/%s' % b)['uuid']
        assert sorted((request.method, request.path) for request in writes) == [
            ('PATCH', '/v1/nodes/%s' % b_uuid), ('POST', '/v1/ports')], writes
    finally:
        for name in nodes:
            ironic.api('DELETE', '/nodes/%s' % name, expect=None)


def test_keys_the_role_cannot_map_are_named_in_one_message_before_any_write(ironic, run_playbook, tmp_path):
    tag = uuid.uuid4().hex[:6]
    path = tmp_path / 'baremetal.yml'
    path.write_text('''
bf-ok-%(tag)s:
  driver: fake-hardware
bf-odd-%(tag)s:
  driver: fake-hardware
  nics:
    - mac: "52:54:00:00:00:01"
      extra: {switchport: {mode: access, native_vlan: 30}}
  properties: {ram: "1024", gpus: "2"}
  instance_info:
    configdrive: {meta_data: {hostname: odd}}
''' % {'tag': tag}, encoding='utf-8')
    mark = ironic.log_mark()
    rc, output = run_playbook(PLAYBOOK, {'fleet_file': str(path)})
    assert rc != 0
    assert ironic.write_requests_since(mark) == []
    assert ('The Bifrost inventory has keys the role cannot map: bf-odd-%s: nics[0].extra, properties.gpus, '
            'instance_info.configdrive (give it as config_drive of baremetal.lifecycle.baremetal_provision_state). '
            % tag) in output, output
    assert ironic.api('GET', '/nodes/bf-ok-%s' % tag, expect=(404,))


def test_a_bifrost_inventory_given_without_fleet_format_says_to_set_it_before_any_write(ironic, run_playbook,
                                                                                        tmp_path):
    """Before: "fleet: must be a list, got a dictionary", which did not say what the file was nor what to set."""
    tag = uuid.uuid4().hex[:6]
    path = tmp_path / 'baremetal.json'
    path.write_text(json.dumps(inventory(tag)), encoding='utf-8')
    mark = ironic.log_mark()
    rc, output = run_playbook(PLAYBOOK.replace('      fleet_format: bifrost\n', ''), {'fleet_file': str(path)})
    assert rc != 0
    assert ironic.write_requests_since(mark) == []
    assert ('fleet: must be a list of nodes, and this is a dictionary of nodes by name (bf-a-%s, bf-b-%s, bf-c-%s), '
            'which looks like a Bifrost inventory: set fleet_format: bifrost (with the file in fleet_file) to read it '
            'as one.' % (tag, tag, tag)) in output, output
    assert 'must be a list, got a dictionary' not in output
