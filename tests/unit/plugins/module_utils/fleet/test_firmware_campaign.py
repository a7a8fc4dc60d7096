# -*- coding: utf-8 -*-
"""A firmware campaign's pure parts: the end of its window (stop_after, on the fake clock), its steps, what ran, and
how a node's state decides its cycle or refuses the task."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.firmware_campaign import (
    done_steps, plan_node, run_campaign, stop_deadline, stopper, update_steps)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.hardware_declaration import HardwareError

from ..common.fake_clock import FakeClock
from ..engine.fake_ironic import FakeIronic

# 2026-11-28 22:15:00 UTC
NOW = calendar.timegm((2026, 11, 28, 22, 15, 0))
BASELINE = [{'name': 'R640', 'match': {'model': 'R640'}, 'components': [
    {'component': 'bmc', 'version': '2.10', 'url': 'http://127.0.0.1:9/bmc-2.10.bin',
     'stepping_stones': [{'version': '2.9', 'url': 'http://127.0.0.1:9/bmc-2.9.bin'}]},
    {'component': 'bios', 'version': '1.3', 'url': 'http://127.0.0.1:9/bios-1.3.bin'}]}]


@pytest.mark.parametrize('text, seconds', [
    ('2h', 7200), ('30m', 1800), ('1h30m', 5400), ('90s', 90), (' 45M ', 2700),
    ('22:45', 1800),                  # later today
    ('06:00', 7 * 3600 + 45 * 60),    # tomorrow's: the one to come
    ('22:15', 86400),                 # now is not to come: tomorrow's
])
def test_stop_after_is_a_duration_or_the_next_time_of_day_in_utc(text, seconds):
    assert stop_deadline(text, NOW) == NOW + seconds


def test_no_stop_after_is_no_deadline():
    assert stop_deadline(None, NOW) is None


@pytest.mark.parametrize('text', ['', '0m', 'soon', '25:00', '6', '2 hours', '12:5', '-1h'])
def test_a_stop_after_that_is_neither_is_refused_naming_both_forms(text):
    with pytest.raises(BaremetalError) as caught:
        stop_deadline(text, NOW)
    assert str(caught.value) == (
        "stop_after '%s' is neither a duration (such as 2h, 30m or 1h30m, more than zero) nor a time of day in UTC "
        "(HH:MM, such as 06:00); give one of them. Nothing was read." % text)


def test_no_wave_starts_once_the_clock_reaches_the_deadline():
    clock = FakeClock()
    stop = stopper('30m', stop_deadline('30m', clock.clock()), clock.clock)
    assert stop() is None
    clock.sleep(1799)
    assert stop() is None
    clock.sleep(1)
    assert stop() == ('stop_after 30m was reached: no new wave starts after it. Run the campaign again to continue '
                      'from the versions Ironic reports.')


def test_each_version_of_a_plan_is_one_firmware_update_step_in_order():
    plan = [{'component': 'bmc', 'version': '2.9', 'url': 'u1'}, {'component': 'bmc', 'version': '2.10', 'url': 'u2'}]
    assert update_steps(plan) == [
        {'interface': 'firmware', 'step': 'update', 'args': {'settings': [{'component': 'bmc', 'url': 'u1'}]}},
        {'interface': 'firmware', 'step': 'update', 'args': {'settings': [{'component': 'bmc', 'url': 'u2'}]}}]


def test_what_ran_is_the_plan_less_what_is_left_read_back():
    plan = [{'component': 'bmc', 'version': '2.9'}, {'component': 'bmc', 'version': '2.10'},
            {'component': 'bios', 'version': '1.3'}]
    assert done_steps(plan, plan[1:]) == plan[:1]
    assert done_steps(plan, []) == plan
    assert done_steps(plan, plan) == []


class Client(object):
    """Ironic's firmware components of one node ({serial: version} of its NICs too); nothing else may be asked."""

    def __init__(self, bmc, bios, nics=None):
        self.components = [{'component': 'bmc', 'current_version': bmc, 'model': 'R640'},
                           {'component': 'bios', 'current_version': bios}]
        self.components += [{'component': 'nic:' + serial, 'current_version': version}
                            for serial, version in sorted((nics or {}).items())]

    def get_firmware(self, uuid):
        return self.components


def node(state, target=None):
    return {'uuid': 'u1', 'name': 'rack1-node01', 'provision_state': state, 'target_provision_state': target,
            'firmware_interface': 'redfish', 'properties': {}}


def test_a_deployed_node_to_update_refuses_the_task_without_allow_disruptive_naming_its_plan():
    with pytest.raises(HardwareError) as caught:
        plan_node(Client('2.8', '1.2'), BASELINE, node('active'), allow_disruptive=False)
    assert str(caught.value) == (
        'node rack1-node01 is deployed (active): the campaign would service it (bmc 2.9, bmc 2.10, bios 1.3), which '
        'reboots its workload. Set allow_disruptive: true to allow it, or leave the node out of the campaign.')


