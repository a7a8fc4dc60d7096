# -*- coding: utf-8 -*-
"""baremetal_provision_state with nodes against a real Ironic: many nodes in one task."""

from __future__ import annotations

import json
import re

import pytest

from nodes import CLOSED_LOOPBACK_URL, RawIronic

# "Node <uuid> moved to provision state "x" from state "y"; target provision state is "z""
_MOVED = re.compile(r'Node (?P<uuid>[0-9a-f-]{36}) moved to provision state "(?P<state>[^"]+)" from state '
                    r'"[^"]+"; target provision state is "(?P<target>[^"]+)"')
_SINGLE_NODE = re.compile(r'^/v1/nodes/[^/?]+(\?|$)')


@pytest.fixture(scope='module')
def raw(ironic):
    return RawIronic(ironic)


def api_requests(ironic, mark):
    """The requests after mark, without the harness's own log markers."""
    return [request for request in ironic.requests_since(mark) if '?sync=' not in request.path]


def by_name(result):
    return dict((entry['node']['name'], entry) for entry in result['nodes'] if entry['node'])


def test_mixed_targets_converge_in_one_task_and_a_rerun_only_reads(raw, ironic, run_module, fresh_node):
    to_manageable, to_available, to_active, already = (fresh_node() for _index in range(4))
    raw.verb(already['uuid'], 'manage')
    nodes = [{'node': to_manageable['name'], 'state': 'manageable'}, to_available['uuid'],
             {'node': to_active['name'], 'state': 'active'}, {'node': already['name'], 'state': 'manageable'}]

    result = run_module('baremetal_provision_state', nodes=nodes, state='available')
    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is True
    entries = by_name(result)
    assert [(t['verb'], t['to']) for t in entries[to_active['name']]['transitions']] == [
        ('manage', 'manageable'), ('provide', 'available'), ('active', 'active')]
    assert [t['verb'] for t in entries[to_available['name']]['transitions']] == ['manage', 'provide']
    assert [t['verb'] for t in entries[to_manageable['name']]['transitions']] == ['manage']
    assert entries[already['name']]['plan'] == [] and entries[already['name']]['changed'] is False
    assert all(entry['error'] is None for entry in entries.values())
    expected = {to_manageable['uuid']: 'manageable', to_available['uuid']: 'available',
                to_active['uuid']: 'active', already['uuid']: 'manageable'}
    assert dict((uuid, raw.node(uuid)['provision_state']) for uuid in expected) == expected
    totals = result['totals']
    assert (totals['nodes'], totals['changed'], totals['failed']) == (4, 3, 0)
    assert totals['api_calls'] == result['api_calls'] and totals['seconds'] > 0

    mark = ironic.log_mark()
    again = run_module('baremetal_provision_state', nodes=nodes, state='available')
    assert again['changed'] is False and again['totals']['changed'] == 0
    requests = api_requests(ironic, mark)
    assert [request for request in requests if request.method not in ('GET', 'HEAD')] == []
    # The version, one list of twice as many nodes as asked for, and a GET for each asked-for node that list
    # did not hold (the session's Ironic holds many more nodes): reads in proportion to the nodes asked for.
    lists = [request for request in requests if request.path.startswith('/v1/nodes?')]
    assert len(lists) == 1 and 'limit=8' in lists[0].path
    gets = [request for request in requests if request.path.startswith('/v1/nodes/')]
    assert len(gets) <= 4
    assert len(requests) == again['api_calls'] == 2 + len(gets)


def test_check_mode_plans_every_node_and_writes_nothing(raw, ironic, run_module, fresh_node):
    enrolled, manageable = fresh_node(), fresh_node()
    raw.verb(manageable['uuid'], 'manage')
    mark = ironic.log_mark()
    result = run_module('baremetal_provision_state', check=True, nodes=[enrolled['name'], manageable['name']],
                        state='available')
    assert ironic.write_requests_since(mark) == []
    assert result['changed'] is True
    entries = by_name(result)
    assert [step['verb'] for step in entries[enrolled['name']]['plan']] == ['manage', 'provide']
    assert [step['verb'] for step in entries[manageable['name']]['plan']] == ['provide']
    assert all(entry['transitions'] == [] for entry in entries.values())
    assert [raw.node(node['uuid'])['provision_state'] for node in (enrolled, manageable)] == ['enroll', 'manageable']


