# -*- coding: utf-8 -*-
"""Every ratio in one table, each against a floor measured in the same run: what `make bench` prints.

Starts one Ironic on a free loopback port and runs, --repeat rounds each (medians of the rounds):
  single node   one node enroll -> active: the module process (clouds.yaml cloud) against raw REST (bench_single);
  start-up      one baremetal_node_info process (endpoint) against Python importing ansible.module_utils.basic
                alone, and the CPU time of importing the slowest module against importing the basics (bench_startup);
  peer          one node already as declared, baremetal_node and baremetal_provision_state against
                openstack.cloud 2.5's baremetal_node and baremetal_node_action on the same Ironic, in a playbook of
                one task each; the "floor" is the peer's time (bench_peer);
  bulk task     --bulk nodes enroll -> available, baremetal_provision_state with nodes and the module's defaults,
                the module's own seconds, against raw REST issuing every verb at once (bench_fleet);
  waves         50 active nodes serviced in waves of 10 against raw REST doing the same waves (bench_waves);
  fleet role    --role-sizes nodes from nothing against raw REST doing the same requests, and the no-op rerun
                (in seconds: its target is absolute) (bench_fleet_role).
Each line names its target. A regression shows as a ratio over its target, the day it happens.

With --old-checkout DIR (a worktree of an older commit), every measurement runs for that checkout's collection too,
on the same Ironic, one round at a time, the two checkouts taking turns (which goes first alternates by round): a
change before and after, in one run, each row with the spread of its rounds. It takes about twice as long.
With --only NAME [NAME ...] (single, start-up, imports, peer, bulk, waves, role), only those rows.

    python bench/bench_all.py [--repeat 3] [--bulk 100] [--role-sizes 300] [--ironic-venv DIR] [--old-checkout DIR]
                              [--only NAME ...]
"""

import os
import statistics

import bench_fleet
import bench_fleet_role
import bench_peer
import bench_single
import bench_startup
import bench_waves
import common


def median(samples):
    return statistics.median(sample[0] if isinstance(sample, tuple) else sample for sample in samples)


# Each measurement: (bench, rounds, options) -> [(what, seconds, floor seconds or None, target)], medians of the rounds.
def single_node(bench, rounds, options):
    medians, _calls = bench_single.run(bench, rounds)
    return [('single node to active: module process', medians['cloud'], medians['floor'], 'no target')]


def start_up(bench, rounds, options):
    samples = bench_startup.measure(bench, rounds)
    return [('start-up: one module process', median(samples['endpoint']), median(samples[bench_startup.FLOORS[0][0]]),
             '<= 1.6x')]


def peer(bench, rounds, options):
    samples = bench_peer.measure(bench, rounds)
    return [('one-node no-op rerun, %s, against openstack.cloud' % name.split()[0], median(samples[(name, 'ours')]),
             median(samples[(name, 'peer')]), '< 1x') for name in ('record (playbook)', 'deployed (playbook)')]


def bulk(bench, rounds, options):
    """The module's own seconds against the floor's, interleaved rounds (bench_fleet.measure)."""
    samples = bench_fleet.measure(bench, options.bulk, [None], rounds, per_host=False)
    module = median(samples['fleet task, concurrency default: module'])
    return [('bulk task: %d nodes to available' % options.bulk, module, median(samples[bench_fleet.FLOOR]), '<= 1.2x')]


def waves(bench, rounds, options):
    medians, _calls, count = bench_waves.measure(bench, 50, 10, rounds)
    return [('waves: 50 nodes serviced, %d waves of 10' % count, medians['module'], medians['floor'],
             'overhead/wave < 1 s')]


def fleet_role(bench, rounds, options):
    rows = []
    for size in options.role_sizes:
        samples = bench_fleet_role.measure(bench, size, rounds, 5, 1, None)
        rows += [('fleet role: %d nodes from nothing' % size, median(samples['role: nothing -> available']),
                  median(samples['floor: raw REST, same requests']), '<= 1.3x'),
                 ('fleet role: %d nodes, no-op rerun' % size, median(samples['role: no-op rerun']), None,
                  '< 5 s at 300, < 4 s at 1,000')]
    return rows


def import_rounds(bench, rounds, old_checkout):
    """The CPU of importing the slowest module against the basics, {'this' or 'old': [[row] of each round]}: the old
    checkout's rows are of the same module, measured in the same rounds (bench_startup.measure_imports interleaves
    the two checkouts' imports)."""
    samples = bench_startup.measure_imports(bench, rounds, old_checkout)
    slowest = max((name for checkout, name in samples if checkout == 'this' and name != 'basic'),
                  key=lambda name: median(samples['this', name]))
    what = 'import CPU: %s, the slowest module' % slowest
    return dict((checkout, [[(what, cpu, basics, '<= 1.6x')] for cpu, basics
                            in zip(samples[checkout, slowest], samples['this', 'basic'])])
                for checkout in ('this', 'old') if (checkout, slowest) in samples)


