# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The controller half of live progress: run the module, show the lines it writes while it runs.

An action plugin of this collection is a ProgressAction named after its module. With a local
connection (the usual case: the modules talk to Ironic's API from the controller) it runs the
module in a thread and tails the progress file the module writes (module_utils/engine/progress.py).
Anything else (async, a jump host) runs the module as Ansible would without the plugin: the task
works the same, only silently. Lines go through Display, so ansible-runner (AWX, AAP) has them in its
stdout and job events as well as a terminal.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections
import json
import os
import tempfile
import threading
import time

from ansible.errors import AnsibleError
from ansible.utils.display import Display

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import PROGRESS_FILE_ENV
from ansible_collections.baremetal.lifecycle.plugins.plugin_utils._module_action import CollectorPausedPayload

display = Display()

# How often the progress file is read while the module runs.
READ_INTERVAL = 0.5

# A fleet is summarized (counts by state and step) at most this often, unless -v asks for every node.
SUMMARY_INTERVAL = 10.0

# The longest a waiting task goes without a line: each node still moving is named again (one node, or
# every node at -v) when it had no line for this long. BAREMETAL_LIFECYCLE_HEARTBEAT_INTERVAL (seconds,
# read from the controller's environment) sets another, for example a short one in a test.
HEARTBEAT_INTERVAL = 30.0
HEARTBEAT_INTERVAL_ENV = 'BAREMETAL_LIFECYCLE_HEARTBEAT_INTERVAL'


def _phase(state, step, running=None, heartbeat=None):
    """'cleaning (provide)' for a node during a step, 'available' for one at rest, and with the step Ironic reports
    the node runs and its agent's last heartbeat (_heartbeat_words):
    'clean wait (provide, running deploy.erase_devices, agent heartbeat 4 s ago)'."""
    if not step:
        return str(state)
    return '%s (%s)' % (state, ', '.join([step] + (['running %s' % running] if running else [])
                                         + ([heartbeat] if heartbeat else [])))


def _heartbeat_words(record, seconds):
    """What a progress record tells of the agent's last heartbeat, at seconds since the task started: 'agent
    heartbeat 4 s ago' (its age by Ironic's clock when the module's poll was answered, plus the time since that poll:
    no newer heartbeat was recorded by then), 'agent heartbeat at 2026-11-28T21:59:42.931413 (Ironic's time, UTC)'
    when Ironic gave no clock to age it by, None when Ironic recorded none."""
    if not record or not record.get('heartbeat_at'):
        return None
    if record.get('heartbeat_age') is None:
        return "agent heartbeat at %s (Ironic's time, UTC)" % record['heartbeat_at']
    return 'agent heartbeat %.0f s ago' % (record['heartbeat_age'] + max(0.0, seconds - record['seconds']))


def heartbeat_interval():
    """HEARTBEAT_INTERVAL, or the seconds the environment asks for; a value that is not a positive number is
    refused before the module runs, naming the variable."""
    value = os.environ.get(HEARTBEAT_INTERVAL_ENV)
    if not value:
        return HEARTBEAT_INTERVAL
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0
    if not seconds > 0:
        raise AnsibleError('%s must be a number of seconds above 0, not %r: set it so, or unset it for %d s.'
                           % (HEARTBEAT_INTERVAL_ENV, value, HEARTBEAT_INTERVAL))
    return seconds


def _entries(result):
    """The per-node results of a module's result: its nodes with many (it has totals), else itself."""
    return (result.get('nodes') or []) if 'totals' in result else [result]


def would(entry):
    """What check mode says of a node's result: 'would deploy', 'would manage then provide' (its plan's steps by the
    name progress lines give them), 'would change' (a change without a plan), 'no change' or 'failed'."""
    if entry.get('error') or entry.get('failed'):
        return 'failed'
    plan = entry.get('plan') or (entry.get('provision') or {}).get('plan') or []
    if plan:
        return 'would %s' % ' then '.join(step.get('name') or step.get('verb') for step in plan)
    return 'would change' if entry.get('changed') else 'no change'


class ProgressView(object):
    """Turns progress records into lines: every change and a heartbeat per waiting node for one node or at -v,
    periodic counts by state and step for a fleet, and a last line with where a fleet's nodes ended; in check mode,
    a last line with what the task would do, for one node as for a fleet."""

    def __init__(self, task_name, verbosity, show, heartbeat=HEARTBEAT_INTERVAL, check_mode=False):
        self.task_name = task_name
        self.verbosity = verbosity
        self.show = show
        self.heartbeat = heartbeat
        self.check_mode = check_mode
        self.nodes = 1
        self.phases = {}  # node -> (state, step)
        self.running = {}  # node -> the step Ironic reports it runs, or None
        self.heartbeats = {}  # node -> the latest record giving its agent's last heartbeat, or None
        self._entered = {}  # node -> seconds when it entered its phase
        self._shown_at = {}  # node -> seconds of its last line
        self.seconds = 0.0
        self._summarized_at = 0.0
        self.wave = None  # the record of the latest wave, with waves

    @property
    def detailed(self):
        return self.nodes <= 1 or self.verbosity >= 1

    def feed(self, record):
        if 'nodes' in record:
            self.nodes = record['nodes']
            return
        if 'wave' in record:
            self.wave = record
            self.show('%s: %s, %.0f s' % (self.task_name, self._wave_progress(), record['seconds']))
            return
        if 'agent' in record:  # a new heartbeat of a node's agent: shown in the node's next line
            self.heartbeats[record['agent']] = record
            return
        node = record['node']
        self.phases[node] = (record['state'], record['step'])
        self.running[node] = record.get('running')
        self.heartbeats[node] = record if record.get('heartbeat_at') else None
        self._entered[node] = self._shown_at[node] = record['seconds']
        if self.detailed:
            phase = _phase(record['state'], record['step'], self.running[node],
                           _heartbeat_words(self.heartbeats[node], record['seconds']))
            self.show('%s: %s %s, %.0f s' % (self.task_name, node, phase, record['seconds']))

    def tick(self, seconds):
        """Time passes (seconds since the task started): a fleet gets its counts every SUMMARY_INTERVAL (or
        heartbeat, if shorter), a node still moving that had no line for heartbeat seconds gets one."""
        self.seconds = seconds
        if not self.detailed:
            if self.phases and seconds - self._summarized_at >= min(SUMMARY_INTERVAL, self.heartbeat):
                self._summarized_at = seconds
                wave = '%s; ' % self._wave_progress() if self.wave else ''
                self.show('%s: %s%d nodes: %s, %.0f s' % (self.task_name, wave, self.nodes, self._counts(), seconds))
            return
        for node, (state, step) in sorted(self.phases.items()):
            if step and seconds - self._shown_at[node] >= self.heartbeat:
                self._shown_at[node] = seconds
                phase = _phase(state, step, self.running[node], _heartbeat_words(self.heartbeats.get(node), seconds))
                self.show('%s: %s still %s for %.0f s, %.0f s' % (
                    self.task_name, node, phase, seconds - self._entered[node], seconds))

    def finish(self, result, seconds):
        """The last line of a fleet task (the module's result, seconds since it started): where its nodes ended, and
        how many failed. In check mode, of any task that showed a node: what it would do, and where the nodes are."""
        if not self.phases:
            return
        if self.check_mode:
            self._finish_check(result, seconds)
            return
        if self.nodes <= 1:
            return
        failed = (result.get('totals') or {}).get('failed', 0)
        self.show('%s: done, %d nodes: %s; %d failed, %.0f s' % (self.task_name, self.nodes, self._counts(), failed, seconds))

    def _finish_check(self, result, seconds):
        """'check mode, nothing changed; 3 nodes: 3 would deploy (now 3 available); 0 failed, 0 s', or for one node
        'check mode, nothing changed; n1 would deploy (now available), 0 s'."""
        outcomes = [would(entry) for entry in _entries(result)]
        if len(outcomes) == 1 and len(self.phases) == 1:
            node, (state, step) = next(iter(self.phases.items()))
            self.show('%s: check mode, nothing changed; %s %s (now %s), %.0f s'
                      % (self.task_name, node, outcomes[0], _phase(state, step), seconds))
            return
        counts = collections.Counter(outcome for outcome in outcomes if outcome != 'failed')
        # What would change first, then the nodes that would not.
        planned = ', '.join('%d %s' % (counts[outcome], outcome)
                            for outcome in sorted(counts, key=lambda outcome: (outcome == 'no change', outcome))) or 'none planned'
        self.show('%s: check mode, nothing changed; %d nodes: %s (now %s); %d failed, %.0f s' % (
            self.task_name, self.nodes, planned, self._counts(), len(outcomes) - sum(counts.values()), seconds))

    def _wave_progress(self):
        """'wave 3/10: 8 of 20 back, 0 failed': a node of the wave is back once it rests since the wave started."""
        wave = self.wave
        back = wave['back'] or sum(1 for node in wave['members'] if node in self.phases and self.phases[node][1] is None
                                   and self._entered[node] >= wave['seconds'])
        return 'wave %d/%d: %d of %d back, %d failed' % (wave['wave'], wave['waves'], back, len(wave['members']), wave['failed'])

    def _counts(self):
        counts = collections.Counter(_phase(state, step) for state, step in self.phases.values())
        return ', '.join('%d %s' % (count, phase) for phase, count in sorted(counts.items()))


class ProgressAction(CollectorPausedPayload):
    """Runs the module of the same name and shows its progress lines as they come (its payload built with the
    garbage collector paused: plugin_utils/_module_action.py)."""

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
        view = ProgressView(self._task.get_name(), display.verbosity, display.display, heartbeat_interval(),
                            check_mode=bool(self._task.check_mode))
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
        view.finish(outcome['result'], time.monotonic() - started)
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
