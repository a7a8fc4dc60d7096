# -*- coding: utf-8 -*-
"""The filters fleet_plan and fleet_summary: the node lists of the fleet role's tasks, from a list or a file's
text, and its summary table."""

import json
import os
import re

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.baremetal.lifecycle.plugins.filter.fleet_plan import (
    ROLE_FIELDS, fleet_moves, fleet_plan, fleet_summary)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
with open(os.path.join(ROOT, 'roles', 'fleet', 'files', 'fleet.schema.json')) as _handle:
    SCHEMA = json.load(_handle)

FLEET = [
    {'name': 'plain', 'driver': 'fake-hardware', 'ports': [{'address': '52:54:00:00:00:01'}]},
    {'name': 'active', 'driver': 'fake-hardware', 'provision_state': 'active', 'maintenance': False},
    {'name': 'held', 'driver': 'fake-hardware', 'maintenance': True, 'maintenance_reason': 'fan',
     'bios_settings': {'LogicalProc': 'Disabled'}},
    {'name': 'tuned', 'driver': 'fake-hardware', 'raid': {},
     'firmware': [{'component': 'bmc', 'version': '1.2', 'url': 'http://127.0.0.1:8080/bmc.bin'}]},
]
FLEET_YAML = '''
- name: plain
  driver: fake-hardware
  ports:
    - address: "52:54:00:00:00:01"
- {name: active, driver: fake-hardware, provision_state: active, maintenance: no}
- name: held
  driver: fake-hardware
  maintenance: yes
  maintenance_reason: fan
  bios_settings: {LogicalProc: Disabled}
- name: tuned
  driver: fake-hardware
  raid: {}
  firmware:
    - {component: bmc, version: "1.2", url: "http://127.0.0.1:8080/bmc.bin"}
'''


@pytest.mark.parametrize('fleet', [FLEET, FLEET_YAML, json.dumps(FLEET, indent=2)],
                         ids=['list', 'yaml text', 'json text'])
def test_each_task_gets_its_own_fields(fleet):
    plan = fleet_plan(fleet, SCHEMA, provision_state='manageable')
    assert plan['errors'] == []
    assert [sorted(record) for record in plan['records']] == [
        ['driver', 'name', 'ports'], ['driver', 'name'], ['driver', 'name'], ['driver', 'name']]
    assert not any(ROLE_FIELDS & set(record) for record in plan['records'])
    assert plan['maintenance'] == [{'node': 'active', 'maintenance': False, 'reason': None},
                                   {'node': 'held', 'maintenance': True, 'reason': 'fan'}]
    # A node held in maintenance is neither moved nor configured.
    assert plan['provision'] == [{'node': 'plain', 'state': 'manageable'}, {'node': 'active', 'state': 'active'},
                                 {'node': 'tuned', 'state': 'manageable'}]
    assert plan['hardware'] == [{'node': 'tuned', 'raid': {}, 'firmware': FLEET[3]['firmware']}]


def test_an_invalid_fleet_gives_its_errors_and_nothing_to_send():
    plan = fleet_plan([FLEET[0], dict(FLEET[1], drvier='x')], SCHEMA, settings={'fleet_timeout': 0})
    assert plan['errors'] == ['fleet_timeout must be at least 1, got 0.',
                              "fleet[1] (active): drvier: is not a known field (did you mean 'driver'?)"]
    assert plan['records'] == plan['maintenance'] == plan['provision'] == plan['hardware'] == []


def test_a_file_that_is_not_yaml_is_refused_with_the_place_and_without_the_text():
    text = '- name: a\n  driver_info: {ipmi_password: [yaml-secret}\n'
    with pytest.raises(AnsibleFilterError, match='the fleet file is not valid YAML at line 2') as raised:
        fleet_plan(text, SCHEMA)
    assert 'yaml-secret' not in str(raised.value)


def test_a_file_that_is_json_but_for_a_constant_of_python_is_read_as_yaml():
    # Python's JSON parser takes NaN for a number; YAML, as before, for a string.
    plan = fleet_plan('[{"name": "a", "driver": "fake-hardware", "description": NaN}]', SCHEMA)
    assert plan['records'] == [{'name': 'a', 'driver': 'fake-hardware', 'description': 'NaN'}]


def test_an_empty_file_and_a_file_that_is_not_a_list():
    assert fleet_plan('', SCHEMA)['records'] == []
    assert fleet_plan('name: a', SCHEMA)['errors'] == ['fleet: must be a list, got a dictionary']


