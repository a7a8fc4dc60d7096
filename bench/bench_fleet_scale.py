# -*- coding: utf-8 -*-
"""One fleet from 1,000 to 10,000 nodes on Ironic as operators run it (issue 44): the fleet role, its rerun, one BMC
password per node, the inventory plugin, the fleet report, and the controller's peak memory.

Starts its own split Ironic (ironic-api and two conductors over json-rpc, PostgreSQL: the fleet role's production
topology) on loopback, two for each round: the floor's, then the role's and the rest's, each stopped when its part
is done. Each part starts from an empty database, and no round waits for its nodes' deletion (two writes a node,
about 0.12 s: 4 minutes of a 1,000-node round, 40 of a 10,000-node one; a split Ironic starts and stops in 40 s).
For each size, --repeat rounds, each on fleets of its own (bench_fleet_role.fleet_nodes: one port, two traits, and
here a driver_info with a BMC password of its own per node):
  floor        raw REST doing the role's requests, back to back (bench_fleet_role.run_floor);
  role         the fleet role from nothing to available over a fleet file encrypted as a whole with Ansible Vault (as
               roles/fleet/README.md shows), run with --vault-password-file;
  rerun        the role again over the same file: a no-op (changed=0), --reruns times;
  empty play   ansible-playbook of a play with no task: the fixed cost of a play, which the rerun's linearity is
               judged above;
  records      baremetal_node with nodes (a module process, as Ansible runs it on a host) declaring every node with its
               BMC password, and the same declarations without driver_info: both no-ops on the fleet just converged;
  inventory    ansible-inventory --list over the fleet with the plugin (baremetal.lifecycle.ironic): without a cache,
               then with the jsonfile cache, filled by a first run and read by the second;
  report       the module baremetal_fleet_report with the fleet (a process, as Ansible runs it), and the playbook
               playbooks/fleet_report.yml with the fleet file, against the floor of the module's reads
               (bench_fleet_report).
Each figure: wall seconds, the controller's CPU (user + system of the command and every process it waited for) and
its peak resident memory (the largest of those processes, os.wait4's ru_maxrss; not their sum at one moment).
Reported per size: medians of the rounds, each against its floor where it has one, and per node.

A round at 10,000 nodes sends over 100,000 requests to one ironic-api worker (the floor's and the role's enrolments,
the report's reads): 45 minutes on the 2-core machine of its first round, about two hours on the slower machine
of the rounds before it (bench/README.md), so the 10,000 row is one round.

    python bench/bench_fleet_scale.py [--sizes 1000 3000] [--repeat 3] [--reruns 1] [--ironic-venv DIR] [--keep]
"""

import collections
import json
import os
import statistics
import subprocess
import sys
import time

import bench_fleet_report
import bench_fleet_role
import common

VAULT_PASSWORD = 'bench-vault-password'
EMPTY_PLAY = '''---
- name: Nothing
  hosts: localhost
  gather_facts: false
  tasks: []
'''
INVENTORY = '''plugin: baremetal.lifecycle.ironic
cloud: %(cloud)s
cache: %(cache)s
cache_plugin: ansible.builtin.jsonfile
cache_connection: %(cache_dir)s
cache_timeout: 3600
'''

Run = collections.namedtuple('Run', 'seconds cpu peak_mib output')


def run(bench, command, name, env=None):
    """Run command in the bench's environment (or env): a Run (wall s, controller CPU s, peak resident MiB, output),
    its output kept in name.log; a failure is a BenchError with the output's end."""
    log = os.path.join(bench.dir, name + '.log')
    with open(log, 'w') as handle:
        started = time.monotonic()
        returncode, cpu, peak = common.wait_usage(common.start_measured(
            command, env=env or bench.env, stdout=handle, stderr=subprocess.STDOUT))
        seconds = time.monotonic() - started
    with open(log) as handle:
        output = handle.read()
    if returncode:
        raise common.BenchError('%s failed (rc %d): %s' % (name, returncode, output[-3000:]))
    return Run(seconds, cpu, peak, output)


def vaulted_fleet_file(bench, nodes, label):
    """The fleet file of nodes, encrypted as a whole with ansible-vault; (its path, the vault password file)."""
    path = bench.write(label + '.fleet.yml', json.dumps(nodes))
    password_file = bench.write('vault-password', VAULT_PASSWORD)
    subprocess.run([common.tool('ansible-vault'), 'encrypt', '--vault-password-file', password_file, path],
                   env=bench.env, check=True, capture_output=True)
    return path, password_file


def changed_of(run_, name):
    """localhost's changed count from a run's recap; a failed or unreachable host is a BenchError."""
    recap = bench_fleet_role.RECAP.search(run_.output)
    if not recap or int(recap.group(3)) or int(recap.group(4)):
        raise common.BenchError('%s: no clean recap: %s' % (name, run_.output[-3000:]))
    return int(recap.group(2))


