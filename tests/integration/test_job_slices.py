# -*- coding: utf-8 -*-
"""One fleet run as AWX job slices (docs/awx-job-slicing.md): ansible-runner's run_async runs the docs' playbook
as 2 slices at once, against one split Ironic (ironic-api and 2 conductors, each on its own loopback address, in
the conductor groups rack-a and rack-b, on PostgreSQL), the way AWX's job_slice_count runs it: each slice gets
its own inventory holding only its hosts (AWX orders the hosts by name and gives slice N of M every M-th from the
N-th), not a --limit.

Each slice converges the nodes of its conductor group; no node is written by two slices (writes per node, from
Ironic's API log); the slices' writes, node by node, are one play's on a fleet of the same shape; a slice that fails
(a node of its group with a driver Ironic refuses) leaves the other slice's nodes converged; a node in no slice, or
in two, is refused by every slice before any write.
"""

from __future__ import annotations

import collections
import copy
import os
import re
import sys
import uuid

import pytest
import yaml

from test_examples import claim, delete_nodes

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)  # the ansible-core under test
COLLECTIONS = os.path.join(ROOT, '.work', 'collections')
PAGE = 'docs/awx-job-slicing.md'
GROUPS = ('rack-a', 'rack-b')  # conductor N+1 serves GROUPS[N]; the docs' inventory has one slice per group
NODES_PER_GROUP = 4
SLICE_SECONDS = 600  # a bound on each slice's run, not a duration the test expects


@pytest.fixture(scope='module')
def split_ironic(make_split_ironic):
    """ironic-api and two conductors, one per conductor group, on PostgreSQL."""
    return make_split_ironic(conductors=len(GROUPS), ironic_standalone_conductor_groups=list(GROUPS))


def docs_example(kind):
    """The one example of ``kind`` on the docs page."""
    texts = claim(PAGE, kind)
    assert len(texts) == 1
    return texts[0]


def start_slice_of_the_docs():
    """The docs' start_slice function, as the page gives it."""
    text = open(os.path.join(ROOT, PAGE), encoding='utf-8').read()
    blocks = re.findall(r'^```python\n(.*?)^```', text, re.S | re.M)
    assert len(blocks) == 1, 'docs/awx-job-slicing.md has one python example'
    namespace = {}
    exec(compile(blocks[0], PAGE, 'exec'), namespace)  # pylint: disable=exec-used
    return namespace['start_slice']


def awx_slice(inventory, number, count):
    """Slice ``number`` of ``count`` of an inventory, as AWX gives it to a slice job: the hosts ordered by name,
    every count-th one from the number-th, with their groups' variables."""
    sliced = copy.deepcopy(inventory)
    group = sliced['all']['children']['baremetal_slices']
    hosts = sorted(group['hosts'])[number - 1::count]
    group['hosts'] = dict((name, group['hosts'][name]) for name in hosts)
    return sliced


def fleet_of(tag, bad=None):
    """NODES_PER_GROUP fake-hardware nodes per conductor group, each with a port; ``bad``: the name of a node given
    a driver Ironic does not have."""
    nodes = []
    serial = int(uuid.uuid4().hex[:4], 16)
    for group in GROUPS:
        for index in range(NODES_PER_GROUP):
            name = 'slice-%s-%s-%d' % (tag, group, index)
            serial += 1
            nodes.append({'name': name, 'driver': 'no-such-driver' if name == bad else 'fake-hardware',
                          'conductor_group': group,
                          'ports': [{'address': '52:54:%02x:%02x:%02x:%02x' % (
                              len(nodes), serial >> 8 & 0xff, serial & 0xff, GROUPS.index(group))}]})
    return nodes


def write_project(directory, fleet, inventory):
    """A private data directory of ansible-runner: project/ with the docs' playbook and the fleet file, and
    inventory/hosts.yml."""
    os.makedirs(os.path.join(directory, 'project'))
    os.makedirs(os.path.join(directory, 'inventory'))
    with open(os.path.join(directory, 'project', 'slices.yml'), 'w', encoding='utf-8') as handle:
        handle.write(docs_example('inventory-playbook'))
    with open(os.path.join(directory, 'project', 'fleet.yml'), 'w', encoding='utf-8') as handle:
        yaml.safe_dump(fleet, handle)
    with open(os.path.join(directory, 'inventory', 'hosts.yml'), 'w', encoding='utf-8') as handle:
        yaml.safe_dump(inventory, handle)
    return str(directory)


