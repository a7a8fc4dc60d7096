# -*- coding: utf-8 -*-
"""One fleet run as 1, 2 and 4 job slices at once (docs/awx-job-slicing.md), as AWX's job_slice_count runs it.

Starts its own split Ironic (ironic-api and two conductors over json-rpc, PostgreSQL) on loopback. For each fleet
size and slice count, a fleet file of fake-hardware nodes (bench_fleet_role.fleet_nodes: one port, two traits)
spread over 4 shards, from nothing to available:
  slices      N `ansible-runner run` processes started at once (what an AWX execution node runs per slice job),
              each with a private data directory holding the playbook and an inventory of only its slice's host (as
              AWX gives a slice job its part of the inventory: the hosts by name, every N-th from the N-th), each
              host the role with fleet_slice_key shard and the shards of its slice. Slicing by shard needs no
              conductor per slice: every node stays in the default conductor group, served by both conductors.
Reported per slice count: the wall time of the whole run; each slice's controller CPU (user + system of its
ansible-runner process and every process it waited for: ansible-playbook, its workers, the modules; os.wait4) and
its requests to Ironic (the api_calls of its tasks' results, from the runner's job events); their sums; the
overhead of slicing, the sums over the 1-slice row's; and the longest task result, which AWX would drop from its job
event past MAX_EVENT_RES_DATA (700,000 characters by default; the runner here keeps every result). On 2 cores the
slices share the CPU with Ironic and PostgreSQL: the wall time is no speed-up figure.

    python bench/bench_job_slices.py [--sizes 300] [--slices 1 2 4] [--ironic-venv DIR] [--keep]

ansible-runner (requirements-test.txt) next to the Python running this script, or on PATH.
"""

import json
import os
import subprocess
import time

import common
from bench_fleet_role import check_available, delete_fleet, fleet_nodes

SHARDS = 4
PLAYBOOK = '''---
- name: Converge the nodes of each slice of the fleet
  hosts: baremetal_slices
  gather_facts: false
  tasks:
    - name: Converge this slice's shards
      ansible.builtin.include_role:
        name: baremetal.lifecycle.fleet
      vars:
        fleet_slice: "{{ inventory_hostname }}"
'''


def inventory(slice_names, slices, fleet_file, cloud):
    """The inventory of one slice job: its hosts only, and the table of every slice."""
    return {'all': {'children': {'baremetal_slices': {
        'hosts': dict((name, None) for name in slice_names),
        'vars': {'ansible_connection': 'local', 'fleet_file': fleet_file, 'fleet_cloud': cloud,
                 'fleet_slice_key': 'shard', 'fleet_slices': slices}}}}}


def job_results(private_data_dir):
    """(requests, largest result) of a runner's job: the api_calls of every task result, summed, and the length of
    the longest result (as ansible-runner measures it against MAX_EVENT_RES), from its job events."""
    calls = largest = 0
    for directory, _subdirectories, files in os.walk(os.path.join(private_data_dir, 'artifacts')):
        if os.path.basename(directory) != 'job_events':
            continue
        for name in files:
            with open(os.path.join(directory, name)) as handle:
                event = json.load(handle)
            if event.get('event') in ('runner_on_ok', 'runner_on_failed'):
                result = (event.get('event_data') or {}).get('res')
                if not result:  # an Ansible result is never empty: the runner dropped it (MAX_EVENT_RES)
                    raise common.BenchError('%s: a task result was dropped from its job event' % directory)
                calls += int(result.get('api_calls') or 0)
                largest = max(largest, len(str(result)))
    return calls, largest


def private_data_dir(bench, label, number, playbook, slice_inventory):
    """An ansible-runner private data directory: project/slices.yml, inventory/hosts.json, env/envvars."""
    directory = os.path.join(bench.dir, '%s.slice-%d' % (label, number))
    for sub in ('project', 'inventory', 'env'):
        os.makedirs(os.path.join(directory, sub))
    # ansible-runner removes from a job event a task result longer than MAX_EVENT_RES characters (AWX passes its
    # MAX_EVENT_RES_DATA, 700,000 by default): the requests are counted from the results, so every one is kept here,
    # and the longest is reported beside AWX's limit.
    envvars = dict((key, value) for key, value in bench.env.items() if key.startswith(('ANSIBLE_', 'OS_')))
    envvars['MAX_EVENT_RES'] = str(10 ** 9)
    files = {'project/slices.yml': playbook, 'inventory/hosts.json': json.dumps(slice_inventory),
             'env/envvars': json.dumps(envvars)}
    for name, content in files.items():
        with open(os.path.join(directory, name), 'w') as handle:
            handle.write(content)
    return directory


