# -*- coding: utf-8 -*-
"""The known kinds of faults on the agent's paths (issue 42), on Ironic's real ``direct`` deploy interface and agent
cleaning driven by the test agent (tests/integration/agent.py): an Ironic restarted while nodes are in ``clean wait``,
a lost answer to the deploy request, and a node a conductor keeps locked while it polls the agent.

The fixtures and helpers are test_agent_protocol.py's (one agent-driven Ironic per file, on this file's worker with
``--dist loadfile``), except the restart's: an Ironic killed and restarted needs one of its own."""

from __future__ import annotations

import copy
import time

import pytest
from agent import AgentPlayer
from dedicated import kill, result_of, spawn, start_module
from proxy import FaultProxy
import test_agent_protocol
from test_agent_protocol import (AGENT_IRONIC, HEARTBEAT, collection_writes, enroll,
                                 in_background, instance_info, states_since, when)

# test_agent_protocol's fixtures: its agent-driven Ironic (the same instance on the same worker) and this file's agent.
agent_ironic = test_agent_protocol.agent_ironic
agent = test_agent_protocol.agent
machine = test_agent_protocol.machine

PROVISION_WRITE = 'PUT /v1/nodes/NODE/states/provision 202'
# The restarted Ironic's callback timeout: longer than its restart takes here (a SIGKILL, then a start-up of several
# seconds with no heartbeat recorded), or Ironic itself would fail the nodes in 'clean wait' after the restart, as it
# rightly does with an agent silent for that long (test_agent_protocol's silent agent). Ironic's default is 1800 s.
RESTART_CALLBACK_TIMEOUT = 60
# Seconds the first clean step runs on each agent at most: the restart happens within it, and the test ends it
# once Ironic is back.
RESTART_STEP = 60


def node_of(ironic, played):
    return ironic.api('GET', '/nodes/%s' % played.uuid)


@pytest.fixture
def restartable_ironic(make_ironic):
    """An agent-driven Ironic of the test's own (it is killed and restarted), with AGENT_IRONIC's settings but the
    callback timeout RESTART_CALLBACK_TIMEOUT."""
    overrides = copy.deepcopy(AGENT_IRONIC)
    for option in ('clean_callback_timeout', 'deploy_callback_timeout', 'service_callback_timeout'):
        overrides['conductor'][option] = str(RESTART_CALLBACK_TIMEOUT)
    instance = make_ironic()
    instance.role_vars['ironic_standalone_config_overrides'] = overrides
    instance.start()
    return instance


@pytest.fixture
def restart_agent(restartable_ironic):
    played = AgentPlayer(restartable_ironic, interval=HEARTBEAT)
    yield played
    played.stop()


def test_a_task_waits_through_an_ironic_restart_while_its_nodes_are_in_clean_wait(
        restartable_ironic, restart_agent, run_module, tmp_path):
    ironic = restartable_ironic
    started = time.monotonic()
    machines = [restart_agent.play('52:54:00:fa:01:%02x' % index) for index in range(2)]
    for played in machines:
        enrolled = enroll(run_module, ironic, played, provision_state='manageable')
        assert not enrolled.get('failed'), enrolled.get('msg')
        played.slow['erase_devices_metadata'] = RESTART_STEP
    mark = ironic.log_mark()
    task = start_module(ironic, tmp_path, nodes=['agent-%s' % played.key for played in machines], state='available',
                        concurrency=2, timeout=300)
    for played in machines:
        when('the first clean step on %s' % played.mac, lambda: ('clean', 'erase_devices_metadata') in played.steps)
        when('clean wait', lambda: node_of(ironic, played)['provision_state'] == 'clean wait')
    kill(ironic)
    down = time.monotonic()
    spawn(ironic)  # the task's polls and the agents' heartbeats fail while Ironic starts again
    print('Ironic down for %.1f s' % (time.monotonic() - down))
    # The restart happened within the step: Ironic found the nodes still waiting on their agents. The agents go on
    # heartbeating; their step ends now.
    assert [node_of(ironic, played)['provision_state'] for played in machines] == ['clean wait'] * 2
    beats = [played.heartbeats for played in machines]
    for played, before in zip(machines, beats):
        when('a heartbeat taken after the restart', lambda: played.heartbeats > before)
        played.slow.clear()

    result = result_of(task)
    assert not result.get('failed'), result.get('msg')
    for entry in result['nodes']:
        assert entry['error'] is None and entry['node']['provision_state'] == 'available', entry
        assert [(t['verb'], t['to']) for t in entry['transitions']] == [('provide', 'available')]
    # The agents ran the rest of the cleaning after the restart; one provide per node, never sent again.
    for played in machines:
        assert played.steps == [('clean', 'erase_devices_metadata'), ('clean', 'erase_devices')]
        assert states_since(ironic, mark, played.uuid)[-1] == 'available'
    assert collection_writes(ironic, mark) == [PROVISION_WRITE] * 2
    print('restart in clean wait: %.1f s' % (time.monotonic() - started))


