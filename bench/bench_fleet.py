# -*- coding: utf-8 -*-
"""Many nodes from enroll to available: one fleet task against the raw REST floor and one task per host.

Starts its own Ironic on a free loopback port, and in the same run measures, for each fleet size, on fresh
fake-hardware nodes (deleted after each measurement, so that every one sees the same number of nodes), the
floor and the fleet task in interleaved rounds (medians reported), the per-host paths once:
  floor       manage then provide over raw REST: every node's verb back to back, one list request (per page)
              every 100 ms, each next verb as soon as the list shows the node at rest;
  fleet       ansible-playbook with one baremetal_provision_state task with nodes (default concurrency, and
              with --concurrency when given), then the same task again: a no-op, timed by the module itself;
  per host    ansible-playbook with one task per host of an inventory of the nodes, forks 5 and 20.
Targets: the fleet task within 1.2x of the floor (issue 20); the no-op rerun of 300 nodes under 3 s of module time.

    python bench/bench_fleet.py [--sizes 100 300] [--repeat 3] [--concurrency 300] [--ironic-venv DIR]
                                [--split] [--no-per-host]

--split runs Ironic as operators do (ironic-api and two ironic-conductor processes over json-rpc, PostgreSQL);
--no-per-host leaves out the per-host paths.
"""

import json
import statistics
import sys

import common

FLEET_PLAYBOOK = '''---
- name: Converge the fleet
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Bring every node to available in one task
      baremetal.lifecycle.baremetal_provision_state:
        cloud: %(cloud)s
        nodes: %(nodes)s
        state: available
%(extra)s'''

PER_HOST_PLAYBOOK = '''---
- name: Converge each host
  hosts: all
  gather_facts: false
  tasks:
    - name: Bring the node to available
      baremetal.lifecycle.baremetal_provision_state:
        cloud: %(cloud)s
        node: "{{ inventory_hostname }}"
        state: available
'''


FLOOR = 'floor: raw REST, list every 100 ms'


class Fleet(object):
    """Fresh enrolled nodes for one measurement, deleted afterwards."""

    def __init__(self, bench, size, label):
        self.bench = bench
        self.names, self.uuids = bench.raw.create_nodes(size, label)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.bench.raw.delete_nodes(self.uuids)

    def check(self, path):
        states = set(self.bench.raw.states(self.uuids))
        if states != {'available'}:
            raise common.BenchError('%s left the nodes in %s' % (path, sorted(states)))


def run_floor(bench, size, label):
    with Fleet(bench, size, label) as fleet:
        seconds, calls = common.floor(bench.raw, fleet.uuids, common.TO_AVAILABLE, 0.1)
        fleet.check('floor')
    return {FLOOR: (seconds, calls)}


def run_fleet(bench, size, label, concurrency):
    name = 'fleet task, concurrency %s' % (concurrency or 'default')
    with Fleet(bench, size, label) as fleet:
        extra = '        concurrency: %d\n' % concurrency if concurrency else ''
        playbook = bench.write(label + '.yml', FLEET_PLAYBOOK % {
            'cloud': bench.cloud, 'nodes': json.dumps(fleet.names), 'extra': extra})
        wall, results = bench.playbook(playbook)
        fleet.check(label)
        totals = results['localhost']['totals']
        samples = {name + ': ansible-playbook': (wall, totals['api_calls']),
                   name + ': module': (totals['seconds'], totals['api_calls'])}
        wall, results = bench.playbook(playbook)
        totals = results['localhost']['totals']
        if totals['changed']:
            raise common.BenchError('the rerun changed %d nodes' % totals['changed'])
        samples[name + ', no-op rerun: ansible-playbook'] = (wall, totals['api_calls'])
        samples[name + ', no-op rerun: module'] = (totals['seconds'], totals['api_calls'])
    return samples


def run_per_host(bench, size, label, forks):
    with Fleet(bench, size, label) as fleet:
        inventory = bench.write(label + '.ini', ''.join(
            '%s ansible_connection=local ansible_python_interpreter=%s\n' % (name, sys.executable)
            for name in fleet.names))
        playbook = bench.write(label + '.yml', PER_HOST_PLAYBOOK % {'cloud': bench.cloud})
        wall, results = bench.playbook(playbook, inventory=inventory, forks=forks)
        fleet.check(label)
    return {'one task per host, forks %d' % forks: (wall, sum(result['api_calls'] for result in results.values()))}


def measure(bench, size, concurrencies, repeat, per_host=True):
    """{path: [(seconds, API calls), ...]}: the floor and the fleet task interleaved, round after round, so that
    a load that comes and goes on the machine falls on both, the floor first in even rounds and last in odd ones (what
    one run leaves in Ironic falls on both alike); the per-host paths once (they are far slower)."""
    samples = {}

    def add(measured):
        for path, sample in measured.items():
            samples.setdefault(path, []).append(sample)
            print('  %s: %.2f s, %d API calls' % (path, sample[0], sample[1]), flush=True)

    for index in range(repeat):
        runs = [lambda: run_floor(bench, size, 'floor%d-%d' % (size, index))]
        runs.extend(lambda concurrency=concurrency: run_fleet(
            bench, size, 'fleet%d-c%s-%d' % (size, concurrency or 'default', index), concurrency)
            for concurrency in concurrencies)
        for run in runs[::-1] if index % 2 else runs:
            add(run())
    for forks in (5, 20) if per_host else ():
        add(run_per_host(bench, size, 'host%d-f%d' % (size, forks), forks))
    return samples


def report(size, samples):
    floor = statistics.median(seconds for seconds, _calls in samples[FLOOR])
    rows = []
    for path, values in samples.items():
        seconds = [value[0] for value in values]
        calls = statistics.median(value[1] for value in values)
        spread = '%.2f-%.2f' % (min(seconds), max(seconds)) if len(seconds) > 1 else ''
        rows.append((path, '%.2f' % statistics.median(seconds), spread, '%.2f' % (statistics.median(seconds) / floor),
                     '%d' % calls, '%.2f' % (calls / size)))
    print()
    print('%d fake-hardware nodes, enroll -> available (manage, provide); median of the runs' % size)
    print(common.table(('path', 'seconds', 'min-max', 'x floor', 'API calls', 'calls/node'), rows))


def main():
    parser = common.options_parser(__doc__)
    parser.add_argument('--sizes', type=int, nargs='+', default=[100, 300], help='fleet sizes (default 100 300)')
    parser.add_argument('--concurrency', type=int, nargs='*', default=[],
                        help='also run the fleet task with these concurrency values')
    parser.add_argument('--repeat', type=int, default=3,
                        help='rounds of the floor and the fleet task; medians are reported (default 3)')
    parser.add_argument('--split', action='store_true',
                        help='Ironic split: ironic-api and two conductors over json-rpc, on PostgreSQL')
    parser.add_argument('--no-per-host', dest='per_host', action='store_false', help='leave out the per-host paths')
    args = parser.parse_args()
    results = []
    with common.ironic(args.ironic_venv, args.keep, args.split) as bench:
        for size in args.sizes:
            print('%d nodes' % size, flush=True)
            results.append((size, measure(bench, size, [None] + args.concurrency, args.repeat, args.per_host)))
    for size, samples in results:
        report(size, samples)


if __name__ == '__main__':
    main()
