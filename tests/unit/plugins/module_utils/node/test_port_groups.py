# -*- coding: utf-8 -*-
"""Port groups as baremetal_node declares them (node/port_groups.py): the declaration, its checks, the plan (what is
created, updated, deleted, and which port moves), and the order of the writes. Against a real Ironic:
tests/integration/test_node_wiring.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.writes import NodeWrites
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import port_groups
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import AnswerLost
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import Declaration, check_declarations
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import PortChanges, declared_record, required_features

from .every_version import EveryVersion

MAC1, MAC2, MAC3 = '52:54:00:00:00:01', '52:54:00:00:00:02', '52:54:00:00:00:03'


def declared(groups=None, ports=None):
    return declared_record({'port_groups': groups, 'ports': ports})


def group(name, **attributes):
    return dict(dict((attribute, None) for attribute in port_groups.GROUP_ATTRIBUTES), name=name, **attributes)


def current_group(name, uuid, **attributes):
    return dict(group(name, **attributes), uuid=uuid)


def current_port(address, uuid, portgroup_uuid=None, physical_network=None):
    return {'uuid': uuid, 'address': address, 'portgroup_uuid': portgroup_uuid, 'physical_network': physical_network}


def test_a_declaration_keeps_groups_and_the_group_each_port_names_apart_from_the_ports():
    record = declared([{'name': 'bond0', 'address': MAC1.upper(), 'mode': '802.3ad'}],
                      [{'address': MAC1.upper(), 'port_group': 'bond0'}, {'address': MAC2, 'port_group': ''},
                       {'address': MAC3}])
    assert record['port_groups'] == [group('bond0', address=MAC1, mode='802.3ad')]
    assert record['port_memberships'] == {MAC1: 'bond0', MAC2: ''}
    assert 'port_group' not in record['ports'][0]
    assert 'port_groups' not in declared(None, [{'address': MAC1}])


@pytest.mark.parametrize('attributes, features', [
    ({}, ['port_groups']),
    ({'mode': 'balance-rr'}, ['port group mode', 'port_groups']),
    ({'properties': {'miimon': '100'}}, ['port group properties', 'port_groups']),
    ({'physical_network': 'physnet1'}, ['port group physical_network', 'port_groups']),
    ({'category': 'storage'}, ['port group category', 'port_groups']),
])
def test_each_field_needs_the_api_that_brought_it(attributes, features):
    assert required_features(declared([dict(attributes, name='bond0')])) == features


def test_a_port_naming_its_group_needs_api_1_24():
    assert required_features(declared(None, [{'address': MAC1, 'port_group': 'bond0'}])) == ['port_group']


def test_bad_groups_are_refused_with_every_problem_before_anything_is_read():
    record = declared([{'name': 'bond 0'}, {'name': 'bond1', 'address': 'nope'}, {'name': 'bond1'},
                       {'name': 'bond2', 'category': 'x' * 81, 'address': MAC1},
                       {'name': 'bond3', 'address': MAC1.upper()}],
                      [{'address': MAC2, 'port_group': 'bond9'}])
    errors = ' '.join(port_groups.declaration_errors(record))
    assert "port_groups[0].name 'bond 0' is not a port group name" in errors
    assert 'port_groups[1].address' in errors
    assert 'port_groups[2].name bond1 is listed twice' in errors
    assert 'port_groups[3].category is 81 characters long; Ironic takes at most 80' in errors
    assert 'port_groups[4].address %s is given to two port groups' % MAC1 in errors
    assert "port %s names port_group 'bond9', which port_groups does not declare" % MAC2 in errors


def test_a_uuid_is_not_a_group_name():
    errors = port_groups.declaration_errors(declared([{'name': '4b0b0a1e-1c52-4cb5-9f61-6d1d3d0c5a10'}]))
    assert errors and 'not a UUID' in errors[0]


def test_two_nodes_cannot_declare_one_group_name():
    declarations = [Declaration('node%d' % index, declared=declared([{'name': 'bond0'}]), label='nodes[%d]' % index)
                    for index in range(2)]
    assert [(declaration.name, message) for declaration, message in check_declarations(declarations)] == [
        ('node1', 'port group bond0 is also declared by nodes[0]; a port group name belongs to one node.')]


def test_a_node_deleted_cannot_declare_port_groups():
    declaration = Declaration('node0', declared=declared([]), state='absent')
    assert 'cannot also declare port_groups' in check_declarations([declaration])[0][1]


def test_the_plan_creates_updates_deletes_and_moves_ports_leaving_before_joining():
    groups = [current_group('bond0', 'g0', mode='active-backup'), current_group('old', 'g1')]
    ports = [current_port(MAC1, 'p1', 'g1'), current_port(MAC2, 'p2', 'g0')]
    record = declared([{'name': 'bond0', 'mode': '802.3ad'}, {'name': 'new'}],
                      [{'address': MAC1, 'port_group': 'new'}, {'address': MAC2}, {'address': MAC3, 'port_group': 'bond0'}])
    plan = port_groups.GroupPlan(record, groups, ports, PortChanges(ports, record['ports']))
    assert [wanted['name'] for wanted in plan.create] == ['new']
    assert plan.update == [(groups[0], [{'op': 'replace', 'path': '/mode', 'value': '802.3ad'}])]
    assert plan.delete == [groups[1]]
    # MAC2 keeps its group (its port_group is not given); MAC3 is a new port.
    assert plan.moves == [(MAC1, 'new'), (MAC3, 'bond0')]
    assert [(view['name'], view['ports']) for view in plan.before] == [('bond0', [MAC2]), ('old', [MAC1])]
    assert [(view['name'], view['mode'], view['ports']) for view in plan.after] == [
        ('bond0', '802.3ad', [MAC2, MAC3]), ('new', None, [MAC1])]


def test_ports_of_a_group_being_deleted_leave_it_first_even_when_the_ports_are_not_declared():
    groups = [current_group('old', 'g1')]
    ports = [current_port(MAC1, 'p1', 'g1'), current_port(MAC2, 'p2', 'g1')]
    plan = port_groups.GroupPlan(declared([]), groups, ports, None)
    assert plan.moves == [(MAC1, ''), (MAC2, '')] and plan.delete == groups


def test_a_port_deleted_with_the_record_needs_no_move():
    groups = [current_group('old', 'g1')]
    ports = [current_port(MAC1, 'p1', 'g1')]
    record = declared([], [])
    plan = port_groups.GroupPlan(record, groups, ports, PortChanges(ports, record['ports']))
    assert plan.moves == [] and plan.delete == groups


def test_a_node_as_declared_needs_nothing():
    groups = [current_group('bond0', 'g0', mode='802.3ad', address=MAC1)]
    ports = [current_port(MAC1, 'p1', 'g0')]
    record = declared([{'name': 'bond0', 'mode': '802.3ad', 'address': MAC1.upper()}],
                      [{'address': MAC1, 'port_group': 'bond0'}])
    assert not port_groups.GroupPlan(record, groups, ports, PortChanges(ports, record['ports']))


def test_without_port_groups_a_port_may_only_name_a_group_of_the_node():
    plan = port_groups.GroupPlan(declared(None, [{'address': MAC1, 'port_group': 'elsewhere'}]),
                                 [current_group('bond0', 'g0')], [current_port(MAC1, 'p1')], None)
    assert plan.unknown == ['elsewhere'] and plan.delete == []


def test_a_group_whose_ports_would_be_on_different_physical_networks_is_refused_before_any_write():
    # What Ironic refuses with HTTP 409 once the group exists and one port has joined it: the task stopped halfway.
    groups = [current_group('bond0', 'g0')]
    ports = [current_port(MAC1, 'p1', 'g0', physical_network='provisioning')]
    record = declared([{'name': 'bond0'}], [{'address': MAC1, 'port_group': 'bond0'},
                                            {'address': MAC2, 'port_group': 'bond0'}])
    plan = port_groups.GroupPlan(record, groups, ports, PortChanges(ports, record['ports']))
    assert port_groups.check_plan(None, plan, 'node') == [
        'port group bond0 would hold ports on different physical networks (%s: provisioning, %s: none); Ironic keeps '
        'the ports of a port group on one physical network. Give its ports the same physical_network.' % (MAC1, MAC2)]
    record = declared([{'name': 'bond0'}], [{'address': MAC1, 'port_group': 'bond0'},
                                            {'address': MAC2, 'port_group': 'bond0', 'physical_network': 'provisioning'}])
    assert port_groups.check_plan(None, port_groups.GroupPlan(record, groups, ports, PortChanges(ports, record['ports'])),
                                  'node') == []


def test_a_group_on_its_own_physical_network_takes_only_ports_on_it():
    groups = [current_group('bond0', 'g0', physical_network='storage')]
    ports = [current_port(MAC1, 'p1', physical_network='provisioning')]
    plan = port_groups.GroupPlan(declared(None, [{'address': MAC1, 'port_group': 'bond0'}]), groups, ports, None)
    (problem,) = port_groups.check_plan(None, plan, 'node')
    assert '(%s: provisioning; the group itself: storage)' % MAC1 in problem
    assert port_groups.check_plan(None, port_groups.GroupPlan(declared(None, [{'address': MAC1, 'port_group': ''}]),
                                                              groups, ports, None), 'node') == []


class Recorder(EveryVersion):
    """A client that records the writes, answering them as Ironic does."""

    def __init__(self, lose=()):
        self.calls = []
        self.lose = list(lose)
        self.groups = {}

    def request(self, method, path, body=None, params=None, retry_busy=True):
        self.calls.append((method, path))
        if self.lose and self.lose[0] == (method, path):
            self.lose.pop(0)
            if method == 'POST':
                self.groups[body['name']] = dict(body, uuid='uuid-' + body['name'])
            raise AnswerLost('lost')
        if method == 'POST':
            self.groups[body['name']] = dict(body, uuid='uuid-' + body['name'])
            return self.groups[body['name']]
        if method == 'GET':
            return self.groups.get(path.rsplit('/', 1)[-1])
        return {'uuid': path.rsplit('/', 1)[-1], 'name': 'x'}

    def update_port(self, uuid, patch, retry_busy=True):
        self.calls.append(('PATCH', '/ports/%s' % uuid, patch[0]['op'], patch[0].get('value')))
        return {'uuid': uuid, 'address': {'p1': MAC1, 'p3': MAC3}[uuid], 'portgroup_uuid': patch[0].get('value')}


def test_writes_go_in_the_order_ironic_needs_and_a_lost_creation_is_found_not_repeated():
    groups = [current_group('old', 'g1')]
    ports = [current_port(MAC1, 'p1', 'g1'), current_port(MAC3, 'p3')]
    record = declared([{'name': 'new'}], [{'address': MAC1, 'port_group': ''}, {'address': MAC3, 'port_group': 'new'}])
    plan = port_groups.GroupPlan(record, groups, ports, PortChanges(ports, record['ports']))
    client = Recorder(lose=[('POST', '/portgroups')])
    after, after_ports = port_groups.apply_plan(client, plan, 'node-uuid', ports, NodeWrites('n1', 'enroll', 600))
    assert client.calls == [('POST', '/portgroups'), ('GET', '/portgroups/new'),
                            ('PATCH', '/ports/p1', 'remove', None), ('PATCH', '/ports/p3', 'replace', 'uuid-new'),
                            ('DELETE', '/portgroups/g1')]
    assert [found['name'] for found in after] == ['new']
    assert port_groups.groups_view(after, after_ports)[0]['ports'] == [MAC3]
