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

    result = run_module('baremetal_maintenance', diff=True, node=node['name'], state='disabled',
                        reason='ignored when disabling')
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
