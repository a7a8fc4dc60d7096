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

    python bench/bench_all.py [--repeat 3] [--bulk 100] [--role-sizes 300] [--ironic-venv DIR]
"""

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


def measure_bulk(bench, size, repeat):
    """(module seconds, floor seconds), medians of interleaved rounds (bench_fleet.measure)."""
    samples = bench_fleet.measure(bench, size, [None], repeat, per_host=False)
    return median(samples['fleet task, concurrency default: module']), median(samples[bench_fleet.FLOOR])


def main():
    parser = common.options_parser(__doc__)
    parser.add_argument('--repeat', type=int, default=3, help='rounds of each measurement (at least 3)')
    parser.add_argument('--bulk', type=int, default=100, help='nodes of the bulk task (default 100)')
    parser.add_argument('--role-sizes', type=int, nargs='+', default=[300], help='fleet role sizes (default 300)')
    args = parser.parse_args()
    if args.repeat < 3:
        parser.error('--repeat must be at least 3')
    rows = []

    def add(what, seconds, floor, target):
        rows.append((what, '%.2f' % seconds, '%.2f' % floor if floor else '-',
                     '%.2f' % (seconds / floor) if floor else '-', target))
        print('  %s: %.2f s%s' % (what, seconds, ', floor %.2f s' % floor if floor else ''), flush=True)

    with common.ironic(args.ironic_venv, args.keep) as bench:
        medians, _calls = bench_single.run(bench, args.repeat)
        add('single node to active: module process', medians['cloud'], medians['floor'], 'no target')
        startup = bench_startup.measure(bench, args.repeat)
        add('start-up: one module process', median(startup['endpoint']), median(startup[bench_startup.FLOORS[0][0]]),
            '<= 1.6x')
        imports = dict((name, values) for (_checkout, name), values
                       in bench_startup.measure_imports(bench, max(args.repeat, 5)).items())
        slowest = max((name for name in imports if name != 'basic'), key=lambda name: median(imports[name]))
        add('import CPU: %s, the slowest module' % slowest, median(imports[slowest]), median(imports['basic']),
            '<= 1.6x')
        peer = bench_peer.measure(bench, args.repeat)
        for name in ('record (playbook)', 'deployed (playbook)'):
            add('one-node no-op rerun, %s, against openstack.cloud' % name.split()[0], median(peer[(name, 'ours')]),
                median(peer[(name, 'peer')]), '< 1x')
        add('bulk task: %d nodes to available' % args.bulk, *measure_bulk(bench, args.bulk, args.repeat),
            target='<= 1.2x')
        waves, _calls, count = bench_waves.measure(bench, 50, 10, args.repeat)
        add('waves: 50 nodes serviced, %d waves of 10' % count, waves['module'], waves['floor'], 'overhead/wave < 1 s')
        for size in args.role_sizes:
            samples = bench_fleet_role.measure(bench, size, args.repeat, 5, 1, None)
            floor = median(samples['floor: raw REST, same requests'])
            add('fleet role: %d nodes from nothing' % size, median(samples['role: nothing -> available']), floor,
                '<= 1.3x')
            add('fleet role: %d nodes, no-op rerun' % size, median(samples['role: no-op rerun']), None,
                '< 5 s at 300, < 4 s at 1,000')
    print()
    print('median of %d rounds; floors measured in the same run' % args.repeat)
    print(common.table(('measurement', 'seconds', 'floor s', 'x floor', 'target'), rows))


if __name__ == '__main__':
    main()
