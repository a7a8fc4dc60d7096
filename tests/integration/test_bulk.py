# -*- coding: utf-8 -*-
"""The one result shape of every module that acts on many nodes (fleet/runner.py, fleet/outcome.py), and select: wherever
nodes: is accepted, against the real Ironic: each module is asked, in check mode with a diff, to change two fresh
nodes. How a failed node is reported in that shape is tested in tests/unit/plugins/module_utils/fleet/test_runner.py."""

import uuid

import pytest

# Each module with options for two freshly enrolled fake-hardware nodes, and whether they change them. apply: never
# only reports what differs (the nodes rest in enroll, where no clean can run).
MODULES = {
    'baremetal_provision_state': ({'state': 'manageable'}, True),
    'baremetal_hardware': ({'bios_settings': {'ProcTurboMode': 'Disabled'}, 'apply': 'never'}, False),
    'baremetal_node': ({'extra': {'rack': 'r9'}}, True),
    'baremetal_power': ({'state': 'powered_on'}, True),
    'baremetal_maintenance': ({'state': 'enabled', 'reason': 'shape test'}, True),
}


def assert_one_shape(result, nodes, changes):
    assert not result.get('failed'), result.get('msg')
    assert sorted(result['totals']) == ['api_calls', 'changed', 'failed', 'nodes', 'not_started', 'seconds']
    assert result['totals'] == dict(result['totals'], nodes=2, changed=2 if changes else 0, failed=0, not_started=0)
    assert result['failed_nodes'] == [] and result['changed'] is changes
    for entry in result['nodes']:
        assert set(['node', 'changed', 'error']) <= set(entry), entry
        assert entry['error'] is None and entry['changed'] is changes
    assert sorted(entry['node']['name'] for entry in result['nodes']) == sorted(node['name'] for node in nodes)


@pytest.mark.parametrize('module', sorted(MODULES))
def test_every_module_reports_many_nodes_in_the_same_shape(ironic, run_module, fresh_node, module):
    options, changes = MODULES[module]
    nodes = [fresh_node() for _index in range(2)]
    if module == 'baremetal_node':
        arguments = {'nodes': [dict(options, name=node['name']) for node in nodes]}
    else:
        arguments = dict(options, nodes=[node['name'] for node in nodes])
    mark = ironic.log_mark()
    result = run_module(module, check=True, diff=True, **arguments)
    assert ironic.write_requests_since(mark) == []
    assert_one_shape(result, nodes, changes)
    assert [diff['before_header'] for diff in result['diff']] == ([node['name'] for node in nodes] if changes else [])


@pytest.mark.parametrize('module', sorted(MODULES))
def test_select_is_accepted_wherever_nodes_is(ironic, run_module, fresh_node, module):
    options, changes = MODULES[module]
    resource_class = 'shape%s' % uuid.uuid4().hex[:8]
    nodes = [fresh_node(resource_class=resource_class) for _index in range(2)]
    fresh_node()  # of another resource class: not selected
    mark = ironic.log_mark()
    result = run_module(module, check=True, select={'resource_class': resource_class}, **options)
    assert ironic.write_requests_since(mark) == []
    assert_one_shape(result, nodes, changes)


@pytest.mark.parametrize('module', sorted(MODULES))
def test_a_selection_that_matches_no_node_says_so_and_changes_nothing(ironic, run_module, module):
    # a typo in a filter's value (webb for web) must not pass as a quiet success
    options, _changes = MODULES[module]
    resource_class = 'nosuch%s' % uuid.uuid4().hex[:8]
    mark = ironic.log_mark()
    result = run_module(module, select={'resource_class': resource_class}, **options)
    assert ironic.write_requests_since(mark) == []
    assert not result.get('failed') and result['changed'] is False and result['nodes'] == []
    assert result['msg'] == ('select (resource_class: %s) matches no node: there is nothing to do, and nothing was '
                             'changed. Check the filters against what baremetal.lifecycle.baremetal_node_info returns.'
                             % resource_class)


@pytest.mark.parametrize('module', sorted(MODULES))
@pytest.mark.parametrize('selection, check', [({}, True), ({'resource_class': None, 'owner': None}, False)],
                         ids=['empty in check mode', 'every filter null'])
def test_a_selection_that_sets_no_filter_is_refused_before_any_request(ironic, run_module, fresh_node, module,
                                                                       selection, check):
    # A filter templated from an empty variable comes to the module as {} or as nulls: never every node.
    options, _changes = MODULES[module]
    node = fresh_node()
    mark = ironic.log_mark()
    result = run_module(module, check=check, select=selection, **options)
    assert result.get('failed'), result
    assert result['msg'] == (
        'select sets no filter, and an empty selection is never every node: a filter templated from an empty or '
        'undefined variable would otherwise send the task to every node Ironic holds. Set a filter (such as '
        'select.resource_class), or write select: {all: true} to act on every node on purpose.')
    assert [request for request in ironic.requests_since(mark) if '?sync=' not in request.path] == []
    assert ironic.api('GET', '/nodes/%s' % node['uuid'])['updated_at'] == node['updated_at']


def test_every_node_is_selected_only_on_purpose_with_all(ironic, run_module, fresh_node):
    fresh_node()
    held = [node['uuid'] for node in ironic.api('GET', '/nodes?fields=uuid&limit=1000')['nodes']]
    mark = ironic.log_mark()
    result = run_module('baremetal_maintenance', check=True, select={'all': True}, state='enabled',
                        reason='every node')
    assert ironic.write_requests_since(mark) == []
    assert not result.get('failed'), result.get('msg')
    assert sorted(entry['node']['uuid'] for entry in result['nodes']) == sorted(held)
    refused = run_module('baremetal_maintenance', check=True, select={'all': True, 'resource_class': 'x'},
                         state='enabled')
    assert refused.get('failed') and refused['msg'].startswith('select.all: true selects every node, and select also '
                                                               'sets resource_class: drop all')
