# -*- coding: utf-8 -*-
"""What one module process costs, by how it is told where Ironic is.

Starts its own Ironic on a free loopback port and, in the same run, times baremetal_node_info reading one node
(a process as Ansible starts it on a host: Python, imports, connection, two requests):
  endpoint        endpoint: the baseline, nothing to read;
  cloud           cloud: a clouds.yaml entry with auth_type none (read without openstacksdk);
  cloud via sdk   the same entry with a regions list, which only openstacksdk resolves: what every cloud cost
                  before (openstacksdk's config import and parsing);
and a bare interpreter importing Ansible's module basics (alone, and with requests), the floors no module goes under.
Ratios are against the endpoint baseline and against the basics alone (issue 20's target: the endpoint process
within 1.6x of it), medians of the rounds, variants interleaved within each round.

    python bench/bench_startup.py [--rounds 5] [--ironic-venv DIR]
"""

import argparse
import statistics
import subprocess
import sys
import time

import common

NODE = 'bench-startup-node'


def clouds_yaml(bench):
    entry = '    auth_type: none\n    baremetal_endpoint_override: %s\n' % bench.endpoint
    return 'clouds:\n  %s:\n%s  %s-sdk:\n%s    regions: [RegionOne]\n' % (bench.cloud, entry, bench.cloud, entry)


def interpreter(imports):
    started = time.monotonic()
    subprocess.run([sys.executable, '-c', 'import %s' % imports], check=True)
    return time.monotonic() - started


# The floors no module goes under: Python with Ansible's module basics (issue 20's reference), and with requests too.
FLOORS = (('python + ansible basics', 'ansible.module_utils.basic'),
          ('python + ansible basics + requests', 'ansible.module_utils.basic, requests'))


def measure(bench, rounds):
    """{path: [seconds of each round]}: the module's variants and the floors, interleaved within each round."""
    bench.write('clouds.yaml', clouds_yaml(bench))
    bench.raw.call('POST', '/nodes', {'name': NODE, 'driver': 'fake-hardware'})
    variants = [('endpoint', dict(endpoint=bench.endpoint)), ('cloud', dict(cloud=bench.cloud)),
                ('cloud via sdk', dict(cloud=bench.cloud + '-sdk'))]
    samples = dict((name, []) for name, _ in variants + list(FLOORS))
    bench.module('baremetal_node_info', node=NODE, endpoint=bench.endpoint)  # warm the file cache
    for _round in range(rounds):
        for name, imports in FLOORS:
            samples[name].append(interpreter(imports))
        for name, connection in variants:
            seconds, result = bench.module('baremetal_node_info', node=NODE, **connection)
            if result.get('failed') or result['nodes'][0]['name'] != NODE:
                raise common.BenchError('%s: %s' % (name, result.get('msg')))
            samples[name].append(seconds)
    bench.raw.call('DELETE', '/nodes/%s' % NODE)
    return samples


def report(samples):
    baseline = statistics.median(samples['endpoint'])
    rows = [(name, '%.3f' % statistics.median(values), '%.2fx' % (statistics.median(values) / baseline),
             '%.2fx' % (statistics.median(values) / statistics.median(samples[FLOORS[0][0]])),
             '%.3f-%.3f' % (min(values), max(values))) for name, values in samples.items()]
    print(common.table(('one baremetal_node_info process', 'median s', 'vs endpoint', 'vs basics', 'range s'), rows))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=5, help='rounds (at least 3; the median is reported)')
    parser.add_argument('--ironic-venv', default=common.default_ironic_venv())
    options = parser.parse_args()
    if options.rounds < 3:
        parser.error('--rounds must be at least 3')
    with common.ironic(options.ironic_venv) as bench:
        samples = measure(bench, options.rounds)
    report(samples)


if __name__ == '__main__':
    main()
