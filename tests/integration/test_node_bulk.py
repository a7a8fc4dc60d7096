# -*- coding: utf-8 -*-
"""Bulk mode (nodes:) of baremetal_node, baremetal_maintenance and baremetal_power against a real Ironic: a few
list requests whatever the number of nodes, writes only where a node differs, per-node results and errors, every
bad element refused before anything is written, and no secret in any output."""

import json
import uuid

import pytest

from test_node import (BAD_INPUT, KERNEL, RAMDISK, closed_loopback_url, new_mac, ports_of, run_playbook_verbosely,
                       stored_driver_info)


@pytest.fixture
def names(ironic):
    """Factory of n unique node names; whatever the test created under them is deleted afterwards."""
    made = []

    def make(count):
        tag = uuid.uuid4().hex[:8]
        made.extend('bulk-%s-%d' % (tag, index) for index in range(count))
        return made[-count:]

    yield make

    for name in made:
        if ironic.api('DELETE', '/nodes/%s' % name, expect=None) is not None:
            ironic.api('PUT', '/nodes/%s/maintenance' % name, {'reason': 'test cleanup'}, expect=None)
            ironic.api('DELETE', '/nodes/%s' % name, expect=None)


def writes_naming(ironic, mark):
    return [(request.method, request.path) for request in ironic.write_requests_since(mark)]


def lookup_requests(ironic, mark):
    """The paths of the reads after mark that look nodes up: node lists, node GETs and port lists."""
    paths = [request.path for request in ironic.requests_since(mark) if request.method == 'GET']
    return {'node lists': [path for path in paths if path.startswith('/v1/nodes?')],
            'node GETs': [path for path in paths if path.startswith('/v1/nodes/')],
            'port lists': [path for path in paths if path.startswith('/v1/ports?')]}


def fleet(names, password):
    a, b, c = names
    return [
        {'name': a, 'driver': 'fake-hardware', 'driver_info': {'deploy_kernel': KERNEL, 'deploy_ramdisk': RAMDISK},
         'properties': {'cpu_arch': 'x86_64'}, 'ports': [{'address': new_mac()}], 'traits': ['CUSTOM_BULK'],
         'shard': 'shard-a', 'conductor_group': ''},
        {'name': b, 'driver': 'redfish', 'driver_info': {'redfish_address': closed_loopback_url(),
                                                         'redfish_username': 'admin', 'redfish_password': password},
         'extra': {'rack': 'r1'}, 'shard': 'shard-a'},
        {'name': c, 'driver': 'fake-hardware', 'resource_class': 'bulk-small', 'owner': 'team-c', 'shard': 'shard-b'},
    ]


def test_a_fleet_is_enrolled_in_one_task_and_rerun_with_three_reads_and_no_write(ironic, run_module, names):
    password = 'Zq-bulk-%s' % uuid.uuid4().hex
    nodes = fleet(names(3), password)
    created = run_module('baremetal_node', diff=True, nodes=nodes)
    assert not created.get('failed'), created.get('msg')
    assert created['changed'] is True and created['totals']['nodes'] == 3 and created['totals']['changed'] == 3
    assert [(entry['name'], entry['created'], entry['error']) for entry in created['nodes']] == [
        (node['name'], True, None) for node in nodes]
    assert [diff['after_header'] for diff in created['diff']] == [node['name'] for node in nodes]
    first = ironic.api('GET', '/nodes/%s' % nodes[0]['name'])
    assert (first['shard'], first['traits']) == ('shard-a', ['CUSTOM_BULK'])
    assert ports_of(ironic, first['uuid'])[0]['address'] == nodes[0]['ports'][0]['address']
    assert stored_driver_info(ironic, created['nodes'][1]['node']['uuid'])['redfish_password'] == password
    assert created['nodes'][1]['node']['driver_info']['redfish_password'] == '********'

    for check in (True, False):
        mark = ironic.log_mark()
        again = run_module('baremetal_node', check=check, diff=True, nodes=nodes)
        assert not again.get('failed'), again.get('msg')
        assert again['changed'] is False and again['totals']['changed'] == 0 and again['diff'] == []
        assert writes_naming(ironic, mark) == []
        # The root (version), one list of twice as many nodes as declared and a GET for each node it did not hold,
        # then their ports: a list per node, or one of every port when the list held all of Ironic (three requests
        # in all when Ironic holds few more nodes). In proportion to the nodes declared, not to the size of Ironic.
        requests = lookup_requests(ironic, mark)
        assert len(requests['node lists']) == 1 and len(requests['node GETs']) <= 3
        assert [('node_uuid=' in path) for path in requests['port lists']] in ([False], [True] * 3)
        assert again['api_calls'] == 1 + sum(len(paths) for paths in requests.values())
    assert password not in json.dumps(created) + json.dumps(again)


