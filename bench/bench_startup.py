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

Then what importing each module costs (issue 28's target: every module within 1.4x of the basics): the CPU seconds
(user + system, steadier than wall time on a busy machine) of a Python that imports the module and exits, against
one that imports ansible.module_utils.basic, interleaved, the median of the rounds. Our files are compiled as they
are imported (PYTHONDONTWRITEBYTECODE, as Ansible's zipped payload does on a host), Ansible's come compiled.

    python bench/bench_startup.py [--rounds 5] [--ironic-venv DIR]
"""

import os
import resource
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


BASICS = 'ansible.module_utils.basic'


def modules():
    """The collection's modules, by name."""
    return sorted(name[:-3] for name in os.listdir(os.path.join(common.ROOT, 'plugins', 'modules'))
                  if name.endswith('.py') and not name.startswith('_'))


def import_cpu(bench, name):
    """CPU seconds of a Python that imports name and exits."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, '-c', 'import %s' % name], check=True,
                   env=dict(bench.env, PYTHONPATH=bench.collections, PYTHONDONTWRITEBYTECODE='1'))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def measure_imports(bench, rounds):
    """{module or BASICS: [CPU seconds of each round]}, interleaved within each round."""
    names = [BASICS] + ['ansible_collections.baremetal.lifecycle.plugins.modules.%s' % name for name in modules()]
    samples = dict((name.split('.')[-1], []) for name in names)
    for _round in range(rounds):
        for name in names:
            samples[name.split('.')[-1]].append(import_cpu(bench, name))
    return samples


def report_imports(samples):
    basics = statistics.median(samples['basic'])
    rows = [(name, '%.3f' % statistics.median(values), '%.2fx' % (statistics.median(values) / basics))
            for name, values in sorted(samples.items(), key=lambda item: -statistics.median(item[1]))]
    print(common.table(('importing', 'median CPU s', 'vs basics (target <= 1.4x)'), rows))


def report(samples):
    baseline = statistics.median(samples['endpoint'])
    rows = [(name, '%.3f' % statistics.median(values), '%.2fx' % (statistics.median(values) / baseline),
             '%.2fx' % (statistics.median(values) / statistics.median(samples[FLOORS[0][0]])),
             '%.3f-%.3f' % (min(values), max(values))) for name, values in samples.items()]
    print(common.table(('one baremetal_node_info process', 'median s', 'vs endpoint', 'vs basics', 'range s'), rows))


def main():
    options = common.rounds_options(__doc__)
    with common.ironic(options.ironic_venv) as bench:
        samples = measure(bench, options.rounds)
        imports = measure_imports(bench, options.rounds)
    report(samples)
    report_imports(imports)


if __name__ == '__main__':
    main()