def test_an_unsafe_value_of_the_file_is_a_plain_string():
    plan = fleet_plan("- {name: a, driver: fake-hardware, description: !unsafe '{{ lookup(\"pipe\", \"id\") }}'}",
                      SCHEMA)
    assert plan['records'][0]['description'] == '{{ lookup("pipe", "id") }}'
    assert type(plan['records'][0]['description']) is str  # pylint: disable=unidiomatic-typecheck


def node(name, state='available', maintenance=False):
    return {'name': name, 'provision_state': state, 'maintenance': maintenance}


def provision_entry(name, state, transitions=(), plan=(), error=None):
    return {'node': node(name, state), 'transitions': list(transitions), 'plan': list(plan), 'error': error,
            'changed': bool(transitions)}


def step(start, verb, end):
    return {'from': start, 'verb': verb, 'to': end}


def table(lines):
    """The summary's rows as lists of cells (two spaces or more between cells), and its last line."""
    return [re.split(r'\s{2,}', line) for line in lines[:-1]], lines[-1]


def test_a_node_declares_its_power_for_the_records_task_as_a_state_never_an_action():
    plan = fleet_plan([dict(FLEET[0], power='powered_off')], SCHEMA)
    assert plan['errors'] == [] and plan['records'][0]['power'] == 'powered_off'
    errors = fleet_plan([dict(FLEET[0], power='rebooted')], SCHEMA)['errors']
    assert len(errors) == 1 and errors[0].startswith('fleet[0] (plain): power: must be one of powered_off, '
                                                     'powered_on'), errors


def test_the_summary_shows_every_node_and_what_happened_to_it():
    plan = fleet_plan(FLEET, SCHEMA)
    records = {'changed': True, 'nodes': [
        {'name': 'plain', 'created': True, 'changed': True, 'node': node('plain', 'enroll')},
        {'name': 'active', 'created': False, 'changed': True, 'node': node('active')},
        {'name': 'held', 'created': False, 'changed': False, 'node': node('held', maintenance=True)},
        {'name': 'tuned', 'created': False, 'changed': False, 'node': node('tuned')}]}
    maintenance = {'nodes': [{'node': node('active'), 'changed': False},
                             {'node': node('held', maintenance=True), 'changed': True}]}
    provision = {'nodes': [
        provision_entry('plain', 'available', [step('enroll', 'manage', 'manageable'),
                                               step('manageable', 'provide', 'available')],
                        [step('enroll', 'manage', 'manageable'), step('manageable', 'provide', 'available')]),
        provision_entry('active', 'available', error='deploy failed: no image'),
        provision_entry('tuned', 'available')],
        'totals': {'nodes': 3, 'changed': 1, 'failed': 1, 'seconds': 12.5, 'api_calls': 40}}
    hardware = {'nodes': [{'node': node('tuned'), 'changed': True, 'error': None}]}
    rows, totals = table(fleet_summary(plan, records, maintenance, provision, hardware=hardware))
    assert rows == [['NODE', 'RECORD', 'MAINTENANCE', 'PROVISION STATE', 'STEPS', 'HARDWARE', 'ERROR'],
                    ['plain', 'enrolled', '-', 'enroll -> available', 'manage, provide', '-'],
                    ['active', 'updated', 'off', 'available', '-', 'deploy failed: no image'],
                    ['held', 'ok', 'on: fan (changed)', 'held: in maintenance', '-'],
                    ['tuned', 'ok', '-', 'available', 'configured']]
    assert totals == '4 nodes: 1 enrolled, 1 updated, 1 moved, 1 failed; provision task 12.5 s, 40 API calls'


def test_the_summary_in_check_mode_shows_the_plan_and_the_nodes_to_enroll():
    plan = fleet_plan(FLEET[:2], SCHEMA)
    records = {'changed': True, 'nodes': [{'name': 'plain', 'created': True, 'changed': True, 'node': None},
                                          {'name': 'active', 'created': False, 'changed': False,
                                           'node': node('active', 'manageable')}]}
    provision = {'nodes': [provision_entry('active', 'manageable', plan=[step('manageable', 'provide', 'available'),
                                                                         step('available', 'active', 'active')])],
                 'totals': {'nodes': 1, 'changed': 1, 'failed': 0, 'seconds': 0.1, 'api_calls': 2}}
    skipped = {'skipped': True, 'changed': False}
    rows, totals = table(fleet_summary(plan, records, skipped, provision, check_mode=False))
    assert rows[1:] == [['plain', 'would enroll', '-', 'enroll -> available (after enrolling)'],
                        ['active', 'ok', 'off', 'manageable -> active', 'provide, deploy']]
    assert totals == ('Check mode, nothing changed. 2 nodes: 1 to enroll, 0 to update, 1 to move, 0 failed; '
                      'provision task 0.1 s, 2 API calls')