def test_a_deployed_node_at_the_baseline_needs_no_consent():
    entry = plan_node(Client('2.10', '1.3'), BASELINE, node('active'), allow_disruptive=False)
    assert entry['steps'] == [] and entry['goal'] is None and entry['error'] is None
    assert entry['compliance']['status'] == 'at_target'


@pytest.mark.parametrize('state, target, reason', [
    ('service failed', None, "node rack1-node01 is 'service failed': a campaign updates a node in manageable or "
                             "available (by manual cleaning) or active (by servicing). Bring it to one of them "
                             "(baremetal.lifecycle.baremetal_provision_state) and run the campaign again; its plan: "
                             "bios 1.3."),
    ('service wait', 'active', "node rack1-node01 is still moving ('service wait'); run the campaign again once it "
                               "rests."),
])
def test_a_node_that_cannot_take_its_plan_now_fails_alone_with_the_way_out(state, target, reason):
    # A node still moving here started again after run_campaign waited for it (wait_for_cycles).
    entry = plan_node(Client('2.10', '1.2'), BASELINE, node(state, target), allow_disruptive=True)
    assert entry['error'] == reason and entry['goal'] is None and entry['steps'] == []


def test_a_failed_node_is_told_with_ironics_reason_masked():
    failed = dict(node('clean failed'), last_error='Firmware update failed: https://admin:s3cret@bmc.example/update')
    entry = plan_node(Client('2.10', '1.2'), BASELINE, failed, allow_disruptive=True)
    assert entry['error'].startswith("node rack1-node01 is 'clean failed' (Ironic's reason: Firmware update failed: "
                                     "https://admin:")
    assert 's3cret' not in entry['error']


class MovingClient(FakeIronic):
    """The fake conductor's nodes, with the firmware components of Client."""

    def __init__(self, tick):
        super(MovingClient, self).__init__(tick=tick)
        self.firmware = Client('2.10', '1.2')

    def get_firmware(self, uuid):
        return self.firmware.get_firmware(uuid)


def test_a_node_that_does_not_come_to_rest_fails_alone_with_the_engines_words_and_nothing_is_sent():
    client = MovingClient(tick=10000)
    client.add('u1', 'service wait', target='active')
    client.stalled.add('u1')
    moving = dict(client.nodes['u1'], firmware_interface='redfish', properties={})
    result, = run_campaign(client, BASELINE, [moving], allow_disruptive=True, timeout=1, concurrency=1)
    assert "node u1: not started: it was still 'service wait' (target 'active') after 1 s" in result['error']
    assert result['campaign'] == result['left'] == [
        {'component': 'bios', 'version': '1.3', 'url': 'http://127.0.0.1:9/bios-1.3.bin'}]
    assert client.requests == []


NIC_BASELINE = [dict(BASELINE[0], components=BASELINE[0]['components'] + [
    {'component': 'nic:*', 'version': '22.40', 'url': 'http://127.0.0.1:9/nic-22.40.bin'}])]


def test_nic_star_plans_each_nic_of_the_node_by_the_name_ironic_records_and_a_rerun_sends_none_done():
    entry = plan_node(Client('2.10', '1.3', {'SN-B': '22.31', 'SN-A': '22.40', 'SN-C': '22.36'}), NIC_BASELINE,
                      node('manageable'), allow_disruptive=False)

    assert entry['mode'] == 'cleaning' and entry['error'] is None and entry['goal'] is not None
    assert entry['steps'] == [
        {'interface': 'firmware', 'step': 'update',
         'args': {'settings': [{'component': 'nic:%s' % serial, 'url': 'http://127.0.0.1:9/nic-22.40.bin'}]}}
        for serial in ('SN-B', 'SN-C')]
    # Read back after the cycle: one NIC at the target is done, the other is left.
    after = plan_node(Client('2.10', '1.3', {'SN-B': '22.40', 'SN-A': '22.40', 'SN-C': '22.36'}), NIC_BASELINE,
                      node('manageable'), allow_disruptive=False)
    assert done_steps(entry['compliance']['plan'], after['compliance']['plan']) == [
        {'component': 'nic:SN-B', 'version': '22.40', 'url': 'http://127.0.0.1:9/nic-22.40.bin'}]
    # Every NIC at the target: nothing to send.
    rerun = plan_node(Client('2.10', '1.3', {'SN-B': '22.40', 'SN-A': '22.40', 'SN-C': '22.40'}), NIC_BASELINE,
                      node('active'), allow_disruptive=False)
    assert rerun['steps'] == [] and rerun['goal'] is None and rerun['compliance']['status'] == 'at_target'
