# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stages after a node's record (node/converge.py): maintenance cleared for a move, the move to the declared
provision_state, power, and maintenance set again, each for every node before the next stage starts (run for the
nodes that declare one of them).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.parallel import run_each
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.lookup import find_nodes
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.diff import DifferenceTracker
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import fail
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.states import POWER_ACTIONS
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import graph
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.provision import Goal, plan_node, provision_results
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.scheduler import converge
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.maintenance import ensure_maintenance
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.power import ensure_power
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import task_progress


def out_of_maintenance(node):
    """The node as Ironic leaves it once its maintenance is cleared, which clears its fault too."""
    return dict(node, maintenance=False, maintenance_reason=None, fault=None)


def move_needed(node, declaration):
    """Whether the node must move to rest in its declared provision_state: it is moving, or at rest with a plan as
    planned out of maintenance. Raises PlanError when no acceptable plan reaches it."""
    if not graph.is_at_rest(node['provision_state'], node.get('target_provision_state')):
        return True
    return bool(plan_node(out_of_maintenance(node), declaration.states['provision_state'], declaration.options))


def clears_maintenance(node, declaration):
    """Whether stage 2 clears the node's maintenance before the move: it is declared off, or declared on while the
    node must move. Maintenance the task does not declare is left alone (a move then fails, naming it)."""
    wanted = declaration.states['maintenance']
    if not node.get('maintenance') or wanted is None:
        return False
    return not wanted or (declaration.states['provision_state'] is not None and move_needed(node, declaration))


class Course(object):
    """One node on its way through the stages after its record: the node as read after the record, as last seen
    (in check mode, as the stages would leave it), and what the stages did."""

    def __init__(self, declaration, result, node):
        self.declaration = declaration
        self.states = declaration.states
        self.result = result
        self.before = node
        self.node = node
        self.cleared = False  # stage 2 cleared maintenance the task declares on, for the move
        self.maintenance_changed = False
        self.maintenance_set = False  # a maintenance stage ran
        # (maintenance, reason masked) as the last maintenance stage left it (in check mode, would leave it)
        self.maintenance = (bool(node.get('maintenance')), masked_text(node.get('maintenance_reason')))

    @property
    def failed(self):
        return bool(self.result['error'])

    def fail(self, message):
        """Record a failure; one after another (maintenance set again after a failed move) is added to it."""
        error = self.result['error']
        fail(self.result, '%s | then: %s' % (error, message) if error else message)


def _guarded(stage):
    """A stage for run_each that records a node's failure on its course."""
    def run(course):
        try:
            stage(course)
        except BaremetalError as exc:
            course.fail(str(exc))
    return run


def _maintenance_stage(client, check_mode, timeout, wanted, reason_of):

    def stage(course):
        outcome = ensure_maintenance(client, course.node, wanted, reason_of(course), check_mode, timeout)
        course.maintenance_changed = course.maintenance_changed or outcome['changed']
        course.maintenance_set = True
        course.maintenance = (outcome['maintenance'], outcome['maintenance_reason'])
        if not check_mode:
            course.node = outcome['node']
    return stage


def _restored_reason(course):
    """The reason stage 5 sets: the declared one, or the one stage 2 cleared for the move (None keeps the node's)."""
    if course.states['maintenance_reason'] is not None:
        return course.states['maintenance_reason']
    return course.before.get('maintenance_reason') if course.cleared else None


def _clear_stage(client, check_mode, timeout):
    clear = _maintenance_stage(client, check_mode, timeout, False, lambda course: None)

    def stage(course):
        if clears_maintenance(course.node, course.declaration):
            clear(course)
            course.cleared = bool(course.states['maintenance'])
            course.node = out_of_maintenance(course.node)
    return stage


def _power_stage(client, check_mode, timeout, progress):

    def stage(course):
        declared = course.states['power']
        try:
            outcome = ensure_power(client, course.node, declared, timeout, check_mode, progress)
        except BaremetalError as exc:
            course.result['power'] = {'power_state': (exc.result.get('node') or course.node).get('power_state'),
                                      'changed': bool(exc.result.get('changed'))}
            raise
        course.result['power'] = {'changed': outcome['changed'],
                                  'power_state': POWER_ACTIONS[declared][1] if check_mode else outcome['node']['power_state']}
        course.result['diff'].append(outcome['diff'])
        if not check_mode:
            course.node = outcome['node']
    return stage


