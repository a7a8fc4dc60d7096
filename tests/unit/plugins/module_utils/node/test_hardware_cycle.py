# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""node/hardware_cycle.py: the cycle's goal (where each apply mode may start, its opt-ins, the engine's plan) and
how a failed cycle is explained.

Cycles end to end, through the engine, are tested against a real Ironic in tests/integration/test_hardware.py.
"""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware_cycle as cycle
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import hardware_declaration as hwd
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import provision
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import PlanError, Step

from .test_hardware_difference import node
from ..engine.fake_ironic import FakeIronic


BIOS_STEP = [{'interface': 'bios', 'step': 'apply_configuration', 'args': {'settings': [{'name': 'A', 'value': 1}]}}]
RAID_STEPS = [{'interface': 'raid', 'step': 'delete_configuration'}, {'interface': 'raid', 'step': 'create_configuration'}]


@pytest.mark.parametrize('state, verbs', [('manageable', ['clean']), ('available', ['manage', 'clean', 'provide'])])
def test_cleaning_returns_the_node_where_it_came_from(state, verbs):
    goal = cycle.goal_for(node(state), hwd.HardwareDeclaration(), BIOS_STEP)
    assert goal.ident == 'u-1' and goal.state == state
    assert goal.options.clean_steps == BIOS_STEP and goal.options.service_steps is None
    assert [step.verb for step in provision.plan_node(node(state), goal.state, goal.options)] == verbs


@pytest.mark.parametrize('state, words', [
    ('active', ["this node is 'active'", 'apply: servicing with allow_reboot: true']),
    ('enroll', ["this node is 'enroll'", 'bring it to manageable first']),
    ('clean failed', ["this node is 'clean failed'", 'bring it to manageable first']),
])
def test_cleaning_refuses_other_states(state, words):
    with pytest.raises(hwd.HardwareError) as error:
        cycle.goal_for(node(state), hwd.HardwareDeclaration(), BIOS_STEP)
    for word in words:
        assert word in str(error.value)


def test_a_node_in_maintenance_is_refused_before_any_write():
    with pytest.raises(PlanError, match='replacing DIMM'):
        cycle.goal_for(node(maintenance=True, maintenance_reason='replacing DIMM'), hwd.HardwareDeclaration(), BIOS_STEP)


@pytest.mark.parametrize('declaration, steps, words', [
    (hwd.HardwareDeclaration(apply='servicing'), BIOS_STEP, ['servicing runs bios.apply_configuration', 'allow_reboot: true']),
    (hwd.HardwareDeclaration(apply='servicing', allow_reboot=True), RAID_STEPS,
     ['raid.delete_configuration and raid.create_configuration', 'destroys the data', 'allow_destructive: true']),
])
def test_servicing_needs_the_opt_ins(declaration, steps, words):
    with pytest.raises(hwd.HardwareError) as error:
        cycle.goal_for(node('active'), declaration, steps)
    for word in words:
        assert word in str(error.value)


def test_servicing_only_from_active():
    with pytest.raises(hwd.HardwareError, match="this node is 'manageable'. Use apply: cleaning"):
        cycle.goal_for(node('manageable'), hwd.HardwareDeclaration(apply='servicing', allow_reboot=True), BIOS_STEP)


def test_servicing_hands_the_steps_to_the_engine_as_service_steps(monkeypatch):
    monkeypatch.setattr(provision, 'plan_node', lambda node, state, options: [Step('service', 'active', 'active')])
    declaration = hwd.HardwareDeclaration(apply='servicing', allow_reboot=True, allow_destructive=True)
    goal = cycle.goal_for(node('active'), declaration, RAID_STEPS + BIOS_STEP)
    assert goal.state == 'active' and goal.options.clean_steps is None
    assert goal.options.arguments('service') == {'service_steps': RAID_STEPS + BIOS_STEP}


def test_an_engine_that_plans_no_service_action_is_an_error_not_a_silent_no_op(monkeypatch):
    monkeypatch.setattr(provision, 'plan_node', lambda node, state, options: [])
    with pytest.raises(hwd.HardwareError, match="plans no 'service' action from 'active'"):
        cycle.goal_for(node('active'), hwd.HardwareDeclaration(apply='servicing', allow_reboot=True), BIOS_STEP)


def test_a_failure_names_the_interface_that_would_be_needed():
    message = cycle.explain_failure('Ironic says: node does not support this clean step', node(), ['raid', 'bios'], None)
    assert "raid steps need a raid_interface that offers them (this node's is 'fake')" in message
    assert "bios steps need a bios_interface" in message and 'baremetal_provision_state recovers it' in message
    # Ironic's text ends without a full stop: the explanation starts a sentence of its own, not a run-on
    assert message.startswith("Ironic says: node does not support this clean step. bios steps need a bios_interface")
    assert cycle.explain_failure('node n1: servicing failed.', node(), [], None).startswith(
        'node n1: servicing failed. The node is left where Ironic put it')


@pytest.mark.parametrize('release, recovery', [
    (None, '(from clean failed: manage to manageable; from service failed: abort to active).'),
    ((32, 0), '(from clean failed: manage to manageable; from service failed: abort to active).'),
    ((29, 0), "(from clean failed: manage to manageable; from service failed: rescue, unrescue to active (with "
              "rescue_password)). 'abort' out of 'service failed' exists from Ironic 32.0, and this server is older. "
              "From 'service failed' this server still takes service (service_steps) or service runbook (runbook)."),
    ((24, 1), "(from clean failed: manage to manageable; from service failed: rescue, unrescue to active (with "
              "rescue_password)). 'deleted' out of 'service failed' exists from Ironic 29.0, and this server is older; "
              "'abort' out of 'service failed' exists from Ironic 32.0, and this server is older. "
              "From 'service failed' this server still takes service (service_steps) or service runbook (runbook)."),
])
def test_the_way_out_of_a_failed_cycle_is_the_one_the_server_has(release, recovery):
    message = cycle.explain_failure('node n1: servicing failed.', node(), ['bios'], release)
    assert message.endswith('baremetal_provision_state recovers it ' + recovery)


def test_a_node_an_interrupted_cycle_left_moving_is_waited_for_then_read_again_with_the_fields_given():
    fake = FakeIronic(tick=40)
    fake.add('u-1', 'servicing', target='active')
    fake.add('u-2', 'manageable')
    read = []
    get_node = fake.get_node
    fake.get_node = lambda uuid, fields=None: read.append((uuid, fields)) or get_node(uuid, fields)

    nodes, problems, left = cycle.wait_for_cycles(fake, [dict(fake.nodes['u-1']), dict(fake.nodes['u-2'])],
                                                  ('uuid', 'properties'), 600, clock=fake.clock, sleep=fake.sleep)

    assert [node['provision_state'] for node in nodes] == ['active', 'manageable']
    assert problems == {} and read == [('u-1', ('uuid', 'properties'))]
    assert fake.requests == [] and left == int(600 - fake.now) and left < 600 - 40


def test_check_mode_waits_for_no_cycle_and_takes_a_moving_node_where_it_lands():
    fake = FakeIronic(tick=40)
    fake.add('u-1', 'service wait', target='active')
    moving = dict(fake.nodes['u-1'])
    nodes, problems, left = cycle.wait_for_cycles(fake, [moving], ('uuid',), 600, check_mode=True, clock=fake.clock,
                                                  sleep=fake.sleep)
    assert nodes == [dict(moving, provision_state='active', target_provision_state=None)]
    assert (problems, left, fake.polls, fake.now) == ({}, 600, [], 0)


def test_a_node_that_does_not_rest_within_the_timeout_is_a_problem_and_not_read_again():
    fake = FakeIronic(tick=1000)
    fake.add('u-1', 'clean wait', target='manageable')
    fake.stalled.add('u-1')
    nodes, problems, _left = cycle.wait_for_cycles(fake, [dict(fake.nodes['u-1'])], ('uuid',), 100,
                                                   clock=fake.clock, sleep=fake.sleep)
    assert nodes[0]['provision_state'] == 'clean wait'
    assert "not started: it was still 'clean wait' (target 'manageable') after 100 s" in problems['u-1']