def _deploy_fails(raw, fresh_node):
    """An available node whose deploy fails for real: its image is on a closed loopback port."""
    node = fresh_node()
    raw.verb(node['uuid'], 'manage')
    raw.verb(node['uuid'], 'provide')
    raw.patch(node['uuid'], deploy_interface='direct', instance_info={
        'image_source': CLOSED_LOOPBACK_URL, 'image_checksum': '0' * 32, 'image_disk_format': 'raw'})
    return node


def test_failing_nodes_do_not_stop_the_others(raw, ironic, run_module, fresh_node):
    healthy = [fresh_node() for _index in range(3)]
    broken = _deploy_fails(raw, fresh_node)
    held = fresh_node()
    ironic.api('PUT', '/nodes/%s/maintenance' % held['uuid'], {'reason': 'fan'})
    names = [node['name'] for node in healthy + [broken, held]] + ['no-such-node-anywhere']

    # 3 of 6 fail: within 50 %.
    result = run_module('baremetal_provision_state', nodes=names, state='active', max_fail_percentage=50)
    assert not result.get('failed'), result.get('msg')
    assert [raw.node(node['uuid'])['provision_state'] for node in healthy] == ['active'] * 3
    entries = by_name(result)
    assert "ended in 'deploy failed' instead of 'active'" in entries[broken['name']]['error']
    assert 'maintenance (reason: fan)' in entries[held['name']]['error']
    assert result['totals']['failed'] == 3 and result['totals']['nodes'] == 6
    assert "No node is named or has the UUID 'no-such-node-anywhere'" in json.dumps(result['warnings'])

    # The same fleet with the default max_fail_percentage of 0 fails, and still reports every node.
    again = run_module('baremetal_provision_state', nodes=names, state='active')
    assert again['failed'] is True
    # The three healthy nodes are already active: the three others are all the task changes.
    assert again['msg'].startswith('3 of the 3 nodes to change failed (max_fail_percentage is 0)')
    assert again['totals']['failed'] == 3
    assert all(by_name(again)[node['name']]['error'] is None for node in healthy)


def test_no_more_than_concurrency_nodes_move_at_once(raw, ironic, run_module, fresh_node):
    nodes = [fresh_node() for _index in range(6)]
    # Nodes the task does not name, so that Ironic holds more than its lookup reads (twice the nodes asked for):
    # in an Ironic that small a poll may list every node, which costs less (_ironic.POLL_LIST_ALL_RATIO), and the
    # session's Ironic holds few nodes on a pytest worker that ran few tests before this one.
    for _index in range(len(nodes) + 1):
        fresh_node()
    uuids = set(node['uuid'] for node in nodes)
    mark = ironic.log_mark()
    result = run_module('baremetal_provision_state', nodes=[node['name'] for node in nodes], state='available',
                        concurrency=2)
    assert not result.get('failed'), result.get('msg')
    requests = api_requests(ironic, mark)
    with open(ironic.log_path, 'rb') as handle:
        handle.seek(mark)
        log = handle.read().decode('utf-8', 'replace')

    moving, most = set(), 0
    for match in _MOVED.finditer(log):
        if match.group('uuid') not in uuids:
            continue
        if match.group('target') == 'None':
            moving.discard(match.group('uuid'))
        else:
            moving.add(match.group('uuid'))
        most = max(most, len(moving))
    assert most == 2

    # Polls read in proportion to the nodes in play, never a list of every node Ironic holds: the lookup
    # (a list of twice as many nodes as asked for), lists filtered by the transient state the nodes were
    # last seen in, and GETs of our own nodes only.
    paths = [request.path for request in requests if request.method == 'GET']
    lists = [path for path in paths if path.startswith('/v1/nodes?')]
    assert 'limit=12' in lists[0] and all('provision_state=' in path for path in lists[1:])
    for path in paths:
        match = _SINGLE_NODE.match(path)
        if match:
            assert path.split('?')[0].rsplit('/', 1)[1] in uuids | set(node['name'] for node in nodes), path
