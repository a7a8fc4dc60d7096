# -*- coding: utf-8 -*-
"""The many-node runner, element checks and node lookup shared by the modules that act on many nodes.

Their behaviour against a real Ironic is in tests/integration/test_node_bulk.py and test_pagination.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading
import time

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet import moving
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import provision
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware, hardware_declaration
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.parallel import run_each
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.outcome import Report, failure_message, totals
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.runner import (
    labels, read_targets, targets, targets_from_elements)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.lookup import (
    find_nodes, no_node_message, selection_filters)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError, NotFound
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import Declaration
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import PORT_ATTRIBUTES
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.snapshot import plan_changes
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.provision import Options, Target, converge


def test_a_failing_item_keeps_its_error_and_the_others_go_on():
    def action(item):
        if item == 2:
            raise BaremetalError('node 2 refused', {'changed': False, 'node': {'name': 'two'}})
        return {'changed': True, 'item': item}

    results = run_each([1, 2, 3], action, concurrency=2)
    assert results == [{'changed': True, 'item': 1},
                       {'changed': False, 'node': {'name': 'two'}, 'error': 'node 2 refused'},
                       {'changed': True, 'item': 3}]
    assert failure_message(results, ['a', 'b', 'c']) == '1 of the 3 nodes to change failed: b: node 2 refused'
    assert failure_message(results[:1], ['a']) is None


def test_at_most_concurrency_items_run_at_once():
    running, peak, lock = [0], [0], threading.Lock()

    def action(item):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.02)
        with lock:
            running[0] -= 1
        return {'item': item}

    assert [result['item'] for result in run_each(range(9), action, concurrency=3)] == list(range(9))
    assert peak[0] == 3


def test_totals_count_changed_and_failed():
    summary = totals([{'changed': True}, {'changed': False, 'error': 'x'}, {}], time.monotonic(), 7)
    assert (summary['nodes'], summary['changed'], summary['failed'], summary['api_calls']) == (3, 1, 1, 7)


def test_elements_are_names_or_dictionaries_and_every_invalid_one_is_listed():
    targets = targets_from_elements(['a', {'node': 'b', 'state': 'enabled'}], {'state': 'disabled', 'reason': None},
                                    {'state': ('enabled', 'disabled')})
    assert [(target.label, target.ident, target.settings['state']) for target in targets] == [
        ('nodes[0] (a)', 'a', 'disabled'), ('nodes[1] (b)', 'b', 'enabled')]
    with pytest.raises(BaremetalError) as error:
        targets_from_elements(['a', {'name': 'b'}, 'a', {'node': 'c', 'state': 'on'}, 3],
                              {'state': 'disabled'}, {'state': ('enabled', 'disabled')})
    message = str(error.value)
    assert 'nodes[1] must be a name, a UUID, or a dictionary with node' in message
    assert "nodes[3].state must be one of enabled, disabled, not 'on'" in message
    assert 'nodes[4] must be a name' in message


class FakeClient(object):
    """Only what selection and lookup ask of a client."""

    def __init__(self, version, nodes=()):
        self.version = version
        self.nodes = list(nodes)
        self.requests = []
        self.scope_note = None

    def require(self, feature, version):
        if self.version < version:
            raise IronicError('%s needs Ironic API %d.%d' % ((feature,) + version))

    def list_nodes(self, fields=None, first=None, **filters):
        self.requests.append(('list', filters))
        return (self.nodes[:first], len(self.nodes) <= first) if first else self.nodes

    def count_nodes(self, nodes):
        return nodes

    def find_node(self, ident, fields=None):
        self.requests.append(('get', ident))
        return next((node for node in self.nodes if ident in (node['name'], node['uuid'])), None)


def test_a_selection_drops_unset_filters_and_checks_the_api_version():
    assert selection_filters(FakeClient((1, 82)), {'shard': 's1', 'owner': None}) == {'shard': 's1'}
    with pytest.raises(IronicError, match='filtering nodes by shard needs Ironic API 1.82'):
        selection_filters(FakeClient((1, 81)), {'shard': 's1'})


def test_many_targets_are_read_with_one_list_and_every_missing_one_is_named():
    client = FakeClient((1, 82), [{'uuid': 'u1', 'name': 'a'}, {'uuid': 'u2', 'name': 'b'}])
    targets = targets_from_elements(['a', 'u2'], {'state': 'on'}, {})
    assert [target.node['uuid'] for target in read_targets(client, targets, ('uuid', 'name'))] == ['u1', 'u2']
    assert client.requests == [('list', {})]
    with pytest.raises(BaremetalError, match="UUID 'x', 'y'"):
        read_targets(client, targets_from_elements(['a', 'x', 'y'], {'state': 'on'}, {}), ('uuid',))


def end(results, labels, started, single, max_fail_percentage=None):
    """How a task with these results ends: ('fail' or 'exit', its message, its result, its warnings)."""
    message, result, warnings = Report(results, labels, single, None, max_fail_percentage).outcome(started, 3)
    return 'fail' if message else 'exit', message, result, warnings


def many_results():
    return [{'node': {'name': 'a'}, 'changed': True, 'error': None, 'diff': {'before': {'x': 1}, 'after': {'x': 2}}},
            {'node': {'name': 'b'}, 'changed': False, 'diff': {'before': {}, 'after': {}}},
            {'node': None, 'changed': False, 'error': "No node is named or has the UUID 'c'."}]


def test_many_nodes_end_with_one_shape_and_a_diff_for_each_node_that_changed():
    how, msg, result, warnings = end(many_results(), ['a', 'b', 'c'], time.monotonic(), single=False, max_fail_percentage=50)
    assert how == 'exit' and msg is None
    assert [sorted(node) for node in result['nodes']] == [['changed', 'error', 'node']] * 3
    assert result['totals']['nodes'] == 3 and result['totals']['changed'] == 1 and result['totals']['failed'] == 1
    assert result['totals']['api_calls'] == 3
    assert result['failed_nodes'] == ['c'] and result['changed'] is True
    assert result['diff'] == [{'before': {'x': 1}, 'after': {'x': 2}, 'before_header': 'a', 'after_header': 'a'}]
    assert warnings == ["c: No node is named or has the UUID 'c'."]


def test_a_failure_over_the_budget_fails_the_task_and_one_node_is_the_task():
    how, msg, result, _warnings = end(many_results(), ['a', 'b', 'c'], time.monotonic(), single=False)
    assert how == 'fail' and msg == "1 of the 2 nodes to change failed: c: No node is named or has the UUID 'c'."
    assert result['failed_nodes'] == ['c']
    assert end(many_results()[2:], ['c'], time.monotonic(), single=True) == (
        'fail', "No node is named or has the UUID 'c'.", {'node': None, 'changed': False}, [])
    assert end(many_results()[:1], ['a'], time.monotonic(), single=True) == (
        'exit', None, {'node': {'name': 'a'}, 'changed': True, 'diff': {'before': {'x': 1}, 'after': {'x': 2}}}, [])


def test_the_budget_is_a_percentage_of_the_nodes_to_change():
    # Nodes already as declared (the last two) cannot fail, and do not water the budget down.
    results = [{'error': 'x'}, {'changed': True}, {'changed': True}, {'changed': True}, {'changed': False}, {}]
    assert failure_message(results, 'abcdef', max_fail_percentage=25) is None
    assert failure_message(results, 'abcdef', max_fail_percentage=20) == (
        '1 of the 4 nodes to change failed (max_fail_percentage is 20): a: x')


def test_nodes_whose_wave_never_started_are_named_after_the_failures():
    results = [{'error': 'x', 'wave': 1, 'started': True}, {'changed': True, 'wave': 1, 'started': True},
               {'changed': False, 'wave': 2, 'started': False}, {'changed': False, 'wave': None, 'started': False}]
    assert failure_message(results, 'abcd', max_fail_percentage=0) == (
        '1 of the 3 nodes to change failed (max_fail_percentage is 0): a: x | Not started, as no wave starts once the '
        'failures are over the budget: c.')
    assert totals(results, time.monotonic(), 0)['not_started'] == 1


class InMemoryIronic(IronicClient):
    """The real client over an Ironic held in memory: size manageable nodes with one port each, listed in pages of
    the limit asked for. sent records every request; only GETs are answered."""

    def __init__(self, size):
        super(InMemoryIronic, self).__init__('http://ironic.invalid')
        self._server_version = (1, 115)
        self.nodes = [{'uuid': '00000000-0000-4000-8000-%012d' % index, 'name': 'node-%d' % index,
                       'driver': 'fake-hardware', 'provision_state': 'manageable', 'target_provision_state': None,
                       'maintenance': False} for index in range(size)]
        self.ports = [{'uuid': 'port-%d' % index, 'node_uuid': node['uuid'],
                       'address': '52:54:00:%02x:%02x:%02x' % (index >> 16, (index >> 8) & 255, index & 255)}
                      for index, node in enumerate(self.nodes)]
        self.sent = []

    def request(self, method, path, body=None, params=None, replay=True):
        params = dict(params or {})
        self.sent.append((method, path, params))
        assert method == 'GET', 'a lookup writes nothing'
        if path == '/nodes':
            return self._page('nodes', self.nodes, params)
        if path == '/drivers':
            return {'drivers': [{'name': 'fake-hardware'}]}
        if path == '/ports':
            ports = [port for port in self.ports
                     if all(port[key] == params[key] for key in ('node_uuid', 'address') if key in params)]
            return self._page('ports', ports, params)
        ident, _slash, below = path[len('/nodes/'):].partition('/')
        node = next((node for node in self.nodes if ident in (node['uuid'], node['name'])), None)
        if node is None:
            raise NotFound('Ironic refused GET /v1%s (HTTP 404): node %s could not be found' % (path, ident), 404)
        return {'bios': {'bios': []}, 'firmware': {'firmware': []}}.get(below, dict(node))

    @staticmethod
    def _page(key, items, params):
        start = next(index + 1 for index, item in enumerate(items) if item['uuid'] == params['marker']) \
            if 'marker' in params else 0
        page = items[start:start + params['limit']]
        # Ironic links a next page whenever a page is full.
        return {key: page, 'next': 'more' if len(page) == params['limit'] else None}

    def reads(self, path):
        return [params for _method, sent_path, params in self.sent if sent_path == path]

    def gets(self):
        return [path for _method, path, _params in self.sent if path.startswith('/nodes/')]


def test_one_ident_is_read_with_one_get_and_one_that_matches_no_node_is_named():
    client = InMemoryIronic(50)
    assert find_nodes(client, ['node-7'], ('uuid', 'name')) == ({'node-7': client.nodes[7]}, [])
    assert find_nodes(client, ['node-x'], ('uuid', 'name')) == ({}, ['node-x'])
    assert client.gets() == ['/nodes/node-7', '/nodes/node-x'] and len(client.sent) == 2


def test_many_idents_in_an_ironic_that_holds_few_more_are_read_with_one_list():
    client = InMemoryIronic(5)
    found, missing = find_nodes(client, ['node-1', client.nodes[4]['uuid'], 'node-x'], ('uuid', 'name'))
    assert found == {'node-1': client.nodes[1], client.nodes[4]['uuid']: client.nodes[4]} and missing == ['node-x']
    assert [params['limit'] for params in client.reads('/nodes')] == [6] and len(client.sent) == 1
    assert client.node_count == 5


def test_many_idents_in_a_big_ironic_are_a_short_list_and_a_get_for_each_it_did_not_hold():
    client = InMemoryIronic(2500)
    idents = ['node-0', 'node-2400', client.nodes[2401]['uuid'], 'node-x']
    found, missing = find_nodes(client, idents, ('uuid', 'name'))
    assert sorted(found) == sorted(idents[:3]) and missing == ['node-x']
    assert [params['limit'] for params in client.reads('/nodes')] == [8]
    assert client.gets() == ['/nodes/node-2400', '/nodes/%s' % client.nodes[2401]['uuid'], '/nodes/node-x']
    assert client.node_count is None


def test_idents_past_half_a_page_list_every_node_page_by_page():
    client = InMemoryIronic(2500)
    found, missing = find_nodes(client, ['node-%d' % index for index in range(0, 1000, 2)], ('uuid', 'name'))
    assert len(found) == 500 and missing == []
    assert len(client.reads('/nodes')) == 3 and client.gets() == [] and client.node_count == 2500


def test_the_message_for_idents_that_match_no_node_names_each_and_says_how_to_find_nodes():
    client = InMemoryIronic(0)
    message = no_node_message(['a', 'b'], client)
    assert message.startswith("No node is named or has the UUID 'a', 'b'.") and message.endswith('baremetal_node.')
    client.scope_note = 'The token is scoped to project p.'
    assert no_node_message(['a'], client).endswith('baremetal_node. The token is scoped to project p.')


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
    hardware.configure(client, [(target.node, hardware_declaration.Declaration(bios_settings={'NumCores': 4}, apply='never'))
                                for target in nodes])


def _provision(client, idents):
    jobs, missing = converge(client, [Target(ident, 'manageable', Options()) for ident in idents], check_mode=True)
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


@pytest.mark.parametrize('entry, state, options', [
    ('n1', 'available', {}),
    ({'node': 'n1'}, 'available', {}),
    ({'node': 'n1', 'state': 'active', 'inspection': 'always',
      'service_steps': [{'interface': 'vendor', 'step': 'x'}]},
     'active', {'inspection': 'always', 'service_steps': [{'interface': 'vendor', 'step': 'x'}]}),
    ({'node': 'n1', 'unhold': True, 'clear_fault': True}, 'available', {'unhold': True, 'clear_fault': True}),
])
def test_a_nodes_element_may_carry_its_own_options(entry, state, options):
    base = provision.Options(allow_destructive=True)
    element, = targets_from_elements([entry], moving.defaults('available', base), moving.TYPES)
    target = moving.move(element, base)
    assert (target.ident, target.state) == ('n1', state)
    assert target.options.allow_destructive is True
    for key, value in options.items():
        assert getattr(target.options, key) == value
    assert base.inspection == 'skip' and base.unhold is False  # the task's options are left alone


@pytest.mark.parametrize('entry, words', [
    ({'state': 'active'}, ['nodes[3] must be', 'node']),
    ({'node': 'n1', 'rescue_password': 'x'}, ['nodes[3]', 'rescue_password']),
    ({'node': 'n1', 'state': 'deploying'}, ["nodes[3].state must be one of", 'deploying']),
    ({'node': 'n1', 'inspection': 'twice'}, ['nodes[3].inspection must be one of skip, once, always']),
    ({'node': 'n1', 'service_steps': 'reboot'}, ['nodes[3].service_steps must be a list of steps']),
    ({'node': 'n1', 'unhold': 'yes'}, ['nodes[3].unhold must be true or false']),
])
def test_a_bad_nodes_element_is_named(entry, words):
    with pytest.raises(BaremetalError) as caught:
        targets_from_elements(['n0', 'n1', 'n2', entry], moving.defaults('available', provision.Options()), moving.TYPES)
    for word in words:
        assert word in str(caught.value)


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
    params = dict(node=None, nodes=None, select={'owner': None})
    assert [(target.label, target.ident) for target in targets(client, params, {})] == [('node a', 'u1'), ('node u2', 'u2')]
    one, = targets(client, dict(params, node='a', select=None), {'state': 'on'})
    assert (one.label, one.ident, one.settings) == (None, 'a', {'state': 'on'})
    named = targets(client, dict(name=None, nodes=[{'name': 'a', 'driver': 'x'}], select=None), {}, key='name')
    assert [(target.label, target.ident, target.settings) for target in named] == [('nodes[0] (a)', 'a', {'name': 'a', 'driver': 'x'})]
    results = [{'node': {'name': 'a', 'uuid': 'u1'}}, {'node': None}]
    assert labels(targets_from_elements(['u1', 'x'], {}, {}), results, by_node=True) == ['a', 'x']
    assert labels(targets_from_elements(['u1', 'x'], {}, {}), results) == ['nodes[0] (u1)', 'nodes[1] (x)']
