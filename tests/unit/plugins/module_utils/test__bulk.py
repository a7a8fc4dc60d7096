# -*- coding: utf-8 -*-
"""The many-node runner and element checks shared by baremetal_node, baremetal_maintenance and baremetal_power.

Their behaviour against a real Ironic is in tests/integration/test_bulk.py.
"""

import threading
import time

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils._bulk import (
    exit_with_results, failure_message, read_targets, run_each, selection_filters, targets_from_elements, totals)
from ansible_collections.baremetal.lifecycle.plugins.module_utils._errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils._ironic import IronicError


def test_a_failing_item_keeps_its_error_and_the_others_go_on():
    def action(item):
        if item == 2:
            raise BaremetalError('node 2 refused', {'changed': False, 'node': {'name': 'two'}})
        return {'changed': True, 'item': item}

    results = run_each([1, 2, 3], action, concurrency=2)
    assert results == [{'changed': True, 'item': 1},
                       {'changed': False, 'node': {'name': 'two'}, 'error': 'node 2 refused'},
                       {'changed': True, 'item': 3}]
    assert failure_message(results, ['a', 'b', 'c']) == '1 of 3 nodes failed: b: node 2 refused'
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
                                    {'state': ['enabled', 'disabled']})
    assert [(target.label, target.ident, target.settings['state']) for target in targets] == [
        ('nodes[0] (a)', 'a', 'disabled'), ('nodes[1] (b)', 'b', 'enabled')]
    with pytest.raises(BaremetalError) as error:
        targets_from_elements(['a', {'name': 'b'}, 'a', {'node': 'c', 'state': 'on'}, 3],
                              {'state': 'disabled'}, {'state': ['enabled', 'disabled']})
    message = str(error.value)
    assert 'nodes[1] must be a name, a UUID, or a dictionary with node' in message
    assert "nodes[3] (c): state must be one of enabled, disabled, not 'on'" in message
    assert 'nodes[4] must be a name' in message


class FakeClient(object):
    """Only what selection and lookup ask of a client."""

    def __init__(self, version, nodes=()):
        self.version = version
        self.nodes = list(nodes)
        self.requests = []

    def require(self, feature, version):
        if self.version < version:
            raise IronicError('%s needs Ironic API %d.%d' % ((feature,) + version))

    def list_nodes(self, fields=None, **filters):
        self.requests.append(('list', filters))
        return self.nodes

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


class FakeModule(object):
    """What exit_with_results needs of a BaremetalModule: it records how the task ended."""

    api_calls = 3

    def __init__(self):
        self.warnings = []
        self.ansible = self
        self.ended = None

    def warn(self, message):
        self.warnings.append(message)

    def exit(self, **result):
        self.ended = ('exit', None, result)
        raise SystemExit(0)

    def fail(self, msg, **result):
        self.ended = ('fail', msg, result)
        raise SystemExit(1)


def end(module, *args, **kwargs):
    with pytest.raises(SystemExit):
        exit_with_results(module, *args, **kwargs)
    return module.ended


def many_results():
    return [{'node': {'name': 'a'}, 'changed': True, 'error': None, 'diff': {'before': {'x': 1}, 'after': {'x': 2}}},
            {'node': {'name': 'b'}, 'changed': False, 'diff': {'before': {}, 'after': {}}},
            {'node': None, 'changed': False, 'error': "No node is named or has the UUID 'c'."}]


def test_many_nodes_end_with_one_shape_and_a_diff_for_each_node_that_changed():
    module = FakeModule()
    how, msg, result = end(module, many_results(), ['a', 'b', 'c'], time.monotonic(), single=False, max_fail_percentage=50)
    assert how == 'exit' and msg is None
    assert [sorted(node) for node in result['nodes']] == [['changed', 'error', 'node']] * 3
    assert result['totals']['nodes'] == 3 and result['totals']['changed'] == 1 and result['totals']['failed'] == 1
    assert result['totals']['api_calls'] == 3
    assert result['failed_nodes'] == ['c'] and result['changed'] is True
    assert result['diff'] == [{'before': {'x': 1}, 'after': {'x': 2}, 'before_header': 'a', 'after_header': 'a'}]
    assert module.warnings == ["c: No node is named or has the UUID 'c'."]


def test_a_failure_over_the_budget_fails_the_task_and_one_node_is_the_task():
    module = FakeModule()
    how, msg, result = end(module, many_results(), ['a', 'b', 'c'], time.monotonic(), single=False)
    assert how == 'fail' and msg == "1 of 3 nodes failed: c: No node is named or has the UUID 'c'."
    assert result['failed_nodes'] == ['c']
    assert end(module, many_results()[2:], ['c'], time.monotonic(), single=True) == (
        'fail', "No node is named or has the UUID 'c'.", {'node': None, 'changed': False})
    assert end(module, many_results()[:1], ['a'], time.monotonic(), single=True) == (
        'exit', None, {'node': {'name': 'a'}, 'changed': True, 'diff': {'before': {'x': 1}, 'after': {'x': 2}}})


def test_the_budget_is_a_percentage_of_the_nodes():
    results = [{'error': 'x'}, {'error': None}, {'error': None}, {'error': None}]
    assert failure_message(results, 'abcd', max_fail_percentage=25) is None
    assert failure_message(results, 'abcd', max_fail_percentage=20) == '1 of 4 nodes failed (max_fail_percentage is 20): a: x'
