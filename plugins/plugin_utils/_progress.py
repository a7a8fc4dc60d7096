# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The controller half of live progress: run the module, show the lines it writes while it runs.

An action plugin of this collection is a ProgressAction named after its module. With a local
connection (the usual case: the modules talk to Ironic's API from the controller) it runs the
module in a thread and tails the progress file the module writes (module_utils/_progress.py).
Anything else (async, a jump host) runs the module as Ansible would without the plugin: the task
works the same, only silently.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections
import json
import os
import tempfile
import threading
import time

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.baremetal.lifecycle.plugins.module_utils._progress import PROGRESS_FILE_ENV

display = Display()

# How often the progress file is read while the module runs.
READ_INTERVAL = 0.5

# A fleet is summarized (counts by state) at most this often, unless -v asks for every node.
SUMMARY_INTERVAL = 10.0


class ProgressView(object):
    """Turns progress records into lines: every change for one node or at -v, periodic counts for a fleet."""

    def __init__(self, task_name, verbosity, show):
        self.task_name = task_name
        self.verbosity = verbosity
        self.show = show
        self.nodes = 1
        self.states = {}
        self.seconds = 0.0
        self._summarized_at = 0.0

    @property
    def detailed(self):
        return self.nodes <= 1 or self.verbosity >= 1

    def feed(self, record):
        if 'nodes' in record:
            self.nodes = record['nodes']
            return
        self.states[record['node']] = record['state']
        if self.detailed:
            step = " ('%s')" % record['step'] if record['step'] else ''
            self.show('%s: %s %s%s, %.0f s' % (self.task_name, record['node'], record['state'], step, record['seconds']))

    def tick(self, seconds):
        """Time passes (seconds since the task started): a fleet gets its counts every SUMMARY_INTERVAL."""
        self.seconds = seconds
        if not self.detailed and self.states and seconds - self._summarized_at >= SUMMARY_INTERVAL:
            self.summarize()

    def summarize(self):
        self._summarized_at = self.seconds
        counts = collections.Counter(self.states.values())
        self.show('%s: %d nodes, %s, %.0f s' % (self.task_name, self.nodes, ', '.join(
            '%d %s' % (count, state) for state, count in sorted(counts.items())), self.seconds))


class ProgressAction(ActionBase):
    """Runs the module of the same name and shows its progress lines as they come."""

    _progress_file = None

    def run(self, tmp=None, task_vars=None):
        result = super(ProgressAction, self).run(tmp, task_vars)
        if self._task.async_val or self._connection.transport != 'local':
            result.update(self._execute_module(task_vars=task_vars, wrap_async=self._task.async_val))
            return result
        handle, self._progress_file = tempfile.mkstemp(prefix='baremetal-lifecycle-progress-')
        os.close(handle)
        try:
            result.update(self._run_showing_progress(task_vars))
        finally:
            os.remove(self._progress_file)
            self._progress_file = None
        return result

    def _run_showing_progress(self, task_vars):
        outcome = {}

        def execute():
            try:
                outcome['result'] = self._execute_module(task_vars=task_vars)
            except Exception as exc:  # re-raised in the task's own thread below
                outcome['error'] = exc

        worker = threading.Thread(target=execute, name='baremetal-lifecycle-module')
        view = ProgressView(self._task.get_name(), display.verbosity, display.display)
        started = time.monotonic()
        worker.start()
        with open(self._progress_file) as stream:
            pending = ''
            while True:
                worker.join(READ_INTERVAL)
                pending += stream.read()
                *lines, pending = pending.split('\n')
                for line in lines:
                    view.feed(json.loads(line))
                if not worker.is_alive():
                    break
                view.tick(time.monotonic() - started)
        if 'error' in outcome:
            raise outcome['error']
        return outcome['result']

    def _compute_environment_string(self, raw_environment_out=None):
        if self._progress_file is None:
            return super(ProgressAction, self)._compute_environment_string(raw_environment_out)
        environment = {}
        super(ProgressAction, self)._compute_environment_string(environment)
        environment[PROGRESS_FILE_ENV] = self._progress_file
        if isinstance(raw_environment_out, dict):
            raw_environment_out.clear()
            raw_environment_out.update(environment)
        return self._connection._shell.env_prefix(**environment)
