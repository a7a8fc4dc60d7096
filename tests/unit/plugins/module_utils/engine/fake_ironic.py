# -*- coding: utf-8 -*-
"""A fake Ironic and the scheduler that runs jobs against it, for the tests of the scheduler and of the sender.

The fake conductor moves a node along the table's success path one transient state per tick of a fake clock.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.conductors import ConductorWatch
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.job import Job
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.scheduler import Scheduler
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import (
    AnswerLost, Busy, ConductorUnreachable, IronicError, Locked, Unreachable)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.provision import plan_node

from ..common.fake_clock import FakeClock


EVENTS = dict(((source, event), destination) for source, event, destination in states.TRANSITIONS)


class FakeIronic(FakeClock):
    """Nodes whose transient states each last ``tick`` seconds of a fake clock."""

    poll_fields = ('uuid', 'provision_state', 'reservation', 'provision_updated_at')

    def __init__(self, tick=0.3, fail_in=None):
        super(FakeIronic, self).__init__()
        self.stalled = set()  # nodes whose conductor died: they never move again and hold no lock
        self.refuse = {}  # verb -> (maintenance reason set just before it is refused)
        self.lose_answer = {}  # verb -> how many answers to lose (after applying the verb)
        self.unreachable_until = None  # Ironic answers nothing until then (connection refused)
        self.down_after_lost_answer = 0.0  # after a lost answer, Ironic answers nothing for this long (killed)
        self.history = []
        self.clears_last_error = False  # as Ironic 31.0's power sync does, once the history keeps the error
        self.requests = []
        self.server_version = (1, 115)  # the newest API version the server serves: its release follows
        self.tick = tick
        self.fail_in = fail_in or {}  # transient state -> failure state it falls into
        self.nodes = {}
        self.polls = []
        self.moving_peak = 0
        self.died = {}  # conductor -> when it was killed; Ironic reports it dead HEARTBEAT_TIMEOUT later
        self.orphans = {}  # node -> (its conductor, killed in the middle of the step, the state a takeover fails it in)
        self.conductor_reads = []
        self.heartbeats = True  # live conductors record heartbeats (Ironic on SQLite records none)
        self.watch = ConductorWatch()
        self.capacity = None  # Ironic's concurrent action limit: how many nodes may be in transient states at once
        self.busy_answers = []  # when Ironic answered Busy, and to which node
        self.locked_until = {}  # node -> until when a conductor at work on it holds its lock (fake clock)
        self.locked_answers = []  # when Ironic answered Locked, and to which node
        self.dead_conductor_until = {}  # node -> until when Ironic's API passes its requests to a dead conductor

    HEARTBEAT_INTERVAL = 5.0
    HEARTBEAT_TIMEOUT = 15.0
    TAKEOVER_AFTER = 4.0  # after the conductor is reported dead, a live one's periodic task takes its nodes over

    def kill(self, conductor, uuid, failed_state=None):
        """Kill the conductor holding the node: it stops moving, keeps the reservation; a takeover (failed_state)
        fails it later, or (None) only releases the reservation."""
        self.died[conductor] = self.now
        self.nodes[uuid]['reservation'] = conductor
        self.orphans[uuid] = (conductor, failed_state)

    def listed_conductors(self):
        """GET /v1/conductors: a live conductor's heartbeat advances every HEARTBEAT_INTERVAL, unless the fake
        records none (heartbeats False, as Ironic on SQLite); a killed one's stops, at T-<name>."""
        def heartbeat(name):
            if name in self.died or not self.heartbeats:
                return 'T-%s' % name
            return 'beat-%d' % (self.now // self.HEARTBEAT_INTERVAL)

        return [{'hostname': name, 'conductor_group': '', 'updated_at': heartbeat(name),
                 'alive': name not in self.died or self.now < self.died[name] + self.HEARTBEAT_TIMEOUT}
                for name in sorted(set(self.died) | set(['conductor']))]

    def conductors(self):
        self.conductor_reads.append(self.now)
        return self.watch.read(self.listed_conductors())

    def add(self, uuid, state, target=None):
        self.nodes[uuid] = {'uuid': uuid, 'name': uuid, 'provision_state': state, 'target_provision_state': target,
                            'since': 0.0, 'last_error': None, 'reservation': 'conductor' if target else None,
                            'provision_updated_at': '0', 'maintenance': False, 'maintenance_reason': None}

    @property
    def version(self):
        return min(self.server_version, (1, 115))

    @property
    def release(self):
        return capabilities.release_for_api(self.server_version)

    def describe_server(self):
        return capabilities.describe_server(self.server_version)

    def supports(self, version):
        return self.version >= version

    def _refuse_connections(self):
        if self.unreachable_until is not None and self.now < self.unreachable_until:
            raise Unreachable('connection refused')

    def set_provision_state(self, uuid, verb, **arguments):
        self._refuse_connections()
        for other in self.nodes.values():
            self._advance(other)
        if self.capacity is not None and sum(1 for n in self.nodes.values() if n['target_provision_state']) >= self.capacity:
            self.busy_answers.append((self.now, uuid))
            raise Busy('Ironic refused PUT /nodes/%s/states/provision (HTTP 503): The concurrent action limit for '
                       'cleaning has been reached.' % uuid, 503)
        if self.now < self.dead_conductor_until.get(uuid, 0):
            self.locked_answers.append((self.now, uuid))
            reason = 'Unable to establish connection to http://127.0.131.3:8089: Connection refused'
            raise ConductorUnreachable('Ironic refused PUT /nodes/%s/states/provision (HTTP 500): %s' % (uuid, reason),
                                       500, reason)
        if self.now < self.locked_until.get(uuid, 0):
            self.locked_answers.append((self.now, uuid))
            reason = 'Node %s is locked by host c1, please retry after the current operation is completed.' % uuid
            raise Locked('Ironic refused PUT /nodes/%s/states/provision (HTTP 409): %s' % (uuid, reason), 409, reason)
        self.requests.append((self.now, uuid, verb))
        node = self.nodes[uuid]
        if verb in self.refuse:
            node.update(maintenance=True, maintenance_reason=self.refuse[verb])
            raise IronicError('node %s is in maintenance' % uuid, 400)
        entered = graph.events(self.release).get((node['provision_state'], states.VERBS[verb]))
        if entered is None:
            raise IronicError('cannot %s from %s' % (verb, node['provision_state']), 400)
        landing = states.LANDING_OVERRIDES.get((node['provision_state'], verb))
        node['provision_state'] = entered
        stable = states.STATES[entered][0] != states.TRANSIENT
        node['target_provision_state'] = None if stable else landing or states.STATES[entered][1]
        node['reservation'] = None if stable else 'conductor'
        node['since'] = self.now
        node['provision_updated_at'] = str(self.now)
        self.stalled.discard(uuid)
        self.moving_peak = max(self.moving_peak, sum(1 for n in self.nodes.values() if n['target_provision_state']))
        if self.lose_answer.get(verb):
            self.lose_answer[verb] -= 1
            if self.down_after_lost_answer:
                self.unreachable_until = self.now + self.down_after_lost_answer
            raise AnswerLost('the answer to PUT %s was lost' % verb)

    def update_node(self, uuid, patch, retry_busy=True):
        """The instance_info part of a JSON patch, applied as Ironic applies it."""
        self.requests.append((self.now, uuid, 'PATCH %s' % ' '.join(op['path'] for op in patch)))
        info = self.nodes[uuid].setdefault('instance_info', {})
        for operation in patch:
            key = operation['path'][len('/instance_info/'):]
            if operation['op'] == 'remove':
                del info[key]
            else:
                info[key] = operation['value']
        if self.lose_answer.get('PATCH'):
            self.lose_answer['PATCH'] -= 1
            raise AnswerLost('the answer to PATCH was lost')

    def get_node(self, uuid, fields=None):
        self._refuse_connections()
        self._advance(self.nodes[uuid])
        return dict(self.nodes[uuid])

    def node_history(self, uuid, limit):
        return self.history[-limit:]

    def _record_error(self, node, error):
        """Ironic's record of why it failed the node: its last_error and its history (which keeps it alone once the
        power-state sync cleared last_error: clears_last_error)."""
        self.history.append({'created_at': '2026-01-01T00:00:%02d' % self.now, 'severity': 'ERROR', 'event': error})
        node['last_error'] = None if self.clears_last_error else error

    def _advance(self, node):
        if node['uuid'] in self.orphans:
            conductor, failed_state = self.orphans[node['uuid']]
            if self.now >= self.died[conductor] + self.HEARTBEAT_TIMEOUT + self.TAKEOVER_AFTER:
                node['reservation'] = None
                if failed_state:
                    del self.orphans[node['uuid']]
                    node.update(provision_state=failed_state, target_provision_state=None)
                    self._record_error(node, 'Operation was aborted due to conductor take over')
            return
        if node['uuid'] in self.stalled:
            node['reservation'] = None
            return
        while node['target_provision_state'] and self.now - node['since'] >= self.tick:
            state = node['provision_state']
            if state in self.fail_in:
                node['provision_state'] = self.fail_in[state]
                self._record_error(node, 'the fake conductor failed in %s' % state)
                if states.STATES[node['provision_state']][0] == states.TRANSIENT:
                    self.stalled.add(node['uuid'])  # waits for a ramdisk that never calls back
                    node['reservation'] = None
                else:
                    node['target_provision_state'] = None
                return
            # the event that reaches the target directly (a manual clean's 'manage'), else onwards
            following = next((EVENTS[(state, event)] for event in ('manage', 'done', 'clean')
                              if EVENTS.get((state, event)) == node['target_provision_state']), None)
            following = following or EVENTS.get((state, 'done')) or EVENTS.get((state, 'clean'))
            node['provision_state'] = following
            node['since'] += self.tick
            node['provision_updated_at'] = str(node['since'])
            if states.STATES[following][0] == states.STABLE:
                node['target_provision_state'] = None
                node['reservation'] = None

    def poll_nodes(self, last_seen, transient_states, agent_states=(), landing=None):
        self._refuse_connections()
        self.polls.append((self.now, sorted(last_seen)))
        for uuid in last_seen:
            if uuid in self.nodes:
                self._advance(self.nodes[uuid])
        return dict((uuid, dict(self.nodes[uuid])) for uuid in last_seen if uuid in self.nodes)


def scheduler(fake, timeout=60, **kwargs):
    def plan(job, node):
        return plan_node(node, job.target, job.options, fake.release)
    return Scheduler(fake, timeout, plan=plan, clock=fake.clock, sleep=fake.sleep, **kwargs)


def jobs_for(fake, target, uuids=None, options=None):
    return [(Job(fake.nodes[uuid], target, options or Options()), dict(fake.nodes[uuid]))
            for uuid in (uuids or sorted(fake.nodes))]


def run(fake, target, timeout=60, wait=True, check_mode=False, **kwargs):
    return scheduler(fake, timeout, **kwargs).run(jobs_for(fake, target), wait=wait, check_mode=check_mode)


IMAGE = {'image_source': 'http://127.0.0.1:9/image.qcow2', 'old_key': None}


def deploying_with_instance_info(fake):
    fake.add('n1', 'manageable')
    fake.nodes['n1']['instance_info'] = {'old_key': 'stale', 'image_checksum': 'kept'}
    return scheduler(fake).run(jobs_for(fake, 'active', options=Options(instance_info=IMAGE)), wait=True)
