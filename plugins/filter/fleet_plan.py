# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The filters fleet_plan, fleet_moves, fleet_waves and fleet_summary: what each task of the role
baremetal.lifecycle.fleet sends, the nodes its provision task moves, the waves of a rollout with the fleet's own
check, and the table it prints.

Both work in Python on plain data. Templating a fleet of thousands of nodes through Jinja pipelines costs the
controller milliseconds per node and per pass, and more than linearly in the fleet size; here the fleet is walked
once (or parsed from the file's text without Ansible's per-value origin tags), then split with dictionaries.
Documented in fleet_plan.yml, fleet_moves.yml, fleet_waves.yml and fleet_summary.yml next to this file.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
from collections.abc import Mapping

import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.baremetal.lifecycle.plugins.filter.fleet_errors import fleet_errors
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import PlanError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import Options
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.provision import plan_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import step_word
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.bifrost import from_bifrost
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.slices import sliceable, slice_nodes
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.waves import wave_length
from ansible_collections.baremetal.lifecycle.plugins.plugin_utils._compat import VAULT_TYPE, decrypted, vault_value, with_vault

# Fields of a fleet node that are not passed to baremetal_node: the role applies them with its other tasks.
MAINTENANCE_FIELDS = ('maintenance', 'maintenance_reason')
PROVISION_FIELDS = ('provision_state',)
HARDWARE_FIELDS = ('bios_settings', 'raid', 'firmware')
FORMATS = ('fleet', 'bifrost')
# What the summary shows for what the role did not reach, because a task before it failed.
NOT_REACHED = 'not reached'
ROLE_FIELDS = frozenset(MAINTENANCE_FIELDS + PROVISION_FIELDS + HARDWARE_FIELDS)

_Loader = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)


class _FleetLoader(_Loader):
    """YAML's safe loader (libyaml's when there), plus the tags of Ansible's variable files a fleet file may use."""


def _construct_vault(loader, node):
    # Decrypted with the play's vault secrets, as Ansible decrypts an inline !vault value of a variable file.
    return decrypted(vault_value(loader.construct_scalar(node)))


_FleetLoader.add_constructor('!vault', _construct_vault)
_FleetLoader.add_constructor('!unsafe', lambda loader, node: loader.construct_scalar(node))


