# -*- coding: utf-8 -*-
"""baremetal_maintenance against a real Ironic: enable with a reason, change the reason, disable, reruns."""

import pytest


def maintenance_of(ironic, node):
    current = ironic.api('GET', '/nodes/%s' % node['uuid'])
    return current['maintenance'], current['maintenance_reason']


@pytest.mark.smoke
def test_enable_with_a_reason_then_rerun_changes_nothing(ironic, run_module, fresh_node):
    node = fresh_node()
    mark = ironic.log_mark()
    preview = run_module('baremetal_maintenance', check=True, diff=True, node=node['name'], state='enabled',
                         reason='Replacing DIMM B2')
    assert preview['changed'] is True
    assert preview['diff'] == {'before': {'maintenance': False, 'maintenance_reason': None},
                               'after': {'maintenance': True, 'maintenance_reason': 'Replacing DIMM B2'}}
    assert ironic.write_requests_since(mark) == []
    assert maintenance_of(ironic, node) == (False, None)

    result = run_module('baremetal_maintenance', node=node['name'], state='enabled', reason='Replacing DIMM B2')
    assert result['changed'] is True
    assert (result['maintenance'], result['maintenance_reason']) == (True, 'Replacing DIMM B2')
    assert result['node']['maintenance'] is True
    assert maintenance_of(ironic, node) == (True, 'Replacing DIMM B2')

    mark = ironic.log_mark()
    for check in (True, False):
        again = run_module('baremetal_maintenance', check=check, node=node['uuid'], state='enabled',
                           reason='Replacing DIMM B2')
        assert again['changed'] is False
        assert (again['maintenance'], again['maintenance_reason']) == (True, 'Replacing DIMM B2')
    # no reason given: the one the node has is kept
    assert run_module('baremetal_maintenance', node=node['name'], state='enabled')['changed'] is False
    assert ironic.write_requests_since(mark) == []


def test_a_different_reason_is_a_change_and_replaces_the_old_one(ironic, run_module, fresh_node):
    node = fresh_node()
    ironic.api('PUT', '/nodes/%s/maintenance' % node['uuid'], {'reason': 'first look'})
    result = run_module('baremetal_maintenance', diff=True, node=node['name'], state='enabled',
                        reason='waiting for a new PSU')
    assert result['changed'] is True
    assert result['diff']['before'] == {'maintenance': True, 'maintenance_reason': 'first look'}
    assert maintenance_of(ironic, node) == (True, 'waiting for a new PSU')

    cleared = run_module('baremetal_maintenance', node=node['name'], state='enabled', reason='')
    assert cleared['changed'] is True and cleared['maintenance_reason'] is None
    assert maintenance_of(ironic, node) == (True, None)


@pytest.mark.smoke
def test_disable_unsets_maintenance_and_clears_the_reason(ironic, run_module, fresh_node):
    node = fresh_node()
    ironic.api('PUT', '/nodes/%s/maintenance' % node['uuid'], {'reason': 'disk 2 replaced'})
    mark = ironic.log_mark()
    assert run_module('baremetal_maintenance', check=True, node=node['name'], state='disabled')['changed'] is True
    assert ironic.write_requests_since(mark) == []

    # A reason with maintenance off would be dropped: refused before any write (it was ignored without a word).
    refused = run_module('baremetal_maintenance', node=node['name'], state='disabled', reason='dropped when disabling')
    assert refused['failed'] and 'drop reason, or set maintenance: true' in refused['msg'], refused
    assert ironic.write_requests_since(mark) == [] and maintenance_of(ironic, node) == (True, 'disk 2 replaced')

    result = run_module('baremetal_maintenance', diff=True, node=node['name'], state='disabled')
    assert result['changed'] is True
    assert (result['maintenance'], result['maintenance_reason']) == (False, None)
    assert result['diff']['after'] == {'maintenance': False, 'maintenance_reason': None}
    assert maintenance_of(ironic, node) == (False, None)

    mark = ironic.log_mark()
    assert run_module('baremetal_maintenance', node=node['name'], state='disabled')['changed'] is False
    assert ironic.write_requests_since(mark) == []


def test_a_name_that_matches_no_node_fails_and_says_how_to_find_it(ironic, run_module):
    mark = ironic.log_mark()
    result = run_module('baremetal_maintenance', node='no-such-node-anywhere', state='enabled', reason='x')
    assert result['failed'] is True
    assert "No node is named or has the UUID 'no-such-node-anywhere'" in result['msg']
    assert 'baremetal.lifecycle.baremetal_node_info' in result['msg']
    assert ironic.write_requests_since(mark) == []


def test_maintenance_true_and_false_are_the_word_of_baremetal_node_and_state_still_works(ironic, run_module, fresh_node):
    node = fresh_node()
    preview = run_module('baremetal_maintenance', check=True, name=node['name'], maintenance=True, reason='fan noise')
    assert preview['changed'] is True and (preview['maintenance'], preview['maintenance_reason']) == (True, 'fan noise')
    assert maintenance_of(ironic, node) == (False, None)
    result = run_module('baremetal_maintenance', name=node['name'], maintenance=True, reason='fan noise')
    assert result['changed'] is True and maintenance_of(ironic, node) == (True, 'fan noise')
    # The older spelling says the same thing: nothing to change.
    assert run_module('baremetal_maintenance', node=node['name'], state='enabled')['changed'] is False
    cleared = run_module('baremetal_maintenance', node=node['name'], maintenance=False)
    assert cleared['changed'] is True and maintenance_of(ironic, node) == (False, None)

    other = fresh_node()
    many = run_module('baremetal_maintenance', nodes=[node['name'], {'node': other['name'], 'state': 'enabled'}],
                      maintenance=False)
    assert not many.get('failed'), many.get('msg')
    assert maintenance_of(ironic, node) == (False, None) and maintenance_of(ironic, other) == (True, None)


def test_both_spellings_in_one_task_are_refused_before_any_write(ironic, run_module, fresh_node):
    node = fresh_node()
    mark = ironic.log_mark()
    both = run_module('baremetal_maintenance', node=node['name'], maintenance=True, state='enabled')
    assert both['failed'] and 'two spellings of one setting' in both['msg'] and 'keep maintenance only' in both['msg']
    element = run_module('baremetal_maintenance', nodes=[{'node': node['name'], 'maintenance': True, 'state': 'enabled'}],
                         maintenance=False)
    assert element['failed'] and element['msg'].startswith('nodes[0] gives both maintenance and state')
    neither = run_module('baremetal_maintenance', node=node['name'])
    assert neither['failed'] and 'one of the following is required: maintenance, state' in neither['msg']
    assert ironic.write_requests_since(mark) == []
    assert maintenance_of(ironic, node) == (False, None)