def test_only_the_node_that_differs_is_written_key_by_key(ironic, run_module, names):
    nodes = fleet(names(3), 'Zq-%s' % uuid.uuid4().hex)
    assert not run_module('baremetal_node', nodes=nodes).get('failed')
    changed = [dict(node) for node in nodes]
    changed[2] = dict(changed[2], properties={'memory_mb': 2048}, traits=['CUSTOM_NEW'])
    preview_mark = ironic.log_mark()
    preview = run_module('baremetal_node', check=True, diff=True, nodes=changed)
    assert writes_naming(ironic, preview_mark) == []
    assert [diff['after_header'] for diff in preview['diff']] == [nodes[2]['name']]
    assert preview['diff'][0]['after'] == {'properties': {'memory_mb': 2048}, 'traits': ['CUSTOM_NEW']}

    mark = ironic.log_mark()
    result = run_module('baremetal_node', nodes=changed)
    assert [entry['changed'] for entry in result['nodes']] == [False, False, True]
    uuid_c = result['nodes'][2]['node']['uuid']
    assert writes_naming(ironic, mark) == [('PATCH', '/v1/nodes/%s' % uuid_c), ('PUT', '/v1/nodes/%s/traits' % uuid_c)]
    node = ironic.api('GET', '/nodes/%s' % uuid_c)
    assert node['properties'] == {'memory_mb': 2048} and node['resource_class'] == 'bulk-small'


@pytest.mark.parametrize('args, expected', BAD_INPUT)
def test_the_bad_input_catalogue_fails_an_element_before_any_write(ironic, run_module, names, args, expected):
    good, bad, other = names(3)
    mark = ironic.log_mark()
    result = run_module('baremetal_node', nodes=[{'name': good, 'driver': 'fake-hardware'}, dict(args, name=bad),
                                                 {'name': other, 'driver': 'fake-hardware', 'traits': ['lower']}])
    assert result['failed'] is True
    for text in expected:
        assert 'nodes[1] (%s): ' % bad in result['msg'] and text in result['msg'], result['msg']
    assert "nodes[2] (%s): trait 'lower' is not a trait name" % other in result['msg']
    assert 'nodes[0]' not in result['msg']
    assert writes_naming(ironic, mark) == []
    for name in (good, bad, other):
        ironic.api('GET', '/nodes/%s' % name, expect=(404,))


@pytest.mark.parametrize('nodes, expected', [
    ([{'name': 'same', 'driver': 'fake-hardware'}, {'name': 'same', 'driver': 'fake-hardware'}],
     ['nodes[1].name names same again (first in nodes[0]): list each node once.']),
    ([{'name': 'x', 'driver': 'fake-hardware', 'ports': [{'address': '52:54:00:00:00:99'}]},
      {'name': 'y', 'driver': 'fake-hardware', 'ports': [{'address': '52:54:00:00:00:99'}]}],
     ['nodes[1] (y): port 52:54:00:00:00:99 is also declared by nodes[0] (x)']),
    ([{'driver': 'fake-hardware'}], ['missing required arguments: name found in nodes']),
    ([{'name': 'z', 'driver': 'fake-hardware', 'drvier': 'typo'}], ['drvier']),
    ([{'name': 'z', 'properties': 'not a dict'}], ['properties', 'dict']),
])
def test_elements_wrong_as_a_list_fail_before_any_write(ironic, run_module, nodes, expected):
    mark = ironic.log_mark()
    result = run_module('baremetal_node', nodes=nodes)
    assert result['failed'] is True
    for text in expected:
        assert text in result['msg'], result['msg']
    assert writes_naming(ironic, mark) == []