def run_slices(bench, size, count):
    label = 'js%d-%d' % (size, count)
    nodes = fleet_nodes(size, label)
    for index, node in enumerate(nodes):
        node['shard'] = 'shard-%d' % (index % SHARDS)
    fleet_file = bench.write(label + '.fleet.json', json.dumps(nodes))
    names = ['slice-%d' % number for number in range(1, count + 1)]
    slices = dict((name, ['shard-%d' % shard for shard in range(SHARDS) if shard % count == index])
                  for index, name in enumerate(names))
    directories = [private_data_dir(bench, label, number, PLAYBOOK, inventory(
        sorted(names)[number - 1::count], slices, fleet_file, bench.cloud)) for number in range(1, count + 1)]
    # The runner finds ansible-playbook on PATH: this Python's first.
    env = dict(bench.env, PATH=os.path.dirname(common.tool('ansible-playbook')) + os.pathsep + os.environ['PATH'])
    started = time.monotonic()
    slices = [common.start_measured([common.tool('ansible-runner'), 'run', directory, '-p', 'slices.yml'],
                                    env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
              for directory in directories]
    rows = []
    for slice_, directory in zip(slices, directories):
        returncode, cpu, _peak = common.wait_usage(slice_)
        if returncode:
            raise common.BenchError('a slice of %d failed (rc %d); see %s' % (count, returncode, directory))
        rows.append((cpu,) + job_results(directory))
    seconds = time.monotonic() - started
    check_available(bench.raw, size, '%d slices' % count, label)
    delete_fleet(bench.raw, label)
    return seconds, rows


def main():
    parser = common.options_parser(__doc__)
    parser.add_argument('--sizes', type=int, nargs='+', default=[300], help='fleet sizes (default 300)')
    parser.add_argument('--slices', type=int, nargs='+', default=[1, 2, 4], help='slice counts (default 1 2 4)')
    args = parser.parse_args()
    if any(count not in (1, 2, 4) for count in args.slices):
        parser.error('--slices: 1, 2 or 4 (the fleet has %d shards)' % SHARDS)
    results = []
    with common.ironic(args.ironic_venv, args.keep, split=True) as bench:
        for size in args.sizes:
            for count in args.slices:
                print('%d nodes, %d slices' % (size, count), flush=True)
                seconds, rows = run_slices(bench, size, count)
                print('  %.1f s; per slice: %s' % (seconds, ', '.join(
                    'CPU %.2f s, %d requests, longest result %d characters' % row for row in rows)), flush=True)
                results.append((size, count, seconds, rows))
    table = []
    for size, count, seconds, rows in results:
        base = [result for result in results if result[0] == size and result[1] == 1]
        cpu, calls = sum(row[0] for row in rows), sum(row[1] for row in rows)
        base_cpu = sum(row[0] for row in base[0][3]) if base else None
        base_calls = sum(row[1] for row in base[0][3]) if base else None
        table.append((size, count, '%.1f' % seconds, ' '.join('%.2f' % row[0] for row in rows), '%.2f' % cpu,
                      ' '.join('%d' % row[1] for row in rows), calls,
                      '%.2fx' % (cpu / base_cpu) if base_cpu else '-',
                      '%.2fx' % (calls / base_calls) if base_calls else '-', max(row[2] for row in rows)))
    print()
    print('fake-hardware nodes in %d shards, nothing -> available, the slices at once on one split Ironic' % SHARDS)
    print(common.table(('nodes', 'slices', 'wall s', 'CPU s per slice', 'CPU s sum', 'requests per slice',
                        'requests sum', 'CPU vs 1 slice', 'requests vs 1 slice',
                        'longest result (AWX keeps 700,000)'), table))


if __name__ == '__main__':
    main()