def runner_env(ironic):
    return {'ANSIBLE_CONFIG': os.path.join(ROOT, 'ansible.cfg'), 'ANSIBLE_COLLECTIONS_PATH': COLLECTIONS,
            'OS_CLIENT_CONFIG_FILE': ironic.clouds_yaml, 'OS_CLOUD': ironic.cloud_name,
            'PATH': BIN + os.pathsep + os.environ.get('PATH', '')}


def run_slices(ironic, base, fleet, count=2):
    """Run the docs' playbook as ``count`` slices at once with ansible-runner; returns one runner per slice."""
    inventory = yaml.safe_load(docs_example('static-inventory'))
    start_slice = start_slice_of_the_docs()
    started = []
    for number in range(1, count + 1):
        directory = write_project(base / ('slice-%d' % number), fleet, awx_slice(inventory, number, count))
        started.append(start_slice(directory, env=runner_env(ironic)))
    for thread, _runner in started:
        thread.join(SLICE_SECONDS)
        assert not thread.is_alive(), 'a slice did not end within %d s' % SLICE_SECONDS
    return [runner for _thread, runner in started]


def run_one_play(ironic, base, fleet):
    """The same playbook and inventory as one play (both slices the hosts of one ansible-playbook run)."""
    inventory = yaml.safe_load(docs_example('static-inventory'))
    directory = write_project(base / 'one-play', fleet, inventory)
    thread, runner = start_slice_of_the_docs()(directory, env=runner_env(ironic))
    thread.join(SLICE_SECONDS)
    assert not thread.is_alive()
    return runner


def output_of(runner):
    return runner.stdout.read()


def records_of(runner):
    """{slice host: the node names its records task wrote or kept}, from the runner's events."""
    written = {}
    for event in runner.events:
        data = event.get('event_data') or {}
        if event.get('event') == 'runner_on_ok' and data.get('resolved_action',
                                                             data.get('task_action')) in (
                'baremetal.lifecycle.baremetal_node', 'baremetal_node'):
            written[data['host']] = sorted(entry['name'] for entry in data['res']['nodes'])
    return written


def writes_per_node(ironic, mark, names, tag):
    """{node name with the tag taken out: [(method, path with the node taken out), ...]} of the writes Ironic
    logged after ``mark``, and the writes of no node (node creations: POST /v1/nodes)."""
    uuids = dict((ironic.api('GET', '/nodes/%s' % name)['uuid'], name) for name in names)
    per_node = collections.defaultdict(list)
    other = []
    for request in ironic.write_requests_since(mark):
        match = re.match(r'/v1/nodes/([^/?]+)(.*)', request.path)
        node = match and (uuids.get(match.group(1)) or (match.group(1) if match.group(1) in names else None))
        if node:
            per_node[node.replace(tag, 'TAG')].append((request.method, match.group(2), request.status))
        else:
            other.append((request.method, re.sub(r'[0-9a-f-]{36}', 'UUID', request.path), request.status))
    return dict(per_node), sorted(other)


def state_of(ironic, name):
    node = ironic.api('GET', '/nodes/%s' % name)
    return node['provision_state'], node['conductor_group']


