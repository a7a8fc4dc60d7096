# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Live progress of a long task, written by the module as it waits.

A module cannot print while it runs. Its action plugin (plugins/plugin_utils/_progress.py) names
a file in the module's environment and shows each line as it arrives. Without that variable (no
action plugin in front of the module: async, a connection other than local) nothing is written.
One JSON line per node and change of state or step, never more: the viewer keeps time itself and
says what each node is still doing while nothing changes. Steps are named in the user's words
(actions.step_word: deploy, not 'active'). A node in a wait state, where its agent works, also gets a line (an
``agent`` record, which the viewer shows in its next line of the node, not by itself) each time a poll finds a new
heartbeat Ironic recorded: its time as Ironic wrote it, and its age by Ironic's clock when the poll was answered.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import threading
import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import step_word

PROGRESS_FILE_ENV = 'BAREMETAL_LIFECYCLE_PROGRESS_FILE'

# The Progress of the task this process runs, by the file it writes to (task_progress).
_TASKS = {}
_TASKS_LOCK = threading.Lock()


def task_progress():
    """The one Progress of the task this process runs (a module process runs one task), made at its first report.

    Every stage of the task (the provision moves, power actions, waves) reports to it, on one clock: the seconds of
    its lines count from the task's first report, whichever stage writes them.
    """
    path = os.environ.get(PROGRESS_FILE_ENV)
    with _TASKS_LOCK:
        if path not in _TASKS:
            _TASKS[path] = Progress(path)
        return _TASKS[path]


def running_step(node):
    """The clean, deploy or service step Ironic reports the node runs ('deploy.erase_devices'), or None: what a
    node in a wait state is doing, as Ironic says, while its agent works (a step may take many minutes)."""
    for field in ('clean_step', 'deploy_step', 'service_step'):
        step = node.get(field)
        if isinstance(step, dict) and step.get('step'):
            return '%s.%s' % (step.get('interface'), step['step']) if step.get('interface') else step['step']
    return None


class Progress(object):
    """Where a task reports its nodes' motion: made by task_progress; tests give their own path and clock."""

    def __init__(self, path, clock=time.monotonic):
        self._path = path  # None: no viewer reads the lines, none is written
        self._clock = clock
        self._started = clock()
        self._last = {}
        self._heartbeats = {}  # label -> Ironic's time of the agent heartbeat its latest line gave
        self._nodes = 0
        # Nodes of one task may be waited for in threads (baremetal_power with concurrency).
        self._lock = threading.Lock()

    def start(self, nodes):
        """Announce how many nodes the task works on; the viewer summarizes a fleet instead of listing it.

        Every stage announces its own (a wave, the provision moves after the records): the task's count only grows,
        so that a last wave of one node does not make a fleet a one-node task, listed node by node and without its
        last line."""
        if nodes <= self._nodes:
            return
        self._nodes = nodes
        self._write({'nodes': nodes})

    def node(self, label, state, step=None, running=None, heartbeat=None):
        """Report a node in a state (provision or power), during a step (a verb or power action) or at rest (None),
        the step Ironic reports it runs (running_step: 'deploy.erase_devices'), when it reports one, and its agent's
        last heartbeat (waiter.agent_heartbeat), when a poll saw one: a new one alone is an ``agent`` record."""
        step = step_word(step)
        seconds = round(self._clock() - self._started, 1)
        if self._last.get(label) == (state, step, running):
            if heartbeat is not None and heartbeat['at'] != self._heartbeats.get(label):
                self._heartbeats[label] = heartbeat['at']
                self._write(dict(_heartbeat_fields(heartbeat), agent=label, seconds=seconds))
            return
        self._last[label] = (state, step, running)
        self._heartbeats[label] = heartbeat['at'] if heartbeat is not None else None
        record = {'node': label, 'state': state, 'step': step, 'seconds': seconds}
        if running:
            record['running'] = running
        if heartbeat is not None:
            record.update(_heartbeat_fields(heartbeat))
        self._write(record)

    def wave(self, number, waves, members, back, failed):
        """Report a wave (number of waves) of nodes (their labels), how many of them are back so far and how many
        nodes of the task failed: when it starts (none back) and when it ends (all back)."""
        self._write({'wave': number, 'waves': waves, 'members': members, 'back': back, 'failed': failed,
                     'seconds': round(self._clock() - self._started, 1)})

    def _write(self, record):
        if not self._path:
            return
        # Appended whole, one line at a time: the reader never sees half a record it cannot parse later.
        with self._lock, open(self._path, 'a') as stream:
            stream.write(json.dumps(record, sort_keys=True) + '\n')


def _heartbeat_fields(heartbeat):
    """The fields of a record that give an agent's heartbeat: Ironic's recorded time, and its age when known."""
    fields = {'heartbeat_at': heartbeat['at']}
    if heartbeat.get('age') is not None:
        fields['heartbeat_age'] = heartbeat['age']
    return fields