def _provision_stage(client, courses, check_mode, timeout, concurrency):
    """Stage 3: every node that declares a provision_state moves at once, at most concurrency of them moving."""
    goals = [Goal(course.node['uuid'], course.states['provision_state'], course.declaration.options)
             for course in courses]
    found = dict((course.node['uuid'], course.node) for course in courses)
    converged = converge(client, goals, check_mode=check_mode, timeout=timeout, concurrency=concurrency, found=found)
    outcomes = provision_results(client, goals, converged, check_mode)
    for course, outcome in zip(courses, outcomes):
        part = {'plan': outcome['plan'], 'transitions': outcome['transitions'], 'changed': outcome['changed']}
        if 'inspection' in outcome:
            part['inspection'] = outcome['inspection']
        course.result['provision'] = part
        course.result['diff'].append(outcome['diff'])
        if outcome['node'] is not None and not check_mode:
            course.node = outcome['node']
        if outcome['error']:
            course.fail(outcome['error'])


def _finish(course, check_mode):
    """The node's result once every stage ran: its parts, the node after the task, changed and one diff."""
    result = course.result
    # A node that failed before its maintenance stages has no maintenance part, unless one ran (set again after the move).
    if course.states['maintenance'] is not None and (course.maintenance_set or not course.failed):
        after, reason = course.maintenance
        result['maintenance'] = {'maintenance': after, 'maintenance_reason': reason,
                                 'changed': course.maintenance_changed, 'cleared_for_move': course.cleared}
        result['diff'].append(DifferenceTracker()
                              .add('maintenance', bool(course.before.get('maintenance')), after)
                              .add('maintenance_reason', masked_text(course.before.get('maintenance_reason')), reason)
                              .diff())
    if not check_mode:
        result['node'] = dict(result['node'], **summarize_node(course.node))
    result['changed'] = bool(result['changed'] or course.maintenance_changed
                             or any((result.get(part) or {}).get('changed') for part in ('provision', 'power')))


def merged_diff(diffs, created=False):
    """One diff of a node from the diffs of its stages, in order (a later stage's item wins). A node the task created
    had nothing before it: its before stays empty, not the enroll and maintenance its record started with."""
    merged = {'before': {}, 'after': {}}
    for diff in diffs:
        if not created:
            merged['before'].update(diff['before'])
        merged['after'].update(diff['after'])
    return merged


def run_stages(client, stated, check_mode, timeout, concurrency):
    """Stages 2 to 5 (node/converge.py) for the nodes of (declaration, result) pairs that declare any of them and
    exist; each node's result gets its parts and one diff."""
    found, _missing = find_nodes(client, [result['node']['uuid'] for _declaration, result in stated], client.poll_fields)
    courses = []
    for declaration, result in stated:
        node = found.get(result['node']['uuid'])
        if node is None:
            fail(result, 'node %s was deleted while the task ran.' % declaration.name)
            continue
        result['diff'] = [result['diff']]
        courses.append(Course(declaration, result, node))

    def each(stage, selected):
        run_each(selected, _guarded(stage), concurrency)

    each(_clear_stage(client, check_mode, timeout), courses)
    moving = [course for course in courses if not course.failed and course.states['provision_state'] is not None]
    if moving:
        _provision_stage(client, moving, check_mode, timeout, concurrency)
    progress = task_progress()
    each(_power_stage(client, check_mode, timeout, progress),
         [course for course in courses if not course.failed and course.states['power'] is not None])
    each(_maintenance_stage(client, check_mode, timeout, True, _restored_reason),
         [course for course in courses if (course.states['maintenance'] and not course.failed) or course.cleared])
    for course in courses:
        _finish(course, check_mode)
        course.result['diff'] = merged_diff(course.result['diff'], created=course.result.get('created'))