def test_nodes_cannot_be_combined_with_the_options_of_one_node(ironic, run_module):
    result = run_module('baremetal_node', nodes=[{'name': 'n', 'driver': 'fake-hardware'}], driver='fake-hardware')
    assert result['failed'] is True and 'mutually exclusive: nodes|driver' in result['msg']


def test_a_node_ironic_refuses_fails_alone_and_the_others_are_written(ironic, run_module, names):
    ok, refused = names(2)
    # Shaped like a standard trait, but os-traits has no such name: only Ironic can tell, after the POST.
    result = run_module('baremetal_node', nodes=[{'name': ok, 'driver': 'fake-hardware'},
                                                 {'name': refused, 'driver': 'fake-hardware',
                                                  'traits': ['HW_NO_SUCH_TRAIT']}])
    assert result['failed'] is True and result['msg'].startswith('1 of the 2 nodes to change failed (max_fail_percentage is 0): nodes[1] (%s): ' % refused)
    # The refused node was taken back: nothing of it is left, so it reports no change.
    assert [(entry['name'], entry['changed'], entry['created'], bool(entry['error'])) for entry in result['nodes']] == [
        (ok, True, True, False), (refused, False, False, True)]
    assert ironic.api('GET', '/nodes/%s' % ok)['name'] == ok
    ironic.api('GET', '/nodes/%s' % refused, expect=(404,))


def test_absent_elements_are_deleted_next_to_present_ones(ironic, run_module, names):
    keep, drop = names(2)
    run_module('baremetal_node', nodes=[{'name': keep, 'driver': 'fake-hardware'},
                                        {'name': drop, 'driver': 'fake-hardware', 'ports': [{'address': new_mac()}]}])
    result = run_module('baremetal_node', nodes=[{'name': keep}, {'name': drop, 'state': 'absent'}])
    assert not result.get('failed'), result.get('msg')
    assert [entry['changed'] for entry in result['nodes']] == [False, True]
    ironic.api('GET', '/nodes/%s' % drop, expect=(404,))


def test_retired_and_protected_are_managed_key_wise(ironic, raw, run_module):
    active = raw.node_in('active')
    manageable = raw.node_in('manageable')
    nodes = [{'name': active['name'], 'protected': True, 'protected_reason': 'production database'},
             {'name': manageable['name'], 'retired': True, 'retired_reason': 'end of life'}]
    result = run_module('baremetal_node', nodes=nodes)
    assert not result.get('failed'), result.get('msg')
    assert [entry['node']['protected'] for entry in result['nodes']] == [True, False]
    assert result['nodes'][1]['node']['retired_reason'] == 'end of life'
    mark = ironic.log_mark()
    assert run_module('baremetal_node', nodes=nodes)['changed'] is False
    assert writes_naming(ironic, mark) == []

    unprotected = run_module('baremetal_node', name=active['name'], protected=False)
    assert unprotected['changed'] is True
    node = ironic.api('GET', '/nodes/%s' % active['uuid'])
    assert (node['protected'], node['protected_reason']) == (False, None)
    mark = ironic.log_mark()
    refused = run_module('baremetal_node', name=manageable['name'], protected=True)
    assert refused['failed'] is True and "Ironic protects a node only in active or rescue" in refused['msg']
    assert writes_naming(ironic, mark) == []


