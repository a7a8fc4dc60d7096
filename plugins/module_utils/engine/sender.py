# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Sending a node's step to Ironic (Sender): lost answers, refusals, back-pressure (HTTP 503) and locks told apart,
each returned as what came of it (Sent) for the scheduler to apply; the sender changes no job.

A lost answer is not a failure: the node is read again and the task goes on from what Ironic reports, sending the
step once more only where it never reached the conductor. Busy (Ironic takes no more nodes now) and Locked (a
conductor holds this node) leave the job as it was, for the scheduler to send the step later. Unreachable (Ironic
stopped answering, as while it restarts, before the step or the read again after a lost answer) is no failure
either: the job waits for its node to be read again, and is planned from what Ironic reports then.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import diagnosis, graph
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.requests import step_request
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import (
    AnswerLost, Busy, IronicError, Locked, Unreachable)

# What came of sending one step: the transition it started (None when it did not start), Ironic's Busy or Locked
# answer that held it off (send it later), or Unreachable (read the node again once Ironic answers), why the node
# fails (None: it does not), and the node as read again (None: it was not).
Sent = collections.namedtuple('Sent', 'transition held error node')


class Sender(object):
    """Sends the steps of a task's nodes to one Ironic (client), each with the request engine/requests.py makes for
    it (step_request)."""

    def __init__(self, client):
        self.client = client

    def send(self, job, step, reason=None):
        """Send one step of the job (read, not changed); on a lost answer, read the node again and go on from what
        Ironic reports. Returns Sent."""
        transition = {'verb': step.verb, 'from': step.source, 'to': None, 'seconds': 0.0}
        if step.action:
            transition['action'] = step.action.name
        if reason:
            transition['reason'] = reason
        try:
            step_request(self.client, job.uuid, step, job.options)()
        except (Locked, Busy, Unreachable) as exc:
            return Sent(None, exc, None, None)
        except AnswerLost:
            return self._answer_lost(job, step, transition)
        except IronicError as exc:
            try:
                node = self._read_again(job)
            except IronicError:
                node = None
            return Sent(None, None, diagnosis.refused(step, job.plan, exc, node), node)
        return Sent(transition, None, None, None)

    def _read_again(self, job):
        return self.client.get_node(job.uuid, self.client.poll_fields)

    def _answer_lost(self, job, step, transition):
        """After a lost answer: Sent with the transition when Ironic applied the step (or does now, sent once
        more)."""
        node = None
        try:
            node = self._read_again(job)
            if node['provision_state'] == step.source and not node.get('target_provision_state'):
                # It never reached the conductor; or it moves nothing (DONE_WHEN_ANSWERED) and, sent again, sends
                # only what is still missing.
                try:
                    step_request(self.client, job.uuid, step, job.options)()
                except AnswerLost:
                    node = self._read_again(job)
                    if node['provision_state'] == step.source and not node.get('target_provision_state'):
                        return Sent(None, None, diagnosis.answer_lost_twice(step), node)
        except Busy as exc:  # not applied: the node is still where the step starts
            return Sent(None, exc, None, node)
        except Unreachable as exc:  # Ironic stopped answering (a restart): read the node once it answers again
            return Sent(None, exc, None, node)
        except IronicError as exc:
            return Sent(None, None, diagnosis.answer_lost_unread(step, exc), node)
        transition['answer_lost'] = True
        return Sent(transition, None, None, node)

    def abort(self, job):
        """abort_on_timeout: abort a node still in a wait state Ironic can abort. Returns (what was done, in words;
        the abort's transition, None when none was sent)."""
        state = job.node.get('provision_state')
        why_not = diagnosis.not_abortable(self.client, state)
        if why_not:
            return ' %s, so it was left moving.' % why_not, None
        try:
            step_request(self.client, job.uuid, graph.Step('abort', state, None), job.options)()
        except IronicError as exc:
            return " Aborting it failed: %s" % exc, None
        return diagnosis.aborted(state), {'verb': 'abort', 'from': state, 'to': None, 'seconds': 0.0,
                                          'reason': 'abort_on_timeout'}
