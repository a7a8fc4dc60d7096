# -*- coding: utf-8 -*-
"""The many-node runner (fleet/runner.py): elements, targets, labels, and what each module path reads per node.

Their behaviour against a real Ironic is in tests/integration/test_node_bulk.py and test_pagination.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware, hardware_declaration
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.runner import (
    labels, read_targets, run, targets, targets_from_elements)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import Declaration
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import PORT_ATTRIBUTES
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.snapshot import plan_changes
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.provision import Goal
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.scheduler import converge

from ..ironic.lookup_clients import FakeClient, InMemoryIronic


def test_elements_are_names_or_dictionaries_and_every_invalid_one_is_listed():
    targets = targets_from_elements(['a', {'node': 'b', 'state': 'enabled'}], {'state': 'disabled', 'reason': None},
                                    {'state': ('enabled', 'disabled')})
    assert [(target.label, target.ident, target.settings['state']) for target in targets] == [
        ('nodes[0] (a)', 'a', 'disabled'), ('nodes[1] (b)', 'b', 'enabled')]
    with pytest.raises(BaremetalError) as error:
        targets_from_elements(['a', {'name': 'b'}, 'a', {'node': 'c', 'state': 'on'}, 3],
                              {'state': 'disabled'}, {'state': ('enabled', 'disabled')})
    for said in ('nodes[1] must be a name, a UUID, or a dictionary with node',
                 "nodes[3].state must be one of enabled, disabled, not 'on'",
                 'nodes[4] must be a name',
                 "got keys name. 'name' is not one of them (write node: the task's option node is also called name, an "
                 "element's is not)."):
        assert said in str(error.value)


def test_a_misspelled_key_of_an_element_is_told_the_closest_option():
    with pytest.raises(BaremetalError) as error:
        targets_from_elements([{'node': 'b', 'stat': 'available'}], {'state': 'manageable', 'rebuild': False}, {})
    assert str(error.value) == ("nodes[0] must be a name, a UUID, or a dictionary with node and optionally state, "
                                "rebuild; got keys node, stat. 'stat' is not one of them (did you mean 'state'?).")


def test_many_targets_are_read_with_one_list_and_every_missing_one_is_named():
    client = FakeClient((1, 82), [{'uuid': 'u1', 'name': 'a'}, {'uuid': 'u2', 'name': 'b'}])
    targets = targets_from_elements(['a', 'u2'], {'state': 'on'}, {})
    assert [target.node['uuid'] for target in read_targets(client, targets, ('uuid', 'name'))] == ['u1', 'u2']
    assert client.requests == [('list', {})]
    with pytest.raises(BaremetalError, match="UUID 'x', 'y'"):
        read_targets(client, targets_from_elements(['a', 'x', 'y'], {'state': 'on'}, {}), ('uuid',))


def _power_or_maintenance(client, idents):
    read_targets(client, targets_from_elements(idents, {'state': 'enabled'}, {}), ('uuid', 'name', 'maintenance'))


def declared_node(name, address):
    """A node as baremetal_node declares it: fake-hardware with one port (the options it leaves out are null)."""
    port = dict(dict.fromkeys(PORT_ATTRIBUTES), address=address)
    return Declaration(name, declared={'driver': 'fake-hardware', 'ports': [port]})


def _node_records(client, idents):
    addresses = dict((node['name'], port['address']) for node, port in zip(client.nodes, client.ports))
    changes, problems = plan_changes(client, [declared_node(ident, addresses[ident]) for ident in idents],
                                     send_secrets=False)
    assert problems == [] and [change.changed for change in changes] == [False] * len(idents)


def _hardware(client, idents):
    nodes = read_targets(client, targets_from_elements(idents, {}, {}), hardware.HARDWARE_NODE_FIELDS)
    hardware.configure(client, [(target.node, hardware_declaration.HardwareDeclaration(bios_settings={'NumCores': 4}, apply='never'))
                                for target in nodes])


def _provision(client, idents):
    jobs, missing = converge(client, [Goal(ident, 'manageable', Options()) for ident in idents], check_mode=True)
    assert missing == [] and [job.result()['plan'] for job in jobs] == [[]] * len(idents)


# Every module path that looks nodes up, and what it reads per node beyond the lookup.
LOOKUPS = {
    'baremetal_power and baremetal_maintenance (read_targets)': (_power_or_maintenance, 0),
    'baremetal_node (read_snapshot): the ports of each node': (_node_records, 1),
    'baremetal_hardware (read_targets, configure): the BIOS settings of each node': (_hardware, 1),
    'baremetal_provision_state (converge)': (_provision, 0),
}


@pytest.mark.parametrize('path', sorted(LOOKUPS))
def test_a_lookup_reads_in_proportion_to_the_nodes_asked_for_not_to_the_size_of_ironic(path):
    lookup, per_node = LOOKUPS[path]
    sent = []
    for size in (100, 10000):
        client = InMemoryIronic(size)
        # Names (baremetal_node's are never UUIDs) of nodes far from the first page: each needs its own GET.
        lookup(client, ['node-%d' % (size - index) for index in (1, 2, 3)])
        assert [params['limit'] for params in client.reads('/nodes')] == [6]
        assert all('node_uuid' in params or 'address' in params for params in client.reads('/ports'))
        sent.append(len(client.sent))
    assert sent == [1 + 3 + 3 * per_node] * 2


def test_baremetal_node_lists_every_port_once_when_ironic_holds_few_more_nodes_than_declared():
    client = InMemoryIronic(5)
    _node_records(client, ['node-0', 'node-3', 'node-4'])
    assert [params['limit'] for params in client.reads('/nodes')] == [6]
    assert [sorted(params) for params in client.reads('/ports')] == [['fields', 'limit']] and len(client.sent) == 2


@pytest.mark.parametrize('size, port_lists', [(3, [['fields', 'limit']]), (10000, [['address', 'fields', 'limit']] * 2)])
def test_baremetal_node_finds_the_owner_of_a_mac_address_it_did_not_declare(size, port_lists):
    client = InMemoryIronic(size)
    taken = client.ports[0]['address']
    declarations = [declared_node('new-%d' % index, address) for index, address in enumerate(['52:54:00:ff:ff:00', taken])]
    _changes, problems = plan_changes(client, declarations, send_secrets=False)
    assert [(declaration.name, message) for declaration, message in problems] == [
        ('new-1', 'MAC %s is already used by port port-0 of node node-0. Remove that port (or the node) first, or '
                  'correct the address.' % taken)]
    # Every port in one list when that is all of a small Ironic; else only the addresses of the ports to create.
    assert [sorted(params) for params in client.reads('/ports')] == port_lists


def test_two_elements_that_are_one_node_are_refused_when_the_nodes_are_read():
    client = FakeClient((1, 82), [{'uuid': 'u1', 'name': 'a'}, {'uuid': 'u2', 'name': 'b'}])
    with pytest.raises(BaremetalError, match=r'nodes names node u1 more than once \(a, u1\): list each node once'):
        read_targets(client, targets_from_elements(['a', 'b', 'u1'], {}, {}), ('uuid', 'name'))


def test_a_target_that_matches_no_node_is_left_unread_where_the_module_takes_that_as_its_error():
    client = FakeClient((1, 82), [{'uuid': 'u1', 'name': 'a'}])
    nodes = read_targets(client, targets_from_elements(['a', 'x'], {}, {}), ('uuid', 'name'), refuse_missing=False)
    assert [target.node for target in nodes] == [{'uuid': 'u1', 'name': 'a'}, None]


def test_the_one_node_option_nodes_and_select_are_parsed_into_targets_with_one_label_rule():
    client = FakeClient((1, 82), [{'uuid': 'u1', 'name': 'a'}, {'uuid': 'u2', 'name': None}])
    params = dict(node=None, nodes=None, select={'owner': None, 'all': True})
    assert [(target.label, target.ident) for target in targets(client, params, {})] == [('node a', 'u1'), ('node u2', 'u2')]
    one, = targets(client, dict(params, node='a', select=None), {'state': 'on'})
    assert (one.label, one.ident, one.settings) == (None, 'a', {'state': 'on'})
    named = targets(client, dict(name=None, nodes=[{'name': 'a', 'driver': 'x'}], select=None), {}, key='name')
    assert [(target.label, target.ident, target.settings) for target in named] == [('nodes[0] (a)', 'a', {'name': 'a', 'driver': 'x'})]
    results = [{'node': {'name': 'a', 'uuid': 'u1'}}, {'node': None}]
    assert labels(targets_from_elements(['u1', 'x'], {}, {}), results, by_node=True) == ['a', 'x']
    assert labels(targets_from_elements(['u1', 'x'], {}, {}), results) == ['nodes[0] (u1)', 'nodes[1] (x)']


def test_an_element_setting_of_the_wrong_type_names_the_type_given():
    with pytest.raises(BaremetalError) as error:
        targets_from_elements([{'node': 'a', 'reason': ['fan'], 'maintenance': 'yes', 'extra': ['x']}],
                              {'reason': None, 'maintenance': None, 'extra': None},
                              {'reason': str, 'maintenance': bool, 'extra': dict})
    assert str(error.value) == (
        "nodes[0].reason must be a string, got a list (['fan']): give one string, not a list; "
        "nodes[0].maintenance must be true or false, got a string ('yes'): give true or false, not a string; "
        "nodes[0].extra must be a dictionary, got a list.")


class _Module(object):
    """What run reads of a module: its client, its parameters (no waves unless given) and check mode."""

    def __init__(self, client, **params):
        self.client = client
        self.check_mode = False
        self.params = dict(dict(wave_size=None, wave_pause=0, max_fail_percentage=0), **params)


def test_grouped_waves_group_each_node_by_the_node_as_read_before_the_plan():
    nodes = [{'uuid': 'u%d' % index, 'name': 'n%d' % index, 'provision_state': 'available', 'maintenance': False,
              'resource_class': group} for index, group in enumerate(['small', 'large', 'small'])]
    client = FakeClient((1, 82), nodes)
    batches = []

    def act(batch, check_mode):  # each batch reads its nodes afresh and forgets them after (reading_each_batch)
        batches.append(([target.node['name'] for target in batch], check_mode))
        return [dict(changed=True, error=None, node=target.node) for target in batch]

    report = run(_Module(client), targets_from_elements(['n0', 'n1', 'n2'], {}, {}), act,
                 fields=('uuid', 'name', 'provision_state', 'maintenance', 'resource_class'),
                 group_of=lambda target: target.node['resource_class'])
    assert batches == [(['n0', 'n1', 'n2'], True), (['n0', 'n2'], False), (['n1'], False)]
    assert report.waves == [[0, 2], [1]]