def test_node_info_and_selections_filter_by_shard_resource_class_and_owner(ironic, run_module, names):
    # Ironic only takes a conductor group some conductor serves: the harness's conductor serves the default ('').
    nodes = fleet(names(3), 'Zq-%s' % uuid.uuid4().hex)
    assert not run_module('baremetal_node', nodes=nodes).get('failed')
    for filters, expected in (({'shard': 'shard-a'}, nodes[:2]), ({'shard': 'shard-b', 'owner': 'team-c'}, nodes[2:]),
                              ({'resource_class': 'bulk-small', 'shard': 'shard-b'}, nodes[2:])):
        info = run_module('baremetal_node_info', **filters)
        assert sorted(node['name'] for node in info['nodes']) == sorted(node['name'] for node in expected), filters

    mark = ironic.log_mark()
    held = run_module('baremetal_maintenance', select={'shard': 'shard-a'}, state='enabled', reason='switch upgrade')
    assert not held.get('failed'), held.get('msg')
    assert sorted(entry['node']['name'] for entry in held['nodes']) == sorted(node['name'] for node in nodes[:2])
    assert len(writes_naming(ironic, mark)) == 2
    assert ironic.api('GET', '/nodes/%s' % nodes[2]['name'])['maintenance'] is False


def test_maintenance_of_many_nodes_per_element_with_check_mode_and_a_no_op_rerun(ironic, run_module, fresh_node):
    a, b, c = fresh_node(), fresh_node(), fresh_node()
    elements = [a['name'], {'node': b['uuid'], 'state': 'enabled', 'reason': 'fan'}, c['name']]
    mark = ironic.log_mark()
    preview = run_module('baremetal_maintenance', check=True, diff=True, nodes=elements, state='disabled')
    assert [entry['changed'] for entry in preview['nodes']] == [False, True, False]
    assert [diff['after'] for diff in preview['diff']] == [{'maintenance': True, 'maintenance_reason': 'fan'}]
    assert writes_naming(ironic, mark) == []

    result = run_module('baremetal_maintenance', nodes=elements, state='disabled')
    assert result['totals']['changed'] == 1
    assert writes_naming(ironic, mark) == [('PUT', '/v1/nodes/%s/maintenance' % b['uuid'])]
    assert ironic.api('GET', '/nodes/%s' % b['uuid'])['maintenance_reason'] == 'fan'
    again_mark = ironic.log_mark()
    again = run_module('baremetal_maintenance', nodes=elements, state='disabled')
    # The root (version), one list of twice as many nodes as named and a GET for each node it did not hold.
    requests = lookup_requests(ironic, again_mark)
    assert len(requests['node lists']) == 1 and len(requests['node GETs']) <= 3 and requests['port lists'] == []
    assert again['changed'] is False and again['api_calls'] == 1 + 1 + len(requests['node GETs'])
    assert writes_naming(ironic, again_mark) == []


@pytest.mark.parametrize('module, extra', [('baremetal_maintenance', {}), ('baremetal_power', {})])
@pytest.mark.parametrize('elements, expected', [
    (['missing-node-%s' % uuid.uuid4().hex[:6], 'FRESH'], ["No node is named or has the UUID 'missing-node-"]),
    (['FRESH', 'FRESH'], ['nodes[1] names FRESH again (first in nodes[0]): list each node once.']),
    ([{'node': 'FRESH', 'state': 'sideways'}], ["nodes[0].state must be one of"]),
    ([{'name': 'FRESH'}], ['nodes[0] must be a name, a UUID, or a dictionary with node']),
])
def test_maintenance_and_power_refuse_bad_elements_before_any_write(ironic, run_module, fresh_node, module, extra,
                                                                    elements, expected):
    node = fresh_node()
    elements = json.loads(json.dumps(elements).replace('FRESH', node['name']))
    state = 'enabled' if module == 'baremetal_maintenance' else 'powered_on'
    mark = ironic.log_mark()
    result = run_module(module, nodes=elements, state=state, **extra)
    assert result['failed'] is True
    for text in expected:
        assert text.replace('FRESH', node['name']) in result['msg'], result['msg']
    assert writes_naming(ironic, mark) == []


