# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Sending a node's step to Ironic: lost answers, refusals, back-pressure (HTTP 503) and locks told apart.

A lost answer is not a failure: the node is read again and the task goes on from what Ironic reports, sending the
step once more only where it never reached the conductor. Busy (Ironic takes no more nodes now) and Locked (a
conductor holds this node) leave the job as it was, for the scheduler to send the step later. What went wrong is
worded by engine/diagnosis.py, loaded on those paths only.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import AnswerLost, Busy, IronicError, Locked


def diagnosis():
    """engine/diagnosis.py, which words what went wrong: loaded only when something did (here and in
    engine/moves.py)."""
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import diagnosis as words
    return words


class Sender(object):
    """Sends steps with issue_step(client, uuid, step, options); busy is Ironic's latest Busy answer (None: none)."""

    def __init__(self, client, issue_step, clock, progress):
        self.client = client
        self.issue_step = issue_step
        self.clock = clock
        self.progress = progress
        self.busy = None

    def issue(self, job, step, reason=None):
        """Send one step; on a lost answer, re-read the node and go on from what Ironic reports.

        Returns True when the step is under way (or already done), False when the job failed or Ironic answered
        Busy (self.busy) or Locked (job.locked): the job is as it was, to send the step later.
        """
        transition = {'verb': step.verb, 'from': step.source, 'to': None, 'seconds': 0.0}
        if step.action:
            transition['action'] = step.action.name
        if reason:
            transition['reason'] = reason
        job.locked = None
        try:
            self.issue_step(self.client, job.uuid, step, job.options)
        except Locked as exc:
            job.locked = exc
            return False
        except Busy as exc:
            self.busy = exc
            return False
        except AnswerLost:
            try:
                took_effect = self._took_effect(job, step)
            except Busy as exc:  # not applied: the node is still where the step starts
                self.busy = exc
                return False
            except IronicError as exc:
                job.fail(diagnosis().answer_lost_unread(step, exc))
                return False
            if not took_effect:
                job.fail(diagnosis().answer_lost_twice(step))
                return False
            transition['answer_lost'] = True
        except IronicError as exc:
            self._refused(job, step, exc)
            return False
        job.started = True
        job.transitions.append(transition)
        job.holders = {}
        job.step_started = self.clock()
        job.quiet = None
        self.progress.node(job.label, job.node.get('provision_state'), step.verb)
        return True

    def _read_again(self, job):
        node = self.client.get_node(job.uuid, self.client.poll_fields)
        job.node = summarize_node(node)
        return node

    def _took_effect(self, job, step):
        """After a lost answer: True when Ironic applied the step (or does now, sent once more)."""
        node = self._read_again(job)
        if node['provision_state'] != step.source or node.get('target_provision_state'):
            return True  # the step is done or under way
        try:
            # It never reached the conductor; or it moves nothing (DONE_WHEN_ANSWERED) and, sent again, sends
            # only what is still missing.
            self.issue_step(self.client, job.uuid, step, job.options)
        except AnswerLost:
            node = self._read_again(job)
            return node['provision_state'] != step.source or bool(node.get('target_provision_state'))
        return True

    def _refused(self, job, step, exc):
        try:
            node = self._read_again(job)
        except IronicError:
            node = None
        job.fail(diagnosis().refused(step, job.plan, exc, node))

    def abort(self, job):
        """abort_on_timeout: abort a node still in a wait state Ironic can abort. Returns what was done."""
        state = job.node.get('provision_state')
        why_not = diagnosis().not_abortable(self.client, state)
        if why_not:
            return ' %s, so it was left moving.' % why_not
        try:
            self.issue_step(self.client, job.uuid, graph.Step('abort', state, None), job.options)
        except IronicError as exc:
            return " Aborting it failed: %s" % exc
        job.started = True
        job.transitions.append({'verb': 'abort', 'from': state, 'to': None, 'seconds': 0.0,
                                'reason': 'abort_on_timeout'})
        return diagnosis().aborted(state)