def records_task(bench, nodes, with_passwords):
    """baremetal_node with nodes, every node declared as enrolled, with or without its driver_info: a Run."""
    declared = [dict((key, value) for key, value in node.items()
                     if with_passwords or key not in ('driver_info', 'validate_driver_info')) for node in nodes]
    args_file = bench.write('records.args.json', json.dumps({'ANSIBLE_MODULE_ARGS': {
        'cloud': bench.cloud, 'nodes': declared}}))
    name = 'records-%s' % ('passwords' if with_passwords else 'no-driver-info')
    found = run(bench, [sys.executable, os.path.join(bench.checkout, 'plugins', 'modules', 'baremetal_node.py'),
                        args_file], name, env=dict(bench.env, PYTHONPATH=bench.collections))
    result = json.loads(found.output[found.output.index('{'):])
    if result.get('failed') or result.get('changed'):
        raise common.BenchError('%s is no no-op: %s' % (name, str(result.get('msg') or result.get('failed_nodes'))))
    secret = next(node['driver_info']['ipmi_password'] for node in nodes)
    if secret in found.output:
        raise common.BenchError('%s: a BMC password is in the module\'s output' % name)
    return found


def inventory_runs(bench, size, label):
    """{path: Run} of ansible-inventory --list without a cache, then filling the cache and reading it."""
    cache_dir = os.path.join(bench.dir, label + '.inventory-cache')
    runs = {}
    for path, cache in (('inventory: no cache', 'false'), ('inventory: cache filled', 'true'),
                        ('inventory: cache read', 'true')):
        source = bench.write('%s.ironic.yml' % label, INVENTORY % {'cloud': bench.cloud, 'cache': cache,
                                                                   'cache_dir': cache_dir})
        runs[path] = run(bench, [common.tool('ansible-inventory'), '-i', source, '--list'], label + '-inventory')
        hosts = json.loads(runs[path].output[runs[path].output.index('{'):])['ironic']['hosts']
        if len([host for host in hosts if host.startswith(label + '-')]) != size:
            raise common.BenchError('%s listed %d of the %d nodes' % (path, len(hosts), size))
    return runs


def report_runs(bench, fleet_file, password_file, nodes):
    """{path: Run} of the fleet report: the module alone (one process, as Ansible runs it), the playbook, and their
    floor, the same reads over raw REST (wall seconds only)."""
    seconds, cpu, _result = bench_fleet_report.run_module(bench, nodes)
    module = Run(seconds, cpu, None, '')
    report_dir = os.path.join(bench.dir, 'report')
    played = run(bench, [common.tool('ansible-playbook'), os.path.join(bench.checkout, 'playbooks', 'fleet_report.yml'),
                         '--vault-password-file', password_file, '-e', 'fleet_cloud=%s' % bench.cloud,
                         '-e', 'report_dir=%s' % report_dir, '-e', 'fleet_file=%s' % fleet_file], 'report')
    floor = bench_fleet_report.run_floor(bench, nodes)
    return {'report: module baremetal_fleet_report': module, 'report: playbook fleet_report.yml': played,
            'report: floor, same reads': Run(floor, None, None, '')}


def progress(runs, path):
    """Print the figure of path just measured: a long round (45 minutes to two hours at 10,000 nodes) shows its
    figures as it goes, and an interrupted one keeps those it measured."""
    print('  %s: %.1f s' % (path, runs[path].seconds), flush=True)


def measure_round(args, size, index):
    """{path: Run} of one round at size: the floor on an Ironic of its own, the rest on another."""
    with common.ironic(args.ironic_venv, args.keep, split=True) as bench:
        floor = bench_fleet_role.run_floor(bench, size, 'f%d-%d' % (size, index), passwords=True)
    runs = {'floor: raw REST, same requests': Run(floor['floor: raw REST, same requests'][0], None, None, '')}
    progress(runs, 'floor: raw REST, same requests')
    with common.ironic(args.ironic_venv, args.keep, split=True) as bench:
        runs.update(measure_role(bench, size, index, args.reruns))
    return runs


def measure_role(bench, size, index, reruns):
    """{path: Run} of the role, its reruns, the empty play, the records, the inventory and the report at size."""
    runs = {}
    label = 's%d-%d' % (size, index)
    nodes = bench_fleet_role.fleet_nodes(size, label, passwords=True)
    fleet_file, password_file = vaulted_fleet_file(bench, nodes, label)
    playbook = bench.write(label + '.yml', bench_fleet_role.ROLE_PLAYBOOK % {
        'fleet_file': fleet_file, 'cloud': bench.cloud, 'settings': ''})
    command = [common.tool('ansible-playbook'), playbook, '--vault-password-file', password_file]
    runs['role: nothing -> available'] = run(bench, command, label + '-role')
    bench_fleet_role.check_available(bench.raw, size, 'role', label)
    progress(runs, 'role: nothing -> available')
    for rerun in range(reruns):
        runs['role: no-op rerun %d' % rerun] = run(bench, command, label + '-rerun')
        if changed_of(runs['role: no-op rerun %d' % rerun], 'rerun'):
            raise common.BenchError('the rerun reported a change')
        progress(runs, 'role: no-op rerun %d' % rerun)
    runs['empty play'] = run(bench, [common.tool('ansible-playbook'), bench.write('empty.yml', EMPTY_PLAY)], 'empty')
    runs['records: a BMC password per node'] = records_task(bench, nodes, True)
    runs['records: no driver_info'] = records_task(bench, nodes, False)
    runs.update(inventory_runs(bench, size, label))
    runs.update(report_runs(bench, fleet_file, password_file, nodes))
    return runs


