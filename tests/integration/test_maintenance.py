# -*- coding: utf-8 -*-
"""baremetal_maintenance against a real Ironic: enable with a reason, change the reason, disable, reruns, and a node a
conductor keeps locked for longer than the transport's retries."""

import os
import sqlite3
import threading

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import RETRY_ATTEMPTS

# Who holds the lock of a node the test locks: a conductor at work on it, for all Ironic can tell.
LOCK_HOLDER = 'conductor-waiting-for-a-slow-bmc'


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


def set_reservation(ironic, node_uuid, host):
    """Write the node's lock (its reservation: the conductor holding it, or None) straight into Ironic's SQLite
    database. A conductor holds it as long as its work takes (a slow BMC: up to its command timeouts), which no API
    request can ask for; Ironic refuses every write for the node meanwhile (HTTP 409, NodeLocked). A host that is no
    conductor Ironic knows is never taken for an offline one, whose locks Ironic would release itself."""
    database = sqlite3.connect(os.path.join(ironic.base_dir, 'ironic.sqlite'), timeout=30)
    try:
        database.execute('UPDATE nodes SET reservation = ? WHERE uuid = ?', (host, node_uuid))
        database.commit()
    finally:
        database.close()


def maintenance_writes(requests):
    return [(request.method, request.status) for request in requests if request.path.endswith('/maintenance')]


def test_a_node_locked_past_the_transports_retries_is_waited_for_within_the_default_timeout(ironic, run_module,
                                                                                            fresh_node):
    """The lock is held until Ironic refused RETRY_ATTEMPTS maintenance writes for it: as many as the transport
    sends before it gives up (about 30 s with Ironic's own retries of the lock), which is all a task without a timeout
    ever sent (it failed naming the lock). Held no longer, so that the test costs that much time and no more."""
    node = fresh_node()
    set_reservation(ironic, node['uuid'], LOCK_HOLDER)
    assert ironic.api('GET', '/nodes/%s' % node['uuid'])['reservation'] == LOCK_HOLDER
    mark = ironic.log_mark()
    seen = []

    def release_once_the_transport_would_have_given_up():
        try:
            seen.extend(ironic.wait_for_requests(
                mark, lambda requests: maintenance_writes(requests).count(('PUT', 409)) >= RETRY_ATTEMPTS,
                '%d maintenance writes refused as locked' % RETRY_ATTEMPTS, timeout=120))
        finally:
            set_reservation(ironic, node['uuid'], None)

    releasing = threading.Thread(target=release_once_the_transport_would_have_given_up, daemon=True)
    releasing.start()
    result = run_module('baremetal_maintenance', node=node['name'], maintenance=True, reason='disk 2 replaced')
    releasing.join(130)
    assert seen, 'the lock was released before Ironic refused %d writes for it' % RETRY_ATTEMPTS
    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is True
    assert (result['maintenance'], result['maintenance_reason']) == (True, 'disk 2 replaced')
    assert maintenance_of(ironic, node) == (True, 'disk 2 replaced')
    # Refused while the lock was held (more often than the transport's retries), then taken once: nothing else.
    writes = maintenance_writes(ironic.requests_since(mark))
    assert len(writes) > RETRY_ATTEMPTS and set(writes[:-1]) == {('PUT', 409)} and writes[-1] == ('PUT', 202), writes
    assert [request for request in ironic.write_requests_since(mark) if not request.path.endswith('/maintenance')] == []
