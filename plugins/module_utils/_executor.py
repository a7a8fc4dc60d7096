# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run plans: issue each verb, wait for the node to come to rest, detect failure, for one node or many.

Waiting polls with a delay that starts short (most transitions take well under a second on a
fast conductor) and backs off to a cap (a real deploy takes minutes). One overall deadline on a
monotonic clock bounds everything. Many nodes share one poll: one list request per page.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils import _planner as planner
from ansible_collections.baremetal.lifecycle.plugins.module_utils._hardware import mask_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils._ironic import IronicError, summarize_node

POLL_INITIAL_DELAY = 0.05
POLL_BACKOFF = 1.5
POLL_MAX_DELAY = 5.0


class Backoff(object):
    def __init__(self):
        self.delay = POLL_INITIAL_DELAY

    def reset(self):
        self.delay = POLL_INITIAL_DELAY

    def next(self):
        delay = self.delay
        self.delay = min(self.delay * POLL_BACKOFF, POLL_MAX_DELAY)
        return delay


class Deadline(object):
    """One time limit on a monotonic clock, and the backed-off pause before the next poll."""

    def __init__(self, timeout, clock=time.monotonic, sleep=time.sleep):
        self.clock = clock
        self.sleep = sleep
        self.at = clock() + timeout

    def extend(self, seconds):
        self.at += seconds

    def pause(self, backoff):
        """Sleep until the next poll; False, without sleeping, once the deadline has passed."""
        remaining = self.at - self.clock()
        if remaining <= 0:
            return False
        self.sleep(min(backoff.next(), remaining))
        return True


class Job(object):
    """One node's plan and what happened to it."""

    def __init__(self, node, steps, options):
        self.node = summarize_node(node)
        self.uuid = node['uuid']
        self.plan = list(steps)
        self.options = options  # _provision.Options: how this node gets there
        self.transitions = []
        self.error = None
        self._started = None

    @property
    def remaining(self):
        # Every step issued records exactly one transition.
        return self.plan[len(self.transitions):]

    @property
    def label(self):
        return self.node.get('name') or self.uuid

    def result(self):
        return {
            'node': self.node,
            'plan': [step.as_dict() for step in self.plan],
            'transitions': self.transitions,
            'error': self.error,
            'changed': bool(self.transitions),
        }


def describe_failure(step, node):
    last_error = mask_text(node.get('last_error'))
    detail = (' Ironic says: %s' % last_error) if last_error else ''
    return ("node %s: '%s' from '%s' ended in '%s' instead of '%s'.%s" % (
        node.get('name') or node['uuid'], step.verb, step.source, node['provision_state'], step.landing, detail))


class Executor(object):
    """Runs jobs against one Ironic within one deadline."""

    def __init__(self, client, timeout, concurrency=1, issue_step=None, clock=time.monotonic, sleep=time.sleep):
        self.client = client
        self.issue_step = issue_step  # issue_step(client, uuid, step, options): sends the request of one step
        self.clock = clock
        self.timeout = timeout
        self.deadline = Deadline(timeout, clock, sleep)
        self.concurrency = max(1, concurrency)

    def settle(self, nodes):
        """Wait until every node is at rest; return their latest summaries by UUID.

        A node still moving at the deadline is returned as it is; callers check is_at_rest.
        """
        latest = dict((node['uuid'], node) for node in nodes)
        moving = set(uuid for uuid, node in latest.items()
                     if not planner.is_at_rest(node['provision_state'], node.get('target_provision_state')))
        backoff = Backoff()
        while moving and self.deadline.pause(backoff):
            for uuid, node in self.client.poll_nodes(moving).items():
                latest[uuid] = node
                if planner.is_at_rest(node['provision_state'], node.get('target_provision_state')):
                    moving.discard(uuid)
        return latest

    def _issue(self, job):
        step = job.remaining[0]
        try:
            self.issue_step(self.client, job.uuid, step, job.options)
        except IronicError as exc:
            job.error = 'node %s: %s' % (job.label, exc)
            return False
        job._started = self.clock()
        return True

    def _finish_step(self, job, node):
        step = job.remaining[0]
        job.node = summarize_node(node)
        state = planner.normalize_state(node['provision_state'])
        job.transitions.append({'verb': step.verb, 'from': step.source, 'to': state,
                                'seconds': round(self.clock() - job._started, 3)})
        if state != step.landing:
            job.error = describe_failure(step, node)

    def run(self, jobs, wait=True):
        """Execute every job's plan; at most ``concurrency`` nodes move at once.

        With wait=False only each job's first verb is issued. A failing node never stops the others.
        """
        pending = [job for job in jobs if job.remaining]
        moving = {}
        backoff = Backoff()
        while pending or moving:
            while pending and len(moving) < self.concurrency:
                job = pending.pop(0)
                if self._issue(job):
                    moving[job.uuid] = job
                    backoff.reset()
            if not wait:
                for job in moving.values():
                    step = job.remaining[0]
                    job.transitions.append({'verb': step.verb, 'from': step.source, 'to': None, 'seconds': 0.0})
                break
            if moving and not self.deadline.pause(backoff):
                break
            if not moving:
                continue
            for uuid, node in self.client.poll_nodes(set(moving)).items():
                if not planner.is_at_rest(node['provision_state'], node.get('target_provision_state')):
                    continue
                job = moving[uuid]
                self._finish_step(job, node)
                if job.error or not job.remaining:
                    del moving[uuid]
                elif self._issue(job):
                    backoff.reset()
                else:
                    del moving[uuid]
        for job in list(moving.values()) + pending:
            if wait and job.error is None:
                step = job.remaining[0]
                job.error = ("node %s: timed out after %d s during '%s' from '%s' (waiting for '%s'). The node "
                             "is still moving; raise timeout or look at the conductor log."
                             % (job.label, self.timeout, step.verb, step.source, step.landing))
        return jobs