def test_the_summary_of_a_convergence_that_did_not_run():
    plan = fleet_plan(FLEET[:1], SCHEMA)
    records = {'nodes': [{'name': 'plain', 'created': False, 'changed': False, 'node': node('plain', 'manageable')}]}
    rows, totals = table(fleet_summary(plan, records, None, {}))
    assert rows[1:] == [['plain', 'ok', '-', 'not converged']]
    assert totals == '1 nodes: 0 enrolled, 0 updated, 0 moved, 0 failed'


def test_the_summary_of_a_role_stopped_by_a_node_its_records_task_failed_names_it_and_what_was_not_reached():
    plan = fleet_plan(FLEET, SCHEMA)
    records = {'failed': True, 'msg': '1 of the 4 nodes to change failed: nodes[1] (active): HTTP 409', 'nodes': [
        {'name': 'plain', 'created': True, 'changed': True, 'node': node('plain', 'enroll')},
        {'name': 'active', 'created': False, 'changed': False, 'node': node('active', 'active'),
         'error': 'HTTP 409: can not have resource_class updated'},
        {'name': 'held', 'created': False, 'changed': False, 'node': node('held', maintenance=True)},
        {'name': 'tuned', 'created': False, 'changed': False, 'node': node('tuned', 'manageable')}]}
    # The tasks after it never ran: their results are not defined (the role passes none).
    lines = fleet_summary(plan, records, None, {}, hardware=None)
    rows, totals = table(lines)
    assert rows[1:] == [['plain', 'enrolled', '-', 'not reached', '-'],
                        ['active', 'failed', 'off (not reached)', 'active', '-',
                         'record: HTTP 409: can not have resource_class updated'],
                        ['held', 'ok', 'on: fan (not reached)', 'held: in maintenance', '-'],
                        ['tuned', 'ok', '-', 'not reached', 'not reached']]
    # The task's own message repeats the nodes' errors: no line of its own.
    assert totals == '4 nodes: 1 enrolled, 0 updated, 0 moved, 1 failed, 4 not reached'


def test_a_task_that_failed_before_any_node_is_named_with_its_message_after_the_totals():
    plan = fleet_plan(FLEET[:2], SCHEMA)
    records = {'failed': True, 'msg': 'nodes[1] (active): resource_class: refused in active; undeploy first.'}
    lines = fleet_summary(plan, records, None, {})
    rows, totals = table(lines[:-1])
    assert rows[1:] == [['plain', 'not reached', '-', 'not reached'],
                        ['active', 'not reached', 'off (not reached)', 'not reached']]
    assert totals == '2 nodes: 0 enrolled, 0 updated, 0 moved, 0 failed, 2 not reached'
    assert lines[-1] == ('The records task failed: nodes[1] (active): resource_class: refused in active; '
                         'undeploy first.')


def test_the_summary_names_the_failures_of_the_maintenance_and_hardware_tasks_and_the_allocations():
    plan = fleet_plan(FLEET, SCHEMA)
    records = {'nodes': [{'name': name, 'created': False, 'changed': False, 'node': node(name, 'available')}
                         for name in ('plain', 'active', 'held', 'tuned')]}
    maintenance = {'failed': True, 'nodes': [
        {'node': node('active'), 'changed': False, 'error': 'HTTP 409: node locked'},
        {'node': node('held', maintenance=True), 'changed': False, 'error': None}]}
    rows, totals = table(fleet_summary(plan, records, maintenance, {}, hardware=None))
    assert rows[2] == ['active', 'ok', 'off (failed)', 'not reached', '-', 'maintenance: HTTP 409: node locked']
    assert rows[4] == ['tuned', 'ok', '-', 'available', 'not reached']  # rests as declared: nothing to reach
    assert totals == '4 nodes: 0 enrolled, 0 updated, 0 moved, 1 failed, 2 not reached'

    # The hardware task ran (once per wave of a rollout: a list) and failed on a node.
    hardware = [{'failed': True, 'nodes': [{'node': node('tuned'), 'changed': False, 'error': 'clean failed: RAID'}]}]
    allocations = {'failed': True, 'msg': 'no node matches allocation web-1'}
    lines = fleet_summary(plan, records, {'nodes': []}, {'nodes': []}, hardware=hardware, allocations=allocations)
    rows, totals = table(lines[:-1])
    assert rows[4] == ['tuned', 'ok', '-', 'available', 'failed', 'hardware: clean failed: RAID']
    assert totals == '4 nodes: 0 enrolled, 0 updated, 0 moved, 1 failed'
    assert lines[-1] == 'The allocations task failed: no node matches allocation web-1'