def _plain(value):
    """value as plain Python data: no lazy container, no tagged string, inline vault values decrypted."""
    if isinstance(value, Mapping):
        return dict((_plain(key), _plain(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, VAULT_TYPE):
        return decrypted(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return value


_NOT_JSON = object()


def _refuse_constant(constant):
    raise ValueError('%s is not JSON' % constant)


def _read(fleet):
    if not isinstance(fleet, str):
        return _plain(fleet)
    # libyaml reads only exact strings; before ansible-core 2.19 a file's text comes as an unsafe str subclass.
    text = str.__str__(fleet)
    nodes = _read_json(text)
    if nodes is _NOT_JSON:
        nodes = _read_yaml(text)
    return [] if nodes is None else nodes


def _read_json(text):
    """The value of a fleet file written as JSON (which YAML includes; generated ones often are), else _NOT_JSON.
    Python's JSON parser reads it a hundred times faster than libyaml: 0.13 s less for 1,000 nodes."""
    try:
        return json.loads(text, parse_constant=_refuse_constant)  # NaN and Infinity are Python's, not JSON
    except ValueError:
        return _NOT_JSON


def _read_yaml(text):
    try:
        return yaml.load(text, Loader=_FleetLoader)
    except yaml.YAMLError as exc:
        # The place and the problem, never the text around it: the line may hold a password.
        mark = getattr(exc, 'problem_mark', None)
        raise AnsibleFilterError('baremetal.lifecycle.fleet_plan: the fleet file is not valid YAML%s: %s. Fix it '
                                 'there.' % (' at line %d, column %d' % (mark.line + 1, mark.column + 1) if mark else '',
                                             getattr(exc, 'problem', None) or exc))


def fleet_plan(fleet, schema, settings=None, provision_state='available', fleet_format='fleet', slices=None,
               slice_name='', slice_key='conductor_group'):
    """The node lists of the role's tasks, or the errors of the fleet description (then every list is empty).

    fleet is the list of nodes, or the text of a YAML file holding it; with fleet_format bifrost, a Bifrost inventory
    (a mapping of node name to node) or its text, mapped to the list first. provision_state is the state of the
    nodes that declare none. With slices ({slice name: [conductor groups or shards]}) and slice_name, only the nodes
    of that slice are planned (module_utils/fleet/slices.py), once every node is found in exactly one slice.
    """
    nodes = _read(fleet)
    plan = {'errors': [], 'records': [], 'maintenance': [], 'provision': [], 'hardware': []}
    if fleet_format not in FORMATS:
        raise AnsibleFilterError('baremetal.lifecycle.fleet_plan: fleet_format must be one of %s, got %r.'
                                 % (', '.join(FORMATS), fleet_format))
    if fleet_format == 'bifrost':
        nodes, error = from_bifrost(nodes)
        if error:
            plan['errors'].append(error)
            return plan
    if slices or slice_name:
        if not sliceable(nodes):
            # Slicing reads each node's name and group: an entry that is no named node is named by the validation.
            plan['errors'] = fleet_errors(nodes, _plain(schema), settings) or [
                'fleet: every entry must be a node with a name to be sliced by fleet_slices.']
            return plan
        # Every node in exactly one slice is checked over the whole file; the rest only over this slice's nodes, so
        # that a mistake in another slice's nodes fails that slice alone.
        nodes, plan['errors'] = slice_nodes(nodes, _plain(slices) or {}, _plain(slice_name) or '', _plain(slice_key))
        if plan['errors']:
            return plan
    # The validator reads the schema at every node: an Ansible container (from_json's) costs 1 s at 1,000 nodes.
    plan['errors'] = fleet_errors(nodes, _plain(schema), settings)
    if plan['errors']:
        return plan
    for node in nodes:
        name = node['name']
        plan['records'].append(dict((key, value) for key, value in node.items() if key not in ROLE_FIELDS))
        held = node.get('maintenance') is True
        if 'maintenance' in node:
            plan['maintenance'].append({'node': name, 'maintenance': held, 'reason': node.get('maintenance_reason')})
        if held:
            continue  # Ironic does not move a node in maintenance, nor configure its hardware.
        plan['provision'].append({'node': name, 'state': node.get('provision_state', provision_state)})
        hardware = dict((key, node[key]) for key in HARDWARE_FIELDS if key in node)
        if hardware:
            plan['hardware'].append(dict(hardware, node=name))
    return plan


def _has_steps(node, state):
    """Whether the provision task would send anything for this node (planned as it plans, with its defaults).

    Planned for the newest Ironic: a node that needs no step there needs none on any release. A node that cannot
    be planned with the defaults (a destructive step) is left to the task, which plans it with the role's options.
    """
    try:
        return bool(plan_node(node, state, Options()))
    except PlanError:
        return True


def fleet_moves(plan, records):
    """The plan's provision entries of the nodes that are not where they are declared, judged from the records
    task's result (records: the registered result of baremetal_node). A node that result has no record of (one
    that check mode would enroll) is left out: it can be neither moved nor planned."""
    nodes = dict((entry['name'], entry.get('node')) for entry in (records or {}).get('nodes') or [])
    return [entry for entry in plan['provision']
            if nodes.get(entry['node']) is not None and _has_steps(nodes[entry['node']], entry['state'])]


def _planned_names(result):
    """The nodes a check-mode result of a task would change, or could not plan."""
    return set(entry['node']['name'] for entry in (result or {}).get('nodes') or []
               if entry.get('node') and (entry.get('changed') or entry.get('error')))


def fleet_waves(plan, provision, hardware, wave_size):
    """The waves of a rollout the role checks after each wave: the nodes its provision or hardware task would
    change (their check-mode results), in the fleet's order, wave_size at a time (a number, or a percentage of
    those nodes; empty for one wave). Returns {'changing': how many nodes, 'waves': [{'nodes': names, 'provision':
    the plan's provision entries of those nodes, 'hardware': their hardware entries}]}.
    """
    changing = _planned_names(provision) | _planned_names(hardware)
    order = [record['name'] for record in plan['records'] if record['name'] in changing]
    size = wave_length(wave_size or '100%', len(order)) if order else 1
    provision_of = dict((entry['node'], entry) for entry in plan['provision'])
    hardware_of = dict((entry['node'], entry) for entry in plan['hardware'])
    waves = []
    for start in range(0, len(order), size):
        names = order[start:start + size]
        waves.append({'nodes': names, 'provision': [provision_of[name] for name in names if name in provision_of],
                      'hardware': [hardware_of[name] for name in names if name in hardware_of]})
    return {'changing': len(order), 'waves': waves}


def _rollout(preview, rollout):
    """One provision result of a rollout in waves: the entries of the waves that ran over the plan's, and a plan
    entry whose wave never ran marked started: false; the totals of the waves added up."""
    entries = dict((entry['node']['name'], entry) for entry in (preview or {}).get('nodes') or [] if entry.get('node'))
    changing = _planned_names(preview)
    totals = {'changed': 0, 'failed': 0, 'seconds': 0.0, 'api_calls': 0}
    for result in rollout:
        for entry in result.get('nodes') or []:
            if entry.get('node'):
                entries[entry['node']['name']] = entry
                changing.discard(entry['node']['name'])
        for key in totals:
            totals[key] += (result.get('totals') or {}).get(key, 0)
    for name in changing:
        entries[name] = dict(entries[name], started=False)
    return {'nodes': list(entries.values()), 'totals': dict(totals, seconds=round(totals['seconds'], 3))}


def _results(result):
    """A registered result, or the registered results of a task run once per wave, as a list."""
    if result is None:
        return []
    return [item for item in result if item] if isinstance(result, list) else [result]


def _by_node(result, name_of):
    entries = {}
    for item in _results(result):
        for entry in item.get('nodes') or []:
            name = name_of(entry)
            if name is not None:
                entries[name] = entry
    return entries


def _node_name(entry):
    return (entry.get('node') or {}).get('name')


def _failed(result):
    """Whether a task of the role failed (one run of it, for a task run once per wave)."""
    return any(item.get('failed') for item in _results(result))


def _task_message(result):
    """The message of a task that failed without a node's error to show why (it stopped before any node), else
    None. The modules mask their messages."""
    for item in _results(result):
        if item.get('failed') and not any(entry.get('error') for entry in item.get('nodes') or []):
            return item.get('msg') or 'failed'
    return None


def _record_text(entry, absent, check, stopped):
    if entry.get('error'):
        return 'failed'
    if entry['name'] in absent:
        return 'would enroll'
    if entry.get('created'):
        return 'enrolled'
    if entry.get('changed'):
        return 'would update' if check else 'updated'
    if stopped and 'changed' not in entry:
        return NOT_REACHED  # the records task failed before it returned any node
    return 'ok'


def _maintenance_text(declared, entry, check, stopped):
    if declared is None:
        return '-'
    if declared['maintenance']:
        text = 'on' + (': %s' % declared['reason'] if declared['reason'] is not None else '')
    else:
        text = 'off'
    if entry is not None and entry.get('error'):
        text += ' (failed)'
    elif entry is not None and entry.get('changed'):
        text += ' (would change)' if check else ' (changed)'
    elif entry is None and stopped:
        text += ' (%s)' % NOT_REACHED
    return text


def _hardware_text(name, declared, entry, check, absent, reached):
    if not declared:
        return '-'
    if entry is None:
        return 'after enrolling' if name in absent else 'ok' if reached else NOT_REACHED
    if entry.get('error'):
        return 'failed'
    if entry.get('started') is False:
        return 'not started'
    if entry.get('changed'):
        return 'would configure' if check else 'configured'
    return 'ok'


def _is_only_planned(entry):
    return (bool(entry.get('plan')) and not entry.get('transitions') and entry.get('error') is None
            and entry.get('started') is not False)


def _rests_as_declared(name, node, wanted, moved):
    """Whether the node needs no step to be in its declared state: it is not among the nodes fleet_moves gave the
    provision task (moved, their names), or, without those, planned so (as fleet_moves plans it)."""
    return name not in moved if moved is not None else not _has_steps(node, wanted)


def _provision_texts(name, entry, declared_maintenance, wanted, absent, record, moved, stopped):
    """(state, steps, error) of a node's row; stopped: whether the role stopped before its provision task."""
    if entry is None:
        if declared_maintenance is not None and declared_maintenance['maintenance']:
            return 'held: in maintenance', '', ''
        if name in absent:
            return 'enroll -> %s (after enrolling)' % wanted, '', ''
        if wanted is not None and record.get('node') and _rests_as_declared(name, record['node'], wanted, moved):
            return record['node']['provision_state'], '', ''  # where it is declared: the provision task left it
        return NOT_REACHED if stopped else 'not converged', '', ''
    if entry.get('started') is False:
        return entry['node']['provision_state'], '', 'not started: no wave starts once the failures are over the budget'
    only_planned = _is_only_planned(entry)
    plan = entry.get('plan') or []
    start = plan[0]['from'] if plan else entry['node']['provision_state']
    end = plan[-1]['to'] if only_planned else entry['node']['provision_state']
    steps = plan if only_planned else entry.get('transitions') or []
    return (start if start == end else '%s -> %s' % (start, end), ', '.join(step_word(step['verb']) for step in steps),
            entry.get('error') or '')


def _errors(record, maintenance, provision_error, hardware):
    """The ERROR cell: each failed task's error, the provision task's without a prefix."""
    errors = []
    if record.get('error'):
        errors.append('record: %s' % record['error'])
    if maintenance is not None and maintenance.get('error'):
        errors.append('maintenance: %s' % maintenance['error'])
    if provision_error:
        errors.append(provision_error)
    if hardware is not None and hardware.get('error'):
        errors.append('hardware: %s' % hardware['error'])
    return ' | '.join(errors)


def fleet_summary(plan, records, maintenance=None, provision=None, check_mode=False, rollout=None, moves=None,
                  hardware=None, allocations=None, hardware_rollout=None):
    """The role's table, one line per node, then a line of totals, then a line per task that failed before any
    node (with its message).

    plan is what fleet_plan returned; records, maintenance and provision are the registered results of the role's
    baremetal_node, baremetal_maintenance and baremetal_provision_state tasks (skipped, failed or missing ones are
    fine: the table shows where the role stopped, and the nodes it did not reach). With rollout (the provision
    results of the waves of a rollout, in order), provision is its check-mode plan. moves is what fleet_moves
    returned for the provision task: a node left out of it rests where it is declared, without planning it again.
    hardware is the registered result of the baremetal_hardware task (with hardware_rollout, the results of the
    waves of a rollout, its check-mode plan); allocations that of the baremetal_allocation task.
    """
    if rollout is not None and not check_mode:
        provision = _rollout(provision, rollout)
    if hardware_rollout is not None and not check_mode:
        hardware = _rollout(hardware, hardware_rollout)
    # Where the role stopped: the tasks after the first that failed never ran.
    stages = [('records', records), ('maintenance', maintenance), ('provision', provision), ('hardware', hardware)]
    failed_at = next((index for index, (_stage, result) in enumerate(stages) if _failed(result)), len(stages))
    # The results are only read, a few keys per node: a deep copy of every returned record would cost more.
    record_entries = _by_node(records, lambda entry: entry.get('name'))
    maintenance_entries = _by_node(maintenance, _node_name)
    provision_entries = _by_node(provision, _node_name)
    hardware_entries = _by_node(hardware, _node_name)
    declared_maintenance = dict((entry['node'], entry) for entry in plan['maintenance'])
    declared_hardware = set(entry['node'] for entry in plan['hardware'])
    wanted = dict((entry['node'], entry['state']) for entry in plan['provision'])
    moved = None if moves is None else set(entry['node'] for entry in moves)
    # A node that would be enrolled in check mode has no record: it can be neither held nor moved.
    absent = set(name for name, entry in record_entries.items() if entry.get('node') is None and not entry.get('error'))
    planned = sum(1 for entry in provision_entries.values() if _is_only_planned(entry))
    check = bool(check_mode or absent or planned)
    # The hardware task ran (it returned, or failed) when the role went past the provision task.
    hardware_reached = failed_at >= 3 and bool(_results(hardware)) and not all(
        item.get('skipped') for item in _results(hardware))
    header = ('NODE', 'RECORD', 'MAINTENANCE', 'PROVISION STATE', 'STEPS')
    header += ('HARDWARE',) if declared_hardware else ()
    rows, failed, not_reached = [header + ('ERROR',)], 0, 0
    for record in plan['records']:
        name = record['name']
        entry = record_entries.get(name, {'name': name})
        state, steps, provision_error = _provision_texts(
            name, provision_entries.get(name), declared_maintenance.get(name), wanted.get(name), absent, entry, moved,
            failed_at < 2)
        cells = (name, _record_text(entry, absent, check, failed_at == 0),
                 _maintenance_text(declared_maintenance.get(name), maintenance_entries.get(name), check, failed_at < 1),
                 state, steps)
        if declared_hardware:
            cells += (_hardware_text(name, name in declared_hardware, hardware_entries.get(name), check, absent,
                                     hardware_reached),)
        error = _errors(entry, maintenance_entries.get(name), provision_error if (provision_entries.get(name) or {})
                        .get('error') else '', hardware_entries.get(name))
        failed += bool(error)
        not_reached += any(NOT_REACHED in cell for cell in cells)
        # A node not started in a rollout says why in its ERROR cell, without counting as failed.
        rows.append(cells + (error or provision_error,))
    widths = [max(len(row[column]) for row in rows) + 2 for column in range(len(header))]
    lines = [(''.join(cell.ljust(width) for cell, width in zip(row, widths)) + row[-1]).rstrip() for row in rows]
    totals = dict(_results(provision)[0].get('totals') or {}) if _results(provision) else {}
    enrolled = sum(1 for entry in record_entries.values() if entry.get('created'))
    updated = sum(1 for entry in record_entries.values() if entry.get('changed') and not entry.get('created'))
    moving = planned if check else totals.get('changed', 0)
    line = '%s%d nodes: %d %s, %d %s, %d %s, %d failed' % (
        'Check mode, nothing changed. ' if check else '', len(plan['records']),
        enrolled, 'to enroll' if check else 'enrolled', updated, 'to update' if check else 'updated',
        moving, 'to move' if check else 'moved', failed)
    if not_reached:
        line += ', %d not reached' % not_reached
    held = sum(1 for entry in provision_entries.values() if entry.get('started') is False)
    if held:
        line += ', %d not started' % held
    if totals:
        line += '; provision task %s s, %s API calls' % (totals['seconds'], totals['api_calls'])
    stops = ['The %s task failed: %s' % (stage, _task_message(result))
             for stage, result in stages + [('allocations', allocations)] if _task_message(result)]
    return lines + [line] + stops


class FilterModule(object):

    def filters(self):
        return {'fleet_plan': with_vault(fleet_plan), 'fleet_moves': fleet_moves, 'fleet_summary': fleet_summary,
                'fleet_waves': fleet_waves}
