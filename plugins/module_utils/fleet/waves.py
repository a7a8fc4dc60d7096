# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Waves: change a live fleet a few nodes at a time, and go on only while the nodes already changed are healthy.

With wave_size, a many-node task first plans every node without writing (as in check mode), so that it knows
which nodes need a change. Those, in the order the task gives its nodes, are split into waves; nodes that need no
change are in none and are never waited on. A wave runs as the whole task would without waves (concurrency is the
inner limit); then every node of the wave is read again and must pass HEALTH_CHECKS. A node that failed, or came
back unhealthy, counts against max_fail_percentage, taken over the nodes the task changes; once more than that
failed, no further wave starts and the nodes left are reported with started: false. A rerun plans again: the
nodes already done need no change, so it carries on with the rest.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import summarize_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.progress import task_progress
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import fail, hold, mark, node_label
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import Wait
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.outcome import over_budget


def wave_length(wave_size, changing):
    """How many nodes one wave holds: wave_size nodes, or that percentage of the changing nodes (as Ansible's
    serial counts one: rounded down, at least one). wave_size was checked by validate.wave_size_errors."""
    text = str(wave_size).strip()
    if text.endswith('%'):
        return max(1, int(float(text[:-1]) * changing / 100.0))
    return int(text)


def _moving(node, declared):
    target = node.get('target_provision_state') or node.get('target_power_state')
    return "it is still moving (to '%s')" % target if target else None


def _maintenance(node, declared):
    if node.get('maintenance') and not declared.get('maintenance'):
        return 'it is in maintenance (reason: %s)' % (masked_text(node.get('maintenance_reason')) or 'none given')
    return None


def _fault(node, declared):
    fault = node.get('fault')
    return "Ironic reports the fault '%s' (%s)" % (fault, states.FAULTS.get(fault, 'see last_error')) if fault else None


def _power(node, declared):
    # An unknown power (null: never read, as with fake hardware) is not held against a node: one Ironic cannot
    # read gets a 'power failure' fault.
    expected = declared.get('power_state') or states.RESTING_POWER.get(node.get('provision_state'))
    if expected and node.get('power_state') not in (expected, None):
        return "its power is '%s', not '%s'" % (node.get('power_state'), expected)
    return None


def _health(node, declared):
    health = node.get('health')  # absent before API 1.109
    return "Ironic reports its health as '%s'" % health if health in states.UNHEALTHY else None


# What a node must show before the next wave starts, one check each: a reason it is not healthy, or None.
# declared holds what the task itself set (maintenance, power_state), which is then not held against the node.
HEALTH_CHECKS = (_moving, _maintenance, _fault, _power, _health)


def health_problems(node, declared=None):
    """Why a node the task changed is not healthy: [] when it is."""
    return [reason for reason in (check(node, declared or {}) for check in HEALTH_CHECKS) if reason]


def check_health(read_nodes, results, declared, number):
    """Read every node of a finished wave again; a node that did not fail but is not healthy gets an error."""
    passed = [(result, wanted) for result, wanted in zip(results, declared) if not result.get('error') and result.get('node')]
    found = read_nodes([result['node']['uuid'] for result, _wanted in passed])
    for result, wanted in passed:
        node = found.get(result['node']['uuid'])
        if node is None:
            fail(result, 'node %s was deleted while its wave (%d) ran.' % (node_label(result['node']), number))
            continue
        result['node'] = summarize_node(node)
        problems = health_problems(node, wanted)
        if problems:
            fail(result, 'node %s came back from wave %d unhealthy: %s. No further wave starts while the failures are '
                 'over max_fail_percentage; fix the node and run the task again.'
                 % (node_label(result['node']), number, '; '.join(problems)))


def split_waves(changing, size, group_of=None):
    """The waves of the changing item indexes, size each at most: in the order of the task, or, with group_of
    (an index's group: a conductor group, a rack), group after group in the order each first appears, a wave never
    holding two groups."""
    groups = {}
    order = []
    for index in changing:
        key = group_of(index) if group_of else None
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(index)
    return [groups[key][start:start + size] for key in order for start in range(0, len(groups[key]), size)]


def run_in_waves(read_nodes, items, run_batch, wave_size, wave_pause=0, max_fail_percentage=0, check_mode=False,
                 declared=None, progress=None, sleep=time.sleep, group_of=None, stop=None):
    """The results of items, aligned with them, the nodes that need a change run wave after wave.

    run_batch(items, check_mode) runs some items as the task would without waves, reading their nodes afresh,
    and returns their results in order (each with changed, error and node); read_nodes(uuids) reads nodes again
    ({uuid: node}, a deleted one left out) for the health checks. declared(item) says what the task
    declares of the item's node that the health checks would otherwise count against it. Returns (results,
    waves): every result has wave (its number, or None for a node that needs no change) and started; waves lists
    the indexes of the items of each wave. group_of(item) groups the waves (split_waves); stop() says why no
    further wave may start (the end of a maintenance window), or None: each node of a wave it holds back gets
    held_by, that reason.
    """
    planned = run_batch(items, True)
    changing = [index for index, result in enumerate(planned) if result.get('changed') and not result.get('error')]
    size = wave_length(wave_size, len(changing))
    waves = split_waves(changing, size, (lambda index: group_of(items[index])) if group_of else None)
    wave_of = dict((index, number) for number, wave in enumerate(waves, 1) for index in wave)
    results = [mark(dict(result), wave_of.get(index), False) for index, result in enumerate(planned)]
    if check_mode or not waves:
        return results, waves
    progress = progress or task_progress()
    failed = sum(1 for result in planned if result.get('error'))
    budget = len(changing) + failed
    pause = Wait(initial=wave_pause, factor=1, cap=wave_pause, sleep=sleep)
    for number, wave in enumerate(waves, 1):
        stopped = stop() if stop else None
        if stopped or over_budget(failed, budget, max_fail_percentage):
            for index in (index for later in waves[number - 1:] for index in later):
                hold(results[index])
                if stopped:
                    results[index]['held_by'] = stopped
            break
        if number > 1 and wave_pause:
            pause.pause()
        members = [node_label(results[index].get('node'), str(index)) for index in wave]
        progress.wave(number, len(waves), members, 0, failed)
        try:
            batch = run_batch([items[index] for index in wave], False)
        except BaremetalError as exc:  # refused as a whole, before any write (a node deleted since the plan)
            batch = [fail(dict(results[index]), str(exc), changed=False) for index in wave]
        check_health(read_nodes, batch, [declared(items[index]) if declared else {} for index in wave], number)
        for index, result in zip(wave, batch):
            results[index] = mark(dict(result), number, True)
        failed += sum(1 for result in batch if result.get('error'))
        progress.wave(number, len(waves), members, len(wave), failed)
    return results, waves