# Each measurement by the name --only takes, in the table's order.
MEASUREMENTS = (('single', single_node), ('start-up', start_up), ('imports', 'imports'), ('peer', peer), ('bulk', bulk),
                ('waves', waves), ('role', fleet_role))


def chosen(options):
    """The measurements options.only names (every one without it), in the table's order."""
    return [measurement for name, measurement in MEASUREMENTS if not options.only or name in options.only]


def one_checkout(bench, options):
    """The table's rows: (what, seconds, floor, x floor, target)."""
    rows = []
    for measurement in chosen(options):
        if measurement == 'imports':
            rounds = import_rounds(bench, max(options.repeat, 5), None)['this']
            found = [(rounds[0][0][0], median(row[1] for [row] in rounds), median(row[2] for [row] in rounds),
                      rounds[0][0][3])]
        else:
            found = measurement(bench, options.repeat, options)
        for what, seconds, floor, target in found:
            print('  %s: %.2f s%s' % (what, seconds, ', floor %.2f s' % floor if floor else ''), flush=True)
            rows.append((what, '%.2f' % seconds, '%.2f' % floor if floor else '-',
                         '%.2f' % (seconds / floor) if floor else '-', target))
    return rows


def spread(rounds):
    """'median (min-max)' of the rounds' ratios to their floors, or of their seconds where there is no floor."""
    values = [seconds / floor if floor else seconds for _what, seconds, floor, _target in rounds]
    return '%.2f (%.2f-%.2f)' % (statistics.median(values), min(values), max(values))


def two_checkouts(bench, options):
    """The table's rows with this checkout and the old one side by side: (what, this, old, target), each 'x floor'
    (or seconds) as the median and the spread of the rounds, the two checkouts taking turns round by round."""
    checkouts = [('this', bench), ('old', bench.of_checkout(options.old_checkout))]
    rows = []
    for measurement in chosen(options):
        if measurement == 'imports':  # one call: its rounds interleave the two checkouts' imports already
            rounds = import_rounds(bench, max(options.repeat, 5), options.old_checkout)
        else:
            rounds = {'this': [], 'old': []}
            for index in range(options.repeat):
                for checkout, view in checkouts if index % 2 == 0 else checkouts[::-1]:
                    rounds[checkout].append(measurement(view, 1, options))
                    print('  round %d, %s checkout: %s' % (index + 1, checkout, rounds[checkout][-1]), flush=True)
        for index, (what, _seconds, _floor, target) in enumerate(rounds['this'][0]):
            rows.append((what,) + tuple(spread([found[index] for found in rounds[checkout]])
                                        for checkout, _view in checkouts) + (target,))
    return rows


def main():
    parser = common.options_parser(__doc__)
    parser.add_argument('--repeat', type=int, default=3, help='rounds of each measurement (at least 3)')
    parser.add_argument('--bulk', type=int, default=100, help='nodes of the bulk task (default 100)')
    parser.add_argument('--role-sizes', type=int, nargs='+', default=[300], help='fleet role sizes (default 300)')
    parser.add_argument('--old-checkout', metavar='DIR',
                        help='also measure the collection of this checkout, round by round with this one')
    parser.add_argument('--only', nargs='+', choices=[name for name, _measurement in MEASUREMENTS], metavar='NAME',
                        help='run only these measurements: %s' % ' '.join(name for name, _measurement in MEASUREMENTS))
    options = parser.parse_args()
    if options.repeat < 3:
        parser.error('--repeat must be at least 3')
    if options.old_checkout and not os.path.isdir(os.path.join(options.old_checkout, 'plugins', 'modules')):
        parser.error('--old-checkout %s holds no plugins/modules: give a checkout of this collection'
                     % options.old_checkout)
    with common.ironic(options.ironic_venv, options.keep) as bench:
        if options.old_checkout:
            rows = two_checkouts(bench, options)
            headers = ('measurement', 'x floor (rounds)', 'old checkout: x floor (rounds)', 'target')
        else:
            rows = one_checkout(bench, options)
            headers = ('measurement', 'seconds', 'floor s', 'x floor', 'target')
    print()
    print('median of %d rounds; floors measured in the same run%s' % (
        options.repeat, '; rows without a floor in seconds' if options.old_checkout else ''))
    print(common.table(headers, rows))


if __name__ == '__main__':
    main()