# The paths measured against a floor, and their floor.
FLOORS = {'role: nothing -> available': 'floor: raw REST, same requests',
          'report: module baremetal_fleet_report': 'report: floor, same reads',
          'report: playbook fleet_report.yml': 'report: floor, same reads'}


def medians(rounds):
    """{path: [Run of each round]}, the reruns of a round as samples of one path, 'role: no-op rerun'."""
    samples = collections.OrderedDict()
    for runs in rounds:
        for path, found in runs.items():
            samples.setdefault(path.rsplit(' ', 1)[0] if path.startswith('role: no-op rerun') else path,
                               []).append(found)
    return samples


def median_seconds(found):
    return statistics.median(run_.seconds for run_ in found)


def report(size, samples):
    """The table of one size: each path's medians, against its floor where it has one."""
    rows = []
    for path, found in samples.items():
        seconds = median_seconds(found)
        floor = median_seconds(samples[FLOORS[path]]) if path in FLOORS else None
        cpu = [run_.cpu for run_ in found if run_.cpu is not None]
        peak = [run_.peak_mib for run_ in found if run_.peak_mib is not None]
        rows.append((path, '%.2f' % seconds, '%.2f-%.2f' % (min(run_.seconds for run_ in found),
                                                            max(run_.seconds for run_ in found)),
                     '%.2f' % (seconds / floor) if floor else '-', '%.2f' % (1000.0 * seconds / size),
                     '%.1f' % statistics.median(cpu) if cpu else '-',
                     '%.0f' % statistics.median(peak) if peak else '-', len(found)))
    print()
    print('{:,} fake-hardware nodes (one port, two traits, a BMC password each) on a split Ironic; medians of the '
          'rounds'.format(size))
    print(common.table(('path', 'seconds', 'min-max', 'x floor', 'ms/node', 'controller CPU s', 'peak MiB',
                        'rounds'), rows))


def targets(results):
    """Issue 44's targets, per size: the role against its floor (<= 1.15x); the rerun above a play's fixed cost, per
    node, against the smallest size's (linear is 1.00; at 10,000 against 1,000 the target allows 1.10); a password
    per node against none (<= 1.3x); the report against its reads (<= 1.2x)."""
    first_size, first = results[0]
    first_rerun = median_seconds(first['role: no-op rerun']) - median_seconds(first['empty play'])
    rows = []
    for size, samples in results:
        rerun = median_seconds(samples['role: no-op rerun']) - median_seconds(samples['empty play'])
        rows.append(('{:,}'.format(size),
                     '%.2f' % (median_seconds(samples['role: nothing -> available'])
                               / median_seconds(samples['floor: raw REST, same requests'])),
                     '%.2f s, %.2f per node vs %d' % (rerun, rerun / first_rerun / (size / first_size), first_size),
                     '%.2f' % (median_seconds(samples['records: a BMC password per node'])
                               / median_seconds(samples['records: no driver_info'])),
                     '%.2f' % (median_seconds(samples['report: module baremetal_fleet_report'])
                               / median_seconds(samples['report: floor, same reads']))))
    print()
    print(common.table(('nodes', 'role x floor (<= 1.15)', 'rerun above the empty play (linear: 1.00)',
                        'records, passwords x none (<= 1.3)', 'report module x its reads (<= 1.2)'), rows))


def main():
    parser = common.options_parser(__doc__)
    parser.add_argument('--sizes', type=int, nargs='+', default=[1000, 3000], help='fleet sizes (default 1000 3000)')
    parser.add_argument('--repeat', type=int, default=3, help='rounds per size (default 3; 1 at 10,000)')
    parser.add_argument('--reruns', type=int, default=1, help='no-op reruns of the role per round (default 1)')
    args = parser.parse_args()
    results = []
    for size in args.sizes:
        rounds = []
        for index in range(args.repeat):
            started = time.monotonic()
            rounds.append(measure_round(args, size, index))
            print('{:,} nodes, round {}: {:.0f} s; {}'.format(
                size, index + 1, time.monotonic() - started,
                ', '.join('%s %.1f s' % (path, found.seconds) for path, found in rounds[-1].items())), flush=True)
        results.append((size, rounds))
    results = [(size, medians(rounds)) for size, rounds in results]
    for size, samples in results:
        report(size, samples)
    targets(results)


if __name__ == '__main__':
    main()