def test_only_the_nodes_not_where_they_are_declared_are_moved_and_the_others_show_where_they_rest():
    plan = fleet_plan(FLEET, SCHEMA)
    records = {'changed': True, 'nodes': [
        {'name': 'plain', 'created': False, 'changed': False, 'node': node('plain')},  # available, as declared
        {'name': 'active', 'created': False, 'changed': False, 'node': node('active', 'clean failed')},
        {'name': 'held', 'created': False, 'changed': False, 'node': node('held', maintenance=True)},
        {'name': 'tuned', 'created': True, 'changed': True, 'node': None}]}  # check mode would enroll it
    assert fleet_moves(plan, records) == [{'node': 'active', 'state': 'active'}]
    skipped = {'skipped': True, 'changed': False}
    rows, _totals = table(fleet_summary(plan, records, skipped, skipped))
    assert rows[1] == ['plain', 'ok', '-', 'available', '-']
    assert rows[2] == ['active', 'ok', 'off', 'not converged', '-']
    assert rows[4] == ['tuned', 'would enroll', '-', 'enroll -> available (after enrolling)', 'after enrolling']


def test_the_summary_takes_the_nodes_left_alone_from_the_moves_without_planning_them_again():
    plan = fleet_plan(FLEET[:2], SCHEMA)
    records = {'nodes': [{'name': 'plain', 'created': False, 'changed': False, 'node': node('plain', 'manageable')},
                         {'name': 'active', 'created': False, 'changed': False, 'node': node('active', 'manageable')}]}
    moves = fleet_moves(plan, records)
    assert moves == [{'node': 'plain', 'state': 'available'}, {'node': 'active', 'state': 'active'}]
    skipped = {'skipped': True, 'changed': False}
    # Planned, both need a step; the moves name only the first, so the other rests where it is declared.
    rows, _totals = table(fleet_summary(plan, records, skipped, skipped, moves=moves[:1]))
    assert rows[1:] == [['plain', 'ok', '-', 'not converged'], ['active', 'ok', 'off', 'manageable']]
    assert table(fleet_summary(plan, records, skipped, skipped, moves=moves))[0] == table(
        fleet_summary(plan, records, skipped, skipped))[0]


def test_a_node_the_defaults_cannot_plan_is_left_to_the_provision_task():
    plan = fleet_plan([dict(FLEET[0], provision_state='manageable')], SCHEMA)
    records = {'nodes': [{'name': 'plain', 'created': False, 'changed': False, 'node': node('plain', 'active')}]}
    # Undeploying destroys a workload: refused without allow_destructive, which only the task knows.
    assert fleet_moves(plan, records) == [{'node': 'plain', 'state': 'manageable'}]


def test_port_groups_network_data_and_virtual_media_pass_through_to_the_records_and_are_checked():
    wired = {'name': 'wired', 'driver': 'fake-hardware',
             'port_groups': [{'name': 'wired-bond0', 'mode': '802.3ad', 'properties': {'miimon': '100'}}],
             'ports': [{'address': '52:54:00:00:00:07', 'port_group': 'wired-bond0'}],
             'network_data': {'links': [], 'networks': [], 'services': []},
             'virtual_media': [{'device_type': 'cdrom', 'image_url': 'http://127.0.0.1:8080/boot.iso'}]}
    plan = fleet_plan([wired], SCHEMA)
    assert plan['errors'] == [] and plan['records'] == [wired]
    bad = dict(wired, virtual_media=[{'device_type': 'dvd'}], port_groups=[{'name': 'bond 0'}])
    errors = ' '.join(fleet_plan([bad], SCHEMA)['errors'])
    assert 'virtual_media[0].device_type' in errors and 'port_groups[0].name' in errors


BIFROST_YAML = '''
edge-01:
  uuid: "00000000-0000-4000-8000-0000000000e1"
  driver: fake-hardware
  nics:
    - mac: "52:54:00:e1:00:01"
  properties: {cpu_arch: x86_64, ram: "8192", disk_size: "100", cpus: "4"}
  ipv4_address: 192.0.2.51
edge-02:
  driver: fake-hardware
'''


@pytest.mark.parametrize('fleet', [BIFROST_YAML, json.dumps(yaml.safe_load(BIFROST_YAML))],
                         ids=['yaml text', 'json text'])
