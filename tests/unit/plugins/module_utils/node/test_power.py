# -*- coding: utf-8 -*-
"""Waiting for power actions on a fake clock: what a real Ironic cannot do on demand (a slow BMC, an OS that
ignores a soft power off). Success, idempotence and a real BMC failure are tested in tests/integration/test_power.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.power import (
    SOFT_VERDICT_GRACE, PowerError, ensure_power)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import Progress
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import POLL_MAX_DELAY
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import Busy, Locked
from ansible_collections.baremetal.lifecycle.plugins.plugin_utils._progress import READ_INTERVAL, ProgressView

from ..common.fake_clock import FakeClock


class FakeConductor(FakeClock):
    """One node whose power actions take ``seconds`` of a fake clock, then succeed or fail."""

    def __init__(self, power_state='power off', seconds=0.5, ignores_soft=False, fails_with=None):
        super(FakeConductor, self).__init__()
        self.seconds = seconds
        self.ignores_soft = ignores_soft
        self.fails_with = fails_with
        self.clears = False  # Ironic clears the last_error of the failed action before the task reads it
        self.history = []
        self.requests = []
        self.locked_until = 0.0  # a conductor holds the node's lock until then (fake clock)
        self.busy_until = 0.0  # Ironic takes no more work (HTTP 503) until then
        self.node = {'uuid': 'u-1', 'name': 'n1', 'power_state': power_state, 'target_power_state': None,
                     'last_error': None}
        self._done_at = None
        self._reaches = None

    def start(self, target, reaches, seconds=None):
        self.node.update(target_power_state=reaches, last_error=None)
        self._reaches = reaches
        self._done_at = self.now + (self.seconds if seconds is None else seconds)

    def set_power_state(self, uuid, target, timeout=None, retry_busy=True):
        self.requests.append((target, timeout))
        if self.now < max(self.locked_until, self.busy_until) and retry_busy:
            self.sleep(30)  # the transport's own retries
        if self.now < self.locked_until:
            raise Locked('Ironic refused PUT /v1/nodes/u-1/states/power (HTTP 409): Node u-1 is locked by host c1, '
                         'please retry after the current operation is completed.', 409,
                         'Node u-1 is locked by host c1, please retry after the current operation is completed.')
        if self.now < self.busy_until:
            raise Busy('Ironic refused PUT /v1/nodes/u-1/states/power (HTTP 503): No free conductor workers '
                       'available', 503, 'No free conductor workers available')
        reaches = 'power off' if 'off' in target else 'power on'
        self.start(target, reaches, seconds=float('inf') if self.ignores_soft and 'soft' in target else None)

    def node_history(self, uuid, limit):
        return self.history[-limit:]

    def get_node(self, uuid, fields=None):
        if self._done_at is not None and self.now >= self._done_at:
            self._done_at = None
            if self.fails_with:
                self.history.append({'created_at': '2026-11-29T08:00:00', 'severity': 'ERROR',
                                     'event': self.fails_with})
                # the power-state sync of Ironic 31.0 and newer clears it once the history keeps it
                self.node.update(target_power_state=None, last_error=None if self.clears else self.fails_with)
            else:
                self.node.update(target_power_state=None, power_state=self._reaches)
        return dict(self.node)


def run(fake, state, timeout=30, check_mode=False):
    return ensure_power(fake, fake.get_node('u-1'), state, timeout, check_mode, clock=fake.clock, sleep=fake.sleep)


@pytest.mark.parametrize('state, power_state', [('powered_on', 'power on'), ('powered_off', 'power off'),
                                                ('soft_powered_off', 'power off')])
def test_a_node_already_there_is_left_alone(state, power_state):
    fake = FakeConductor(power_state=power_state)
    result = run(fake, state)
    assert result['changed'] is False and fake.requests == []


@pytest.mark.parametrize('state, target', [('rebooted', 'rebooting'), ('soft_rebooted', 'soft rebooting')])
def test_reboots_always_act(state, target):
    fake = FakeConductor(power_state='power on')
    result = run(fake, state)
    assert result['changed'] is True
    assert [request[0] for request in fake.requests] == [target]
    assert result['node']['power_state'] == 'power on' and result['node']['target_power_state'] is None


def test_only_soft_actions_pass_the_timeout_to_ironic():
    fake = FakeConductor(power_state='power on')
    run(fake, 'soft_powered_off', timeout=42)
    run(fake, 'powered_on', timeout=42)
    assert fake.requests == [('soft power off', 42), ('power on', None)]


def test_check_mode_reports_without_acting():
    fake = FakeConductor(power_state='power off')
    assert run(fake, 'powered_on', check_mode=True)['changed'] is True
    assert run(fake, 'rebooted', check_mode=True)['changed'] is True
    assert fake.requests == []


def test_the_result_is_a_nodes_result_with_the_power_diff():
    # node, changed and error, as every node's result (engine/result.py), which the task's outcome relies on.
    result = run(FakeConductor(power_state='power off'), 'powered_on', check_mode=True)
    assert sorted(result) == ['changed', 'diff', 'error', 'node'] and result['error'] is None


def test_an_action_already_under_way_is_waited_for_before_deciding():
    fake = FakeConductor(power_state='power off', seconds=3)
    fake.start('power on', 'power on')
    result = run(fake, 'powered_on')
    assert result['changed'] is False and fake.requests == []
    assert fake.now >= 3


def test_a_soft_power_off_the_os_ignores_times_out_with_advice():
    fake = FakeConductor(power_state='power on', ignores_soft=True)
    with pytest.raises(PowerError) as error:
        run(fake, 'soft_powered_off', timeout=10)
    message = str(error.value)
    assert "'soft power off' did not finish within 10 s" in message
    assert 'state: powered_off' in message
    # Ironic's own timeout is given a little time to report before we give up
    assert 10 <= fake.now <= 10 + SOFT_VERDICT_GRACE + 0.01


def test_a_slow_hard_action_times_out_at_the_deadline():
    fake = FakeConductor(power_state='power off', seconds=100)
    with pytest.raises(PowerError, match=r"'power on' did not finish within 5 s.*BMC may be slow"):
        run(fake, 'powered_on', timeout=5)
    assert fake.now == pytest.approx(5)


def test_a_failed_action_reports_ironics_last_error_and_no_change():
    fake = FakeConductor(power_state=None, fails_with='Redfish connection failed for node u-1.')
    with pytest.raises(PowerError) as error:
        run(fake, 'powered_on')
    assert 'Ironic says: Redfish connection failed for node u-1. Check the BMC address' in str(error.value)
    assert "power state is 'unknown'" in str(error.value)
    assert error.value.result['changed'] is False


def test_a_failed_action_whose_last_error_ironic_cleared_reports_the_error_its_history_keeps():
    fake = FakeConductor(power_state=None, fails_with='Redfish connection failed for node u-1.')
    fake.clears = True
    with pytest.raises(PowerError) as error:
        run(fake, 'powered_on')
    assert ('Ironic says: Redfish connection failed for node u-1 (recorded in its history at 2026-11-29T08:00:00; '
            'Ironic has since cleared its last_error). Check the BMC address') in str(error.value)


@pytest.mark.parametrize('state, said', [('powered_on', "Ironic could not 'power on' it;"),
                                         ('rebooted', "Ironic could not reboot it ('rebooting');"),
                                         ('soft_rebooted', "Ironic could not soft reboot it ('soft rebooting');")])
def test_a_failed_action_is_named_in_words(state, said):
    fake = FakeConductor(power_state='power off', fails_with='Redfish connection failed for node u-1.')
    with pytest.raises(PowerError) as error:
        run(fake, state)
    assert str(error.value).startswith('node n1: %s' % said), str(error.value)


def test_a_node_a_conductor_keeps_locked_is_asked_again_until_it_takes_the_action():
    fake = FakeConductor(power_state='power off')
    fake.locked_until = 70.0  # a conductor waiting for a slow BMC
    result = run(fake, 'powered_on', timeout=300)
    assert result['changed'] is True and result['node']['power_state'] == 'power on'
    # asked again at the poll's pace: taken within one poll of the lock's end
    assert 70 <= fake.now <= 70 + POLL_MAX_DELAY + fake.seconds + POLL_MAX_DELAY


def test_an_ironic_that_takes_no_more_work_for_a_while_is_asked_again_too():
    fake = FakeConductor(power_state='power off')
    fake.busy_until = 40.0  # no conductor worker free (HTTP 503)
    result = run(fake, 'powered_on', timeout=300)
    assert result['changed'] is True and result['node']['power_state'] == 'power on'
    assert 40 <= fake.now <= 40 + POLL_MAX_DELAY + fake.seconds + POLL_MAX_DELAY


@pytest.mark.parametrize('holds', ['locked_until', 'busy_until'])
def test_a_node_held_off_past_the_timeout_ends_within_one_poll_of_it(holds):
    fake = FakeConductor(power_state='power off')
    setattr(fake, holds, float('inf'))
    with pytest.raises(PowerError, match="node n1: 'power on' was never started: "):
        run(fake, 'powered_on', timeout=100)
    assert 100 <= fake.now <= 100 + POLL_MAX_DELAY


def test_a_node_locked_past_the_timeout_fails_naming_the_lock_and_no_change():
    fake = FakeConductor(power_state='power off')
    fake.locked_until = float('inf')
    with pytest.raises(PowerError) as error:
        run(fake, 'powered_on', timeout=100)
    assert str(error.value) == ("node n1: 'power on' was never started: a conductor kept the node locked until the "
                                "timeout (100 s) passed (Ironic's latest answer: Node u-1 is locked by host c1, please "
                                "retry after the current operation is completed). It is at work on the node, often "
                                "waiting for a slow BMC: raise timeout, or look at the conductor's log.")
    assert error.value.result['changed'] is False


def test_a_secret_ironic_quotes_in_its_reason_never_reaches_the_message():
    fake = FakeConductor(power_state=None, fails_with="Invalid driver_info {'ipmi_password': 'MARKER-PW'} for "
                                                      "http://admin:MARKER-URL@127.0.0.1:9")
    with pytest.raises(PowerError) as error:
        run(fake, 'powered_on')
    assert 'MARKER' not in str(error.value) and 'MARKER' not in str(error.value.result)
    assert "Ironic says: Invalid driver_info {'ipmi_password': '********'} for http://admin:********@127.0.0.1:9" \
        in str(error.value)


@pytest.mark.parametrize('state', ['powered_off', 'soft_powered_off'])
@pytest.mark.parametrize('check_mode', [False, True])
def test_a_node_that_must_never_be_powered_off_is_refused_before_any_request(state, check_mode):
    fake = FakeConductor(power_state='power on')
    fake.node['disable_power_off'] = True
    with pytest.raises(PowerError) as caught:
        run(fake, state, check_mode=check_mode)
    assert fake.requests == []
    assert caught.value.result['changed'] is False
    assert 'disable_power_off' in str(caught.value)
    assert 'baremetal.lifecycle.baremetal_node disable_power_off: false' in str(caught.value)


@pytest.mark.parametrize('state', ['powered_on', 'rebooted', 'soft_rebooted'])
def test_a_node_that_must_never_be_powered_off_may_be_powered_on_and_rebooted_as_ironic_allows(state):
    # Ironic resets such a node without powering it off (its API refuses only power off and soft power off).
    fake = FakeConductor(power_state='power on' if 'reboot' in state else 'power off')
    fake.node['disable_power_off'] = True
    assert run(fake, state)['changed'] is True
    assert len(fake.requests) == 1


def test_a_slow_power_action_is_reported_while_it_waits_and_heartbeats_every_thirty_seconds(tmp_path):
    fake = FakeConductor(power_state='power off', seconds=70.0)
    path = str(tmp_path / 'progress')
    ensure_power(fake, fake.get_node('u-1'), 'powered_on', 300, False, Progress(path, fake.clock),
                 clock=fake.clock, sleep=fake.sleep)
    with open(path) as stream:
        records = [json.loads(line) for line in stream]
    assert [(record['state'], record['step']) for record in records] == [('power off', None), ('power off', 'power on'),
                                                                         ('power on', None)]
    assert records[-1]['seconds'] >= 70.0
    lines = []
    view = ProgressView('power', 0, lines.append)
    seconds = 0.0
    for record in records:
        while seconds < record['seconds']:  # the action plugin's reads, in the same fake time
            view.tick(seconds)
            seconds += READ_INTERVAL
        view.feed(record)
    heartbeats = [line for line in lines if ' still ' in line]
    assert heartbeats[:2] == ['power: n1 still power off (power on) for 30 s, 30 s',
                              'power: n1 still power off (power on) for 60 s, 60 s']
