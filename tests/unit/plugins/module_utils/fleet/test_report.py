# -*- coding: utf-8 -*-
"""The fleet report: what it reads (in proportion, over real HTTP against the scripted Ironic of ironic/test_client) and
what it makes of it (pure)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import jsonschema
import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.report import (
    build_report, capacity, firmware_groups, read_fleet)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError

from ..ironic.scripted import ScriptedIronic

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), *(['..'] * 5 + ['playbooks', 'files',
                                                                                  'fleet-report.schema.json']))


def valid(report):
    """The report, checked against the JSON Schema the collection ships (with every key as JSON has it)."""
    with open(SCHEMA, encoding='utf-8') as handle:
        jsonschema.Draft7Validator(json.load(handle)).validate(json.loads(json.dumps(report)))
    return report


def node(name, state='available', rc='gold', **fields):
    return dict({'uuid': 'uuid-' + name, 'name': name, 'provision_state': state, 'power_state': 'power off',
                 'maintenance': False, 'maintenance_reason': None, 'fault': None, 'health': 'OK',
                 'resource_class': rc, 'owner': None, 'last_error': None, 'properties': {}, 'traits': [],
                 'raid_config': {}, 'target_raid_config': {}}, **fields)


def bmc(version, vendor='Contoso', model='R1'):
    return [{'component': 'bmc', 'current_version': version, 'vendor': vendor, 'model': model}]


def read(nodes, firmware=None, bios=None, firmware_read=True, note=None):
    return {'nodes': nodes, 'firmware': firmware or {}, 'bios': bios or {}, 'firmware_read': firmware_read,
            'firmware_note': note}


def test_capacity_per_resource_class():
    nodes = [node('a'), node('b', maintenance=True), node('c', 'active', maintenance=True), node('d', 'clean failed'),
             node('e', 'error'), node('f', 'manageable'), node('g', rc=None)]
    assert capacity(nodes) == [
        {'resource_class': None, 'available': 1, 'active': 0, 'in_maintenance': 0, 'failed': 0, 'total': 1,
         'free_percent': 100.0},
        {'resource_class': 'gold', 'available': 1, 'active': 1, 'in_maintenance': 2, 'failed': 2, 'total': 6,
         'free_percent': 16.7},
    ]


def test_firmware_groups_by_vendor_model_and_component_with_the_outliers():
    nodes = [node('a'), node('b'), node('c'), node('d', properties={'vendor': 'Fabrikam'}), node('e')]
    firmware = {'uuid-a': bmc('2.10'), 'uuid-b': bmc('2.10'), 'uuid-c': bmc('2.9'),
                'uuid-d': [{'component': 'bios', 'current_version': '1.0', 'vendor': None, 'model': None}],
                'uuid-e': bmc('2.9', model='R2')}
    groups = firmware_groups(nodes, firmware)
    assert groups == [
        {'vendor': 'Contoso', 'model': 'R1', 'component': 'bmc', 'nodes': 3, 'common_version': '2.10',
         'versions': [{'version': '2.10', 'nodes': 2}, {'version': '2.9', 'nodes': 1}],
         'outliers': [{'node': 'c', 'version': '2.9'}]},
        {'vendor': 'Contoso', 'model': 'R2', 'component': 'bmc', 'nodes': 1, 'common_version': '2.9',
         'versions': [{'version': '2.9', 'nodes': 1}], 'outliers': []},
        {'vendor': 'Fabrikam', 'model': None, 'component': 'bios', 'nodes': 1, 'common_version': '1.0',
         'versions': [{'version': '1.0', 'nodes': 1}], 'outliers': []},
    ]


def test_the_nics_of_one_vendor_and_model_are_one_group_whatever_their_serial_numbers():
    def nic(serial, version, model='EN-25G'):
        return {'component': 'nic:%s' % serial, 'current_version': version, 'vendor': 'Emulated', 'model': model}
    firmware = {'uuid-a': [nic('SN1', '22.40'), nic('SN2', '22.40')], 'uuid-b': [nic('SN3', '22.31')],
                'uuid-c': [nic('SN4', '22.40'), nic('SN5', '1.0', model='EN-100G')]}
    groups = firmware_groups([node('a'), node('b'), node('c')], firmware)
    assert groups == [
        {'vendor': 'Emulated', 'model': 'EN-100G', 'component': 'nic:*', 'nodes': 1, 'common_version': '1.0',
         'versions': [{'version': '1.0', 'nodes': 1}], 'outliers': []},
        {'vendor': 'Emulated', 'model': 'EN-25G', 'component': 'nic:*', 'nodes': 3, 'common_version': '22.40',
         'versions': [{'version': '22.40', 'nodes': 3}, {'version': '22.31', 'nodes': 1}],
         'outliers': [{'node': 'b', 'version': '22.31'}]},
    ]


def test_of_versions_as_common_the_highest_is_the_reference():
    groups = firmware_groups([node('a'), node('b')], {'uuid-a': bmc('1.9'), 'uuid-b': bmc('1.10')})
    assert groups[0]['common_version'] == '1.10' and groups[0]['outliers'] == [{'node': 'a', 'version': '1.9'}]


def test_the_report_without_a_fleet_has_no_drift_and_masks_the_free_text():
    nodes = [node('b', 'deploy failed', last_error='deploy failed: ipmi_password=hunter2 refused', fault='power failure'),
             node('a', maintenance=True, maintenance_reason='token: abc123 leaked', health='Critical')]
    report = build_report(read(nodes, {'uuid-a': bmc('1'), 'uuid-b': bmc('2')}),
                          generated_at='2026-01-05T10:00:00Z', api_version='1.115')
    valid(report)
    assert [entry['name'] for entry in report['nodes']] == ['a', 'b']
    assert 'hunter2' not in str(report) and 'abc123' not in str(report)
    assert report['nodes'][1]['last_error'] == 'deploy failed: ipmi_password=******** refused'
    assert set(report['nodes'][0]) == {'uuid', 'name', 'provision_state', 'power_state', 'maintenance',
                                       'maintenance_reason', 'fault', 'health', 'resource_class', 'owner',
                                       'last_error', 'declared', 'drift', 'firmware_compliance'}
    assert report['nodes'][0]['declared'] is None and report['drift'] is None
    assert report['summary'] == {
        'nodes': 2, 'provision_states': {'available': 1, 'deploy failed': 1}, 'in_maintenance': 1, 'failed': 1,
        'with_fault': 1, 'with_last_error': 1, 'unhealthy': 1, 'firmware_outliers': 1, 'drifted': None,
        'undeclared': None, 'missing': None, 'firmware_to_update': None}
    assert report['firmware']['outliers'] == ['a']
    assert report['firmware_baseline'] is None and report['nodes'][0]['firmware_compliance'] is None


def test_health_is_absent_where_ironic_predates_it():
    old = dict(node('a'))
    del old['health']
    assert 'health' not in build_report(read([old]))['nodes'][0]


def test_the_report_with_a_fleet_fills_each_node_with_its_drift():
    nodes = [node('a', traits=['CUSTOM_X']), node('b'), node('extra')]
    fleet = [{'name': 'a', 'traits': ['CUSTOM_X'], 'bios_settings': {'Turbo': 'On'}},
             {'name': 'b', 'resource_class': 'silver', 'firmware': [{'component': 'bmc', 'version': '3', 'url': 'u'}]},
             {'name': 'gone'}]
    report = build_report(read(nodes, {'uuid-b': bmc('2')}, {'uuid-a': {'Turbo': {'name': 'Turbo', 'value': 'On'}}},
                               firmware_read=False), fleet)
    entries = dict((entry['name'], entry) for entry in report['nodes'])
    assert entries['a']['declared'] is True and entries['a']['drift'] == []
    assert entries['b']['drift'] == [{'field': 'resource_class', 'declared': 'silver', 'reported': 'gold'},
                                     {'field': 'firmware.bmc', 'declared': '3', 'reported': '2'}]
    assert entries['extra']['declared'] is False and entries['extra']['drift'] == []
    assert report['drift'] == {'declared_nodes': 3, 'drifted': ['b'], 'undeclared': ['extra'], 'missing': ['gone']}
    assert report['summary']['drifted'] == 1 and report['summary']['undeclared'] == 1
    assert report['summary']['missing'] == 1
    # The firmware read for a declaration only is no picture of the fleet's firmware.
    assert report['firmware']['groups'] == [] and report['summary']['firmware_outliers'] == 0


@pytest.fixture
def server():
    scripted = ScriptedIronic()
    yield scripted
    scripted.close()


def test_reads_one_list_then_per_node_only_what_is_asked_or_declared(server):
    server.on('GET', '/v1/nodes', (200, {'nodes': [node('a'), node('b'), node('c')]}))
    for name in 'abc':
        server.on('GET', '/v1/nodes/uuid-%s/firmware' % name, (200, {'firmware': bmc('1')}))
        server.on('GET', '/v1/nodes/uuid-%s/bios' % name, (200, {'bios': [{'name': 'Turbo', 'value': 'On'}]}))
    fleet = [{'name': 'b', 'bios_settings': {'Turbo': 'On'}}, {'name': 'c', 'firmware': [
        {'component': 'bmc', 'version': '1', 'url': 'u'}]}]
    read = read_fleet(IronicClient(server.endpoint), fleet, firmware=False)
    paths = sorted(path.split('?')[0] for method, path, _version, _body in server.requests if path != '/')
    assert paths == ['/v1/nodes', '/v1/nodes/uuid-b/bios', '/v1/nodes/uuid-c/firmware']
    assert sorted(read['bios']) == ['uuid-b'] and sorted(read['firmware']) == ['uuid-c']
    assert read['firmware_read'] is False

    del server.requests[:]
    read = read_fleet(IronicClient(server.endpoint), None, firmware=True)
    paths = sorted(path.split('?')[0] for method, path, _version, _body in server.requests if path != '/')
    assert paths == ['/v1/nodes'] + ['/v1/nodes/uuid-%s/firmware' % name for name in 'abc']
    assert read['firmware_read'] is True and read['firmware']['uuid-a'] == bmc('1')


def test_a_failed_node_whose_last_error_ironic_cleared_shows_the_error_its_history_keeps(server):
    failed = dict(node('a'), provision_state='deploy failed', last_error=None)
    told = dict(node('b'), provision_state='clean failed', last_error='Clean step failed')
    server.on('GET', '/v1/nodes', (200, {'nodes': [failed, told, dict(node('c'), last_error=None)]}))
    server.on('GET', '/v1/nodes/uuid-a/history', (200, {'history': [
        {'created_at': '2026-11-29T08:03:51', 'severity': 'ERROR', 'event': 'Deploy step failed'}]}))
    read = read_fleet(IronicClient(server.endpoint), None, firmware=False)
    paths = sorted(path.split('?')[0] for method, path, _version, _body in server.requests if path != '/')
    assert paths == ['/v1/nodes', '/v1/nodes/uuid-a/history']  # only a failed node with no last_error
    errors = dict((entry['name'], entry['last_error']) for entry in read['nodes'])
    assert errors == {'a': 'Deploy step failed (recorded in its history at 2026-11-29T08:03:51; Ironic has since '
                           'cleared its last_error)', 'b': 'Clean step failed', 'c': None}


def test_an_ironic_without_firmware_components_gets_a_note_unless_the_fleet_declares_firmware():
    server = ScriptedIronic(max_version='1.85')
    try:
        server.on('GET', '/v1/nodes', (200, {'nodes': [node('a')]}))
        read = read_fleet(IronicClient(server.endpoint), None, firmware=True)
        assert read['firmware_read'] is False and '1.86' in read['firmware_note'] and '1.85' in read['firmware_note']
        with pytest.raises(IronicError, match='firmware components needs Ironic API 1.86'):
            read_fleet(IronicClient(server.endpoint), [{'name': 'a', 'firmware': [
                {'component': 'bmc', 'version': '1', 'url': 'u'}]}])
        # Refused before any node is read: the one list is the first call's.
        assert len([path for _method, path, _version, _body in server.requests if path.startswith('/v1/nodes')]) == 1
    finally:
        server.close()


BASELINE = [{'name': 'Contoso R1', 'match': {'vendor': 'Contoso', 'model': 'R1'}, 'components': [
    {'component': 'bmc', 'version': '2.10', 'url': 'http://127.0.0.1:9/bmc-2.10.bin',
     'stepping_stones': [{'version': '2.8', 'url': 'http://127.0.0.1:9/bmc-2.8.bin'}]}]}]


def test_the_report_with_a_baseline_gives_each_node_its_compliance_and_plan():
    nodes = [node('a'), node('b'), node('c', firmware_interface='fake', properties={'vendor': 'Contoso'})]
    report = valid(build_report(read(nodes, {'uuid-a': bmc('2.10'), 'uuid-b': bmc('2.5'), 'uuid-c': []}),
                                generated_at='2026-01-05T10:00:00Z', api_version='1.115', baseline=BASELINE))
    entries = dict((entry['name'], entry['firmware_compliance']) for entry in report['nodes'])
    assert entries['a']['status'] == 'at_target' and entries['a']['plan'] == []
    assert entries['b']['status'] == 'behind' and [step['version'] for step in entries['b']['plan']] == ['2.8', '2.10']
    assert entries['c']['status'] == 'unknown' and entries['c']['model'] is None
    assert entries['c']['reason'] == ('no model of the baseline matches it (vendor Contoso, model unknown); its '
                                      'firmware interface (fake) records no components')
    assert report['firmware_baseline'] == {'unmatched': ['c'], 'to_update': ['b'], 'models': [
        {'model': 'Contoso R1', 'nodes': 2, 'components': [
            {'component': 'bmc', 'target': '2.10', 'at_target': 1, 'behind': 1, 'ahead': 0, 'unknown': 0,
             'steps': 2}]}]}
    assert report['summary']['firmware_to_update'] == 1


def test_the_row_of_nic_star_counts_nodes_by_their_nics_and_sums_their_steps():
    baseline = [dict(BASELINE[0], components=BASELINE[0]['components'] + [
        {'component': 'nic:*', 'version': '22.40', 'url': 'http://127.0.0.1:9/nic-22.40.bin'}])]

    def nics(**versions):
        return [{'component': 'nic:' + serial, 'current_version': version} for serial, version in versions.items()]

    firmware = {'uuid-a': bmc('2.10') + nics(SN1='22.40', SN2='22.31'), 'uuid-b': bmc('2.10') + nics(SN3='22.40'),
                'uuid-c': bmc('2.10') + nics(SN4='22.31', SN5='22.31'), 'uuid-d': bmc('2.10')}
    report = valid(build_report(read([node(name) for name in 'abcd'], firmware), generated_at='2026-01-05T10:00:00Z',
                                api_version='1.115', baseline=baseline))

    entries = dict((entry['name'], entry['firmware_compliance']) for entry in report['nodes'])
    assert [(item['component'], item['baseline_component'], item['status']) for item in entries['a']['components']] == [
        ('bmc', 'bmc', 'at_target'), ('nic:SN1', 'nic:*', 'at_target'), ('nic:SN2', 'nic:*', 'behind')]
    assert [step['component'] for step in entries['a']['plan']] == ['nic:SN2']
    assert entries['d']['components'][1]['component'] == 'nic:*' and entries['d']['status'] == 'unknown'
    assert report['firmware_baseline']['models'][0]['components'] == [
        {'component': 'bmc', 'target': '2.10', 'at_target': 4, 'behind': 0, 'ahead': 0, 'unknown': 0, 'steps': 0},
        {'component': 'nic:*', 'target': '22.40', 'at_target': 1, 'behind': 2, 'ahead': 0, 'unknown': 1, 'steps': 3}]
    assert report['firmware_baseline']['to_update'] == ['a', 'c']


def test_a_baseline_reads_every_node_s_firmware_and_needs_the_api_that_has_it(server):
    server.on('GET', '/v1/nodes', (200, {'nodes': [node('a'), node('b')]}))
    for name in 'ab':
        server.on('GET', '/v1/nodes/uuid-%s/firmware' % name, (200, {'firmware': bmc('1')}))
    read = read_fleet(IronicClient(server.endpoint), None, firmware=False, baseline=BASELINE)
    paths = sorted(path.split('?')[0] for method, path, _version, _body in server.requests if path != '/')
    assert paths == ['/v1/nodes', '/v1/nodes/uuid-a/firmware', '/v1/nodes/uuid-b/firmware']
    assert read['firmware_read'] is True
    assert 'firmware_interface' in [path for _method, path, _version, _body in server.requests
                                    if path.startswith('/v1/nodes?')][0]
    old = ScriptedIronic(max_version='1.85')
    try:
        with pytest.raises(IronicError, match='firmware components needs Ironic API 1.86'):
            read_fleet(IronicClient(old.endpoint), None, firmware=True, baseline=BASELINE)
        assert [path for _method, path, _version, _body in old.requests if path.startswith('/v1/nodes')] == []
    finally:
        old.close()
