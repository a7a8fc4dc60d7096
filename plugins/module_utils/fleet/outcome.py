# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one shape a task with many nodes returns, and its failure budget: what task.module.finish sends.

One node: its result is the task's, failed when it has an error. Many: ``nodes`` (every node's result, each with
changed and error), ``totals``, ``failed_nodes`` (the labels of the nodes that failed) and ``diff`` (one per node
that changed, headed by the node's name, or its label when it has none); with waves, ``waves``: the names of each
wave's nodes, as diffs head them. The task fails when more than max_fail_percentage of the nodes it set out to
change failed (any one, when the module has no such option); the errors of a task that goes on are warnings, and
so are the warnings a node's result carries (its ``warnings``, never part of the result returned).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections
import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import as_written
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import held, node_name


def over_budget(failed, changing, max_fail_percentage):
    """Whether failed nodes, of the changing nodes a task set out to change, are more than max_fail_percentage
    (None: more than none)."""
    return failed > 0 and 100.0 * failed / max(changing, 1) > (max_fail_percentage or 0)


def totals(results, started, api_calls):
    """The totals line of a many-node result."""
    return {'nodes': len(results), 'changed': sum(1 for result in results if result.get('changed')),
            'failed': sum(1 for result in results if result.get('error')),
            'not_started': sum(1 for result in results if held(result)),
            'seconds': round(time.monotonic() - started, 3), 'api_calls': api_calls}


def failure_message(results, labels, max_fail_percentage=None):
    """'2 of the 5 nodes to change failed: a: ... | b: ...', or None when none failed or no more than
    max_fail_percentage of the nodes the task set out to change did (any one, when it is None)."""
    errors = ['%s: %s' % (label, result['error']) for label, result in zip(labels, results) if result.get('error')]
    changing = sum(1 for result in results if result.get('changed') or result.get('error') or held(result))
    if not over_budget(len(errors), changing, max_fail_percentage):
        return None
    budget = '' if max_fail_percentage is None else ' (max_fail_percentage is %s)' % as_written(max_fail_percentage)
    message = '%d of the %d nodes to change failed%s: %s' % (len(errors), changing, budget, ' | '.join(errors))
    not_started = [label for label, result in zip(labels, results) if held(result)]
    if not_started:
        message += ' | Not started, as no wave starts once the failures are over the budget: %s.' % ', '.join(not_started)
    return message


class Report(collections.namedtuple('Report', 'results labels single waves max_fail_percentage')):
    """How a task on node, nodes or a selection ended: every node's result, in the order of the task, how the task
    names each (labels), whether it named one node (single), its waves (indexes of results, or None) and its
    failure budget (max_fail_percentage; None: any one failure fails the task)."""

    __slots__ = ()

    def outcome(self, started, api_calls):
        """(message, result, warnings): the task fails with message when it is not None, else succeeds; it warns
        either way. A node's result may carry warnings of its own (a list, taken out of the result here)."""
        noted = [warning for result in self.results for warning in result.pop('warnings', None) or ()]
        if self.single:
            result = dict(self.results[0])
            return result.pop('error', None), result, noted
        diffs = []
        for label, result in zip(self.labels, self.results):
            diff = result.pop('diff', None)
            if diff and result.get('changed'):
                name = node_name(result, label)
                diffs.append(dict(diff, before_header=name, after_header=name))
        pairs = list(zip(self.labels, self.results))
        summary = dict(changed=any(result.get('changed') for result in self.results), nodes=self.results,
                       totals=totals(self.results, started, api_calls), diff=diffs,
                       failed_nodes=[label for label, result in pairs if result['error']])
        if self.waves is not None:
            summary['waves'] = [[node_name(self.results[index], self.labels[index]) for index in wave]
                                for wave in self.waves]
        message = failure_message(self.results, self.labels, self.max_fail_percentage)
        if not message:
            noted += ['%s: %s' % (label, result['error']) for label, result in pairs if result['error']]
        return message, summary, noted