def test_power_of_many_nodes_and_a_no_op_rerun(ironic, run_module, fresh_node):
    nodes = [fresh_node(), fresh_node(), fresh_node()]
    for node in nodes:
        ironic.api('PUT', '/nodes/%s/states/power' % node['uuid'], {'target': 'power off'})
    result = run_module('baremetal_power', nodes=[node['name'] for node in nodes], state='powered_on')
    assert not result.get('failed'), result.get('msg')
    assert result['totals']['changed'] == 3
    assert [entry['node']['power_state'] for entry in result['nodes']] == ['power on'] * 3
    mark = ironic.log_mark()
    again = run_module('baremetal_power', nodes=[node['uuid'] for node in nodes], state='powered_on')
    assert again['changed'] is False and writes_naming(ironic, mark) == []


def test_no_secret_of_any_element_reaches_the_output_at_vvvv(ironic, names, tmp_path):
    first, second = names(2)
    secrets = ['Zq-vvvv-a-%s' % uuid.uuid4().hex, 'Zq-vvvv-b-%s' % uuid.uuid4().hex]
    vars_file = tmp_path / 'bulk-secrets-vars.yml'
    vars_file.write_text('''
fleet:
  - name: %(first)s
    driver: redfish
    driver_info: {redfish_address: "%(address)s", redfish_username: admin, redfish_password: %(secret_a)s}
  - name: %(second)s
    driver: ipmi
    validate_driver_info: false
    driver_info: {ipmi_address: 127.0.0.1, ipmi_password: %(secret_b)s}
''' % {'first': first, 'second': second, 'secret_a': secrets[0], 'secret_b': secrets[1],
       'address': closed_loopback_url()})
    playbook = tmp_path / 'bulk-secrets.yml'
    playbook.write_text('''
- name: Secrets of many nodes in every kind of output
  hosts: localhost
  gather_facts: false
  # In a vars file: Ansible shows the source lines around a failed task, and the playbook is not what is tested.
  vars_files:
    - %(vars_file)s
  tasks:
    - name: Enroll (ipmi is not enabled here, so the task fails before any write, naming that element)
      baremetal.lifecycle.baremetal_node:
        nodes: "{{ fleet }}"
      ignore_errors: true
    - name: Rotate, in check mode
      baremetal.lifecycle.baremetal_node:
        nodes: "{{ fleet[:1] }}"
        update_secrets: always
      check_mode: true
    - name: Rotate for real (the node is created, and not checked)
      baremetal.lifecycle.baremetal_node:
        nodes: "{{ fleet[:1] }}"
        update_secrets: always
    - name: Rotate again (nothing listens at the BMC address, so the check after the write fails, quoting Ironic)
      baremetal.lifecycle.baremetal_node:
        nodes: "{{ fleet[:1] }}"
        update_secrets: always
      ignore_errors: true
''' % {'vars_file': vars_file})
    process, output = run_playbook_verbosely(ironic, playbook)
    assert process.returncode == 0, output[-4000:]
    assert '"invocation"' in output and "Ironic does not enable the hardware type 'ipmi'" in output
    assert 'node %s: Ironic cannot use its BMC with the new driver_info' % first in output
    for secret in secrets:
        assert secret not in output
    node = ironic.api('GET', '/nodes/%s' % first)
    assert stored_driver_info(ironic, node['uuid'])['redfish_password'] == secrets[0]


def test_twenty_nodes_written_at_once_on_sqlite_all_succeed(ironic, run_module, names):
    # Ironic on SQLite answers concurrent PUT .../traits with HTTP 500 "database is locked" (rolled back); the
    # client sends them again with backoff, so no node fails.
    fleet_names = names(20)
    for traits in (['CUSTOM_LOCK_A'], ['CUSTOM_LOCK_B']):
        mark = ironic.log_mark()
        result = run_module('baremetal_node', concurrency=20,
                            nodes=[{'name': name, 'driver': 'fake-hardware', 'traits': traits} for name in fleet_names])
        assert not result.get('failed'), result.get('msg')
        assert result['totals']['failed'] == 0 and result['totals']['changed'] == 20
        stored = {name: ironic.api('GET', '/nodes/%s/traits' % name)['traits'] for name in fleet_names}
        assert stored == dict.fromkeys(fleet_names, traits)
        locked = [request for request in ironic.write_requests_since(mark) if request.status == 500]
        print('%s: %d writes answered database is locked, then sent again' % (traits[0], len(locked)))