def test_a_lost_answer_to_the_deploy_request_is_not_sent_again_and_the_deploy_converges(
        agent_ironic, agent, machine, run_module):
    started = time.monotonic()
    played = machine()
    enrolled = enroll(run_module, agent_ironic, played)
    assert not enrolled.get('failed'), enrolled.get('msg')
    with FaultProxy(agent_ironic.port) as proxy:
        # Ironic takes the deploy request (target active) and starts the deploy; its answer never reaches the task.
        proxy.inject(lambda method, path: method == 'PUT' and path.endswith('/states/provision'), 'drop')
        mark = agent_ironic.log_mark()
        result = run_module('baremetal_provision_state', endpoint=proxy.endpoint, node='agent-%s' % played.key,
                            state='active', instance_info=instance_info(agent), timeout=300)
    assert not result.get('failed'), result.get('msg')
    assert result['node']['provision_state'] == 'active'
    assert [(method, status, fault) for method, _path, status, fault in proxy.injected] == [('PUT', 202, 'drop')]
    # The result says the answer to the deploy request was lost, and the task went on from what Ironic reported.
    assert [(t['verb'], t['to'], t.get('answer_lost', False)) for t in result['transitions']] == [
        ('set_instance_info', 'available', False), ('active', 'active', True)]
    # The deploy was sent once (Ironic's log) and ran through the agent's 'wait call-back', the image written once.
    assert collection_writes(agent_ironic, mark) == ['PATCH /v1/nodes/NODE 200', PROVISION_WRITE]
    assert 'wait call-back' in states_since(agent_ironic, mark, played.uuid)
    assert [(ok, algorithm) for _url, algorithm, ok in played.downloads] == [(True, 'sha256')]
    assert played.steps.count(('deploy', 'write_image')) == 1
    print('lost deploy answer: %.1f s' % (time.monotonic() - started))


def maintenance_writes(requests):
    return [(request.method, request.status) for request in requests if request.path.endswith('/maintenance')]


def test_maintenance_waits_while_a_conductor_holds_the_node_polling_its_agent_and_succeeds(
        agent_ironic, agent, machine, run_module):
    started = time.monotonic()
    played = machine()
    enrolled = enroll(run_module, agent_ironic, played, provision_state='manageable')
    assert not enrolled.get('failed'), enrolled.get('msg')
    when('the agent found its node', lambda: played.uuid)
    # A manual clean: on a heartbeat in 'clean wait' Ironic polls the agent's commands holding the node's lock, and
    # the agent answers that poll slowly (under Ironic's 60 s [agent]command_timeout): the node stays locked until
    # the test lets the answer go. (A record change is no write to try here: Ironic refuses to change a node's
    # record in 'clean wait', and the collection says so before it writes anything.)
    played.slow_status = 45
    agent_ironic.api('PUT', '/nodes/%s/states/provision' % played.uuid,
                     {'target': 'clean', 'clean_steps': [{'interface': 'deploy', 'step': 'burnin_cpu'}]})
    when('the step on the agent', lambda: ('clean', 'burnin_cpu') in played.steps)

    def held_in_clean_wait():
        # Not a reservation alone, which may be the short one of the heartbeat that sent the step: the agent holding
        # its answer to a command poll, which the conductor waits for with the node locked.
        node = node_of(agent_ironic, played)
        return played.held_status and node['provision_state'] == 'clean wait' and node['reservation']

    when('a command poll held by the agent, the conductor holding the node in clean wait', held_in_clean_wait)
    mark = agent_ironic.log_mark()

    def answer_fast_once_refused():
        # Once Ironic refused the task's write as locked, the agent answers the poll under way at once: the
        # conductor lets the node go, and the task's next try goes through.
        agent_ironic.wait_for_requests(mark, lambda requests: ('PUT', 409) in maintenance_writes(requests),
                                       'a maintenance write refused as locked')
        played.slow_status = 0

    in_background(answer_fast_once_refused)
    result = run_module('baremetal_maintenance', endpoint=agent_ironic.endpoint, node='agent-%s' % played.key,
                        maintenance=True, reason='disk 2 replaced after this clean')
    assert not result.get('failed'), result.get('msg')
    assert result['changed'] and result['maintenance'] is True
    # Refused while the conductor held the node (NodeLocked, HTTP 409), then taken: no failure on the lock.
    writes = maintenance_writes(agent_ironic.requests_since(mark))
    assert len(writes) >= 2 and set(writes[:-1]) == {('PUT', 409)} and writes[-1] == ('PUT', 202), writes
    assert node_of(agent_ironic, played)['maintenance']
    # In maintenance the heartbeats are only recorded (Ironic's allow_provisioning_in_maintenance); out of it, the
    # cleaning goes on and ends in 'manageable', the step run once.
    cleared = run_module('baremetal_maintenance', endpoint=agent_ironic.endpoint, node='agent-%s' % played.key,
                         maintenance=False)
    assert not cleared.get('failed'), cleared.get('msg')
    when('the clean to end', lambda: node_of(agent_ironic, played)['provision_state'] == 'manageable')
    assert played.steps.count(('clean', 'burnin_cpu')) == 1
    print('maintenance of a locked node: %.1f s' % (time.monotonic() - started))
