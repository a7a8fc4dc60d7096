# -*- coding: utf-8 -*-
"""Setting and clearing maintenance; success against a real Ironic is tested in tests/integration/test_maintenance.py.

A node a conductor keeps locked for longer than the transport's retries is played on a fake clock (LockedNode): a real
Ironic holds a lock only as long as its conductor's work takes, which a test cannot set on demand.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import POLL_MAX_DELAY
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.runner import targets_from_elements
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.maintenance import (
    MAINTENANCE_STATES, ensure_maintenance, maintenance_of, node_maintenance, refuse_dropped_reasons, task_maintenance,
    wanted_maintenance)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import Locked

from ..common.fake_clock import FakeClock

LOCK = 'Node u-1 is locked by host c1, please retry after the current operation is completed.'


def test_a_reason_is_kept_when_none_is_given_and_dropped_when_maintenance_ends():
    node = {'maintenance': True, 'maintenance_reason': 'fan'}
    assert wanted_maintenance(node, True, None) == (True, 'fan')
    assert wanted_maintenance(node, True, 'disk') == (True, 'disk')
    assert wanted_maintenance(node, False, 'disk') == (False, None)


def test_the_operators_reason_is_masked_where_it_quotes_a_secret():
    node = {'uuid': 'u-1', 'name': 'n1', 'maintenance': True,
            'maintenance_reason': 'BMC rotated, old password=MARKER; see http://admin:MARKER@127.0.0.1:9'}
    result = ensure_maintenance(None, node, False, None, check_mode=True)
    assert result['changed'] is True
    # node, changed and error, as every node's result (engine/result.py), which the task's outcome relies on.
    assert sorted(result) == ['changed', 'diff', 'error', 'maintenance', 'maintenance_reason', 'node']
    assert 'MARKER' not in repr(result)
    assert result['diff']['before']['maintenance_reason'] == \
        'BMC rotated, old password=********; see http://admin:********@127.0.0.1:9'


@pytest.mark.parametrize('maintenance, state, expected', [
    (True, None, True), (False, None, False),  # the word every module uses
    (None, 'enabled', True), (None, 'disabled', False),  # baremetal_maintenance's older spelling
    (None, None, None),
])
def test_maintenance_and_state_are_two_spellings_of_one_setting(maintenance, state, expected):
    assert maintenance_of(maintenance, state) is expected


@pytest.mark.parametrize('maintenance, state', [(True, 'enabled'), (False, 'enabled'), (False, 'disabled')])
def test_both_spellings_at_once_are_refused_even_when_they_agree(maintenance, state):
    with pytest.raises(BaremetalError, match='gives both maintenance and state, two spellings of one setting'):
        maintenance_of(maintenance, state)


def test_an_element_says_its_own_maintenance_in_either_spelling_and_both_are_refused_before_any_request():
    params = {'maintenance': False, 'state': None, 'nodes': ['a', {'node': 'b', 'state': 'enabled'},
                                                             {'node': 'c', 'maintenance': True}]}
    task = task_maintenance(params)
    assert task is False
    assert node_maintenance({'maintenance': None, 'state': None}, task) is False  # 'a': the task's
    assert node_maintenance({'maintenance': None, 'state': 'enabled'}, task) is True  # 'b'
    assert node_maintenance({'maintenance': True, 'state': None}, task) is True  # 'c'
    assert task_maintenance({'maintenance': None, 'state': 'enabled', 'nodes': None}) is True
    params['nodes'].append({'node': 'd', 'maintenance': False, 'state': 'disabled'})
    with pytest.raises(BaremetalError, match=r'^nodes\[3\] gives both maintenance and state'):
        task_maintenance(params)


def test_an_elements_unknown_state_is_left_to_the_check_of_its_options():
    # The element's choices are checked with its other options, which name the element and the choices.
    assert task_maintenance({'maintenance': True, 'state': None, 'nodes': [{'node': 'a', 'state': 'sideways'}]}) is True


def maintenance_task(**given):
    full = dict(node=None, nodes=None, select=None, maintenance=None, state=None, reason=None)
    full.update(given)
    return full


@pytest.mark.parametrize('given', [dict(maintenance=False), dict(state='disabled')])
def test_a_reason_given_with_maintenance_off_is_refused_naming_the_fix(given):
    with pytest.raises(BaremetalError) as caught:
        task_maintenance(maintenance_task(node='n1', reason='Fan noise', **given))
    assert str(caught.value) == (
        'reason is only kept while maintenance is on, and maintenance: false (or state: disabled) takes the node out '
        'of maintenance: drop reason, or set maintenance: true.')
    assert task_maintenance(maintenance_task(node='n1', reason='', **given)) is False


def test_with_nodes_an_elements_own_reason_where_it_is_off_and_a_reason_no_node_takes_are_refused():
    elements = ['a', {'node': 'b', 'maintenance': True}, {'node': 'c', 'reason': 'Disk'}]
    for task_given in (dict(maintenance=False), dict(maintenance=False, reason='Fan')):
        params = maintenance_task(nodes=elements, **task_given)
        task = task_maintenance(params)
        nodes = targets_from_elements(elements, {'maintenance': None, 'state': None, 'reason': params['reason']},
                                      {'maintenance': bool, 'state': tuple(MAINTENANCE_STATES), 'reason': str})
        with pytest.raises(BaremetalError) as caught:
            refuse_dropped_reasons(params, nodes, task)
        assert str(caught.value).startswith('nodes[2] (c): reason is only kept while maintenance is on'), caught.value
        # b takes the task's reason, where there is one: it is not dropped.
        assert "the task's reason" not in str(caught.value)
    params = maintenance_task(nodes=['a', {'node': 'b', 'maintenance': True, 'reason': 'Disk'}], maintenance=False,
                              reason='Fan')
    nodes = targets_from_elements(params['nodes'], {'maintenance': None, 'state': None, 'reason': 'Fan'},
                                  {'maintenance': bool, 'state': tuple(MAINTENANCE_STATES), 'reason': str})
    with pytest.raises(BaremetalError, match="^the task's reason is kept by none of its nodes"):
        refuse_dropped_reasons(params, nodes, False)


def test_a_reason_that_holds_a_secret_is_refused_before_anything_is_read_never_showing_it():
    with pytest.raises(BaremetalError) as caught:
        task_maintenance(maintenance_task(node='n1', maintenance=True, reason='BMC rotated, old password=Zq-old-1'))
    assert str(caught.value).startswith('reason holds what reads as a secret') and 'Zq-old-1' not in str(caught.value)
    with pytest.raises(BaremetalError, match=r'^nodes\[1\]\.reason holds what reads as a secret'):
        task_maintenance(maintenance_task(nodes=['a', {'node': 'b', 'reason': 'ipmi_password: Zq-old-1'}],
                                          maintenance=True))


class LockedNode(FakeClock):
    """A client of one node (u-1, n1) whose lock a conductor holds until ``until`` (fake clock): every maintenance
    write before then is refused as Ironic refuses it (HTTP 409, Locked), after the 2 s of Ironic's own lock retries
    ([conductor]node_locked_retry_attempts); sent with retry_busy (the transport's retries), a refusal comes after
    TRANSPORT_RETRIES seconds of them. ``refused`` counts the refusals."""

    TRANSPORT_RETRIES = 30.0

    def __init__(self, until, maintenance=False):
        super(LockedNode, self).__init__()
        self.until = until
        self.node = {'uuid': 'u-1', 'name': 'n1', 'provision_state': 'manageable', 'maintenance': maintenance,
                     'maintenance_reason': 'fan' if maintenance else None}
        self.refused = 0
        self.retry_busy = set()

    def _write(self, method, retry_busy, maintenance, reason):
        self.retry_busy.add(retry_busy)
        self.sleep(2.0)
        if self.now < self.until and retry_busy:
            self.sleep(self.TRANSPORT_RETRIES - 2.0)
        if self.now < self.until:
            self.refused += 1
            raise Locked('Ironic refused %s /v1/nodes/u-1/maintenance (HTTP 409): %s' % (method, LOCK), 409, LOCK)
        self.node.update(maintenance=maintenance, maintenance_reason=reason)

    def set_maintenance(self, uuid, reason=None, retry_busy=True):
        assert uuid == 'u-1'
        self._write('PUT', retry_busy, True, reason or None)

    def unset_maintenance(self, uuid, retry_busy=True):
        assert uuid == 'u-1'
        self._write('DELETE', retry_busy, False, None)

    def get_node(self, uuid, fields=None):
        assert uuid == 'u-1'
        return dict(self.node)


def ensure_on_fake_clock(fake, maintenance, timeout):
    return ensure_maintenance(fake, dict(fake.node), maintenance, 'disk 2' if maintenance else None, False, timeout,
                              clock=fake.clock, sleep=fake.sleep)


@pytest.mark.parametrize('maintenance', [True, False])
def test_a_lock_held_past_the_transports_retries_but_within_the_timeout_is_waited_out(maintenance):
    # Without a timeout (before baremetal_maintenance had one), the transport's retries end while the lock is held.
    old = LockedNode(until=100.0, maintenance=not maintenance)
    with pytest.raises(Locked, match='for 30 s of retries'):
        ensure_on_fake_clock(old, maintenance, None)
    assert old.node['maintenance'] is (not maintenance)

    fake = LockedNode(until=100.0, maintenance=not maintenance)
    result = ensure_on_fake_clock(fake, maintenance, 300)
    assert result['changed'] is True and result['error'] is None
    assert result['maintenance'] is maintenance and fake.node['maintenance'] is maintenance
    assert result['maintenance_reason'] == ('disk 2' if maintenance else None)
    # Sent again at the poll's pace, each try answered at once (no transport retries), until the lock went.
    assert fake.retry_busy == {False} and fake.refused >= 10
    assert 100.0 <= fake.now <= 100.0 + POLL_MAX_DELAY + 2.0


@pytest.mark.parametrize('maintenance', [True, False])
def test_a_lock_held_past_the_timeout_fails_naming_the_lock_and_the_timeout_and_changes_nothing(maintenance):
    fake = LockedNode(until=float('inf'), maintenance=not maintenance)
    with pytest.raises(Locked) as caught:
        ensure_on_fake_clock(fake, maintenance, 300)
    doing = 'setting maintenance' if maintenance else 'clearing maintenance'
    assert str(caught.value) == (
        "node n1: %s never went through: a conductor kept the node locked until the timeout (300 s) passed "
        "(Ironic's latest answer: %s). It is at work on the node, often waiting for a slow BMC: raise timeout, or "
        "look at the conductor's log." % (doing, LOCK.rstrip('.')))
    assert caught.value.status == 409
    assert fake.node['maintenance'] is (not maintenance)
    assert 300.0 <= fake.now <= 300.0 + 2.0