def test_two_slices_at_once_each_converge_their_own_nodes_as_one_play_would(split_ironic, tmp_path):
    ironic = split_ironic
    tag, solo_tag = uuid.uuid4().hex[:6], uuid.uuid4().hex[:6]
    fleet, solo_fleet = fleet_of(tag), fleet_of(solo_tag)
    names, solo_names = [node['name'] for node in fleet], [node['name'] for node in solo_fleet]
    try:
        mark = ironic.log_mark()
        runners = run_slices(ironic, tmp_path / 'sliced', fleet)
        for runner in runners:
            assert (runner.status, runner.rc) == ('successful', 0), output_of(runner)
        sliced_writes, sliced_other = writes_per_node(ironic, mark, names, tag)

        # Each slice converged its own conductor group's nodes, and only those.
        assert [records_of(runner) for runner in runners] == [
            {group: sorted(name for name in names if '-%s-' % group in name)} for group in GROUPS]
        for name in names:
            assert state_of(ironic, name) == ('available', name.split('-%s-' % tag)[1].rsplit('-', 1)[0])

        # One play of the same playbook on a fleet of the same shape, its slices the hosts of that play.
        mark = ironic.log_mark()
        solo = run_one_play(ironic, tmp_path / 'one', solo_fleet)
        assert (solo.status, solo.rc) == ('successful', 0), output_of(solo)
        solo_writes, solo_other = writes_per_node(ironic, mark, solo_names, solo_tag)

        # Every node written, none by two slices: node by node, the sliced run's writes are one play's (a node
        # written by both slices would show its writes twice), and the slices' creations are one play's.
        assert sorted(sliced_writes) == sorted(name.replace(tag, 'TAG') for name in names)
        assert sliced_writes == solo_writes
        assert sliced_other == solo_other
        assert [method for method, _path, _status in sliced_other].count('POST') == len(names) * 2  # node, port

        # A rerun of the slices, at once again, writes nothing.
        mark = ironic.log_mark()
        reruns = run_slices(ironic, tmp_path / 'rerun', fleet)
        for runner in reruns:
            assert (runner.status, runner.rc) == ('successful', 0), output_of(runner)
        assert ironic.write_requests_since(mark) == []
    finally:
        delete_nodes(ironic, names + solo_names)


def test_a_slice_that_fails_leaves_the_other_slices_nodes_converged(split_ironic, tmp_path):
    ironic = split_ironic
    tag = uuid.uuid4().hex[:6]
    bad = 'slice-%s-rack-b-1' % tag
    fleet = fleet_of(tag, bad=bad)
    names = [node['name'] for node in fleet]
    try:
        runner_a, runner_b = run_slices(ironic, tmp_path, fleet)
        assert (runner_a.status, runner_a.rc) == ('successful', 0), output_of(runner_a)
        for name in names:
            if '-rack-a-' in name:
                assert state_of(ironic, name) == ('available', 'rack-a')
        output = output_of(runner_b)
        assert runner_b.status == 'failed' and runner_b.rc != 0
        # Ironic's own reason, under the node's name, in the failed slice's summary.
        assert re.search(re.escape(bad) + r'.*no-such-driver', output), output
        assert 'rack-a' not in ''.join(re.findall(r'slice-%s-(rack-\w)' % tag, output))
    finally:
        delete_nodes(ironic, names)


@pytest.mark.parametrize('problem', ['a node in no slice', 'a node in two slices'])
def test_a_node_in_no_slice_or_in_two_is_refused_by_every_slice_before_any_write(split_ironic, tmp_path, problem):
    ironic = split_ironic
    tag = uuid.uuid4().hex[:6]
    fleet = fleet_of(tag)
    if problem == 'a node in no slice':
        fleet[-1]['conductor_group'] = 'rack-z'
        expected = "slice-%s-rack-b-3 (conductor_group 'rack-z')" % tag
    else:
        fleet.append(dict(fleet[0], name='slice-%s-both' % tag, conductor_group='rack-both',
                          ports=[{'address': '52:54:ff:00:00:01'}]))
        expected = "slice-%s-both (conductor_group 'rack-both', in slices rack-a, rack-b)" % tag
    inventory = yaml.safe_load(docs_example('static-inventory'))
    if problem == 'a node in two slices':
        for groups in inventory['all']['children']['baremetal_slices']['vars']['fleet_slices'].values():
            groups.append('rack-both')
    mark = ironic.log_mark()
    start_slice = start_slice_of_the_docs()
    started = []
    for number in (1, 2):
        directory = write_project(tmp_path / ('slice-%d' % number), fleet, awx_slice(inventory, number, 2))
        started.append(start_slice(directory, env=runner_env(ironic)))
    for thread, runner in started:
        thread.join(SLICE_SECONDS)
        output = output_of(runner)
        assert runner.status == 'failed', output
        assert expected in output, output
        assert 'nothing was sent to Ironic' in output
    assert ironic.write_requests_since(mark) == []