def test_a_bifrost_inventory_is_mapped_then_split(fleet):
    plan = fleet_plan(fleet, SCHEMA, provision_state='manageable', fleet_format='bifrost')
    assert plan['errors'] == []
    assert plan['records'] == [
        {'name': 'edge-01', 'uuid': '00000000-0000-4000-8000-0000000000e1', 'driver': 'fake-hardware',
         'ports': [{'address': '52:54:00:e1:00:01'}],
         'properties': {'cpu_arch': 'x86_64', 'memory_mb': 8192, 'local_gb': 100, 'cpus': 4},
         'extra': {'ipv4_address': '192.0.2.51'}},
        {'name': 'edge-02', 'driver': 'fake-hardware'}]
    assert plan['provision'] == [{'node': 'edge-01', 'state': 'manageable'}, {'node': 'edge-02', 'state': 'manageable'}]


def test_a_bifrost_inventory_with_keys_it_cannot_map_gives_one_error_and_no_list():
    plan = fleet_plan(BIFROST_YAML + '  host_vars: {a: 1}\n  nics: [{mac: "52:54:00:e1:00:02", vlan: 3}]\n', SCHEMA,
                      fleet_format='bifrost')
    assert plan == {'errors': ["The Bifrost inventory has keys the role cannot map: edge-02: host_vars, nics[0].vlan. "
                               "Remove them from the file, or describe those nodes in the role's own format "
                               "(fleet_format: fleet)."],
                    'records': [], 'maintenance': [], 'provision': [], 'hardware': []}


def test_a_mapped_bifrost_inventory_is_validated_as_the_roles_own_format():
    plan = fleet_plan({'bad': {'driver': 'fake-hardware', 'nics': [{'mac': 'not-a-mac'}]}}, SCHEMA,
                      fleet_format='bifrost')
    assert plan['records'] == []
    assert "fleet[0] (bad): ports[0].address 'not-a-mac' is not a MAC address; write six hexadecimal octets " \
        'separated by colons, for example 52:54:00:12:34:56.' in plan['errors'], plan


def test_an_unknown_fleet_format_is_refused():
    with pytest.raises(AnsibleFilterError, match='fleet_format must be one of fleet, bifrost'):
        fleet_plan([], SCHEMA, fleet_format='metal3')


SLICES = {'rack-a': ['rack-a'], 'rack-b': ['rack-b']}
SLICED_FLEET = [{'name': 'a1', 'driver': 'fake-hardware', 'conductor_group': 'rack-a'},
                {'name': 'b1', 'driver': 'no-such-driver', 'conductor_group': 'rack-b'},
                {'name': 'a2', 'driver': 'fake-hardware', 'conductor_group': 'rack-a', 'maintenance': True}]


def test_a_slice_plans_its_own_nodes_and_a_mistake_in_another_slices_node_fails_that_slice_only():
    plan = fleet_plan(SLICED_FLEET, SCHEMA, slices=SLICES, slice_name='rack-a')
    assert plan['errors'] == []
    assert [record['name'] for record in plan['records']] == ['a1', 'a2']
    assert plan['provision'] == [{'node': 'a1', 'state': 'available'}]
    plan = fleet_plan(SLICED_FLEET, SCHEMA, slices=SLICES, slice_name='rack-b')
    assert plan['records'] == [] and len(plan['errors']) == 1
    assert "(b1): unknown driver 'no-such-driver'" in plan['errors'][0]


def test_a_node_in_no_slice_or_a_name_in_two_slices_is_refused_by_every_slice():
    fleet = SLICED_FLEET[:1] + [{'name': 'a1', 'driver': 'fake-hardware', 'conductor_group': 'rack-b'},
                                {'name': 'z1', 'driver': 'fake-hardware', 'conductor_group': 'rack-z'}]
    for slice_name in SLICES:
        plan = fleet_plan(fleet, SCHEMA, slices=SLICES, slice_name=slice_name)
        assert plan['records'] == []
        assert plan['errors'] == [
            "These nodes are in no slice of fleet_slices, so no slice would converge them: z1 (conductor_group "
            "'rack-z'). Add their conductor_group to one slice of fleet_slices, or declare them in a conductor_group "
            "a slice has.",
            'These node names are declared in more than one slice, so two slices would write them at once: a1. '
            'Declare each node once.']


def test_a_description_that_cannot_be_sliced_gets_the_validations_errors():
    plan = fleet_plan([{'driver': 'fake-hardware'}, 'node'], SCHEMA, slices=SLICES, slice_name='rack-a')
    assert plan['records'] == [] and plan['errors']
    assert any('name' in error for error in plan['errors'])
