# -*- coding: utf-8 -*-
"""The fleet report (playbooks/fleet_report.yml) on a fleet of N nodes, against a raw REST floor doing the same reads.

Starts its own Ironic on a free loopback port and enrolls N fake-hardware nodes over REST (three resource classes,
one node in ten in maintenance, two traits each), then gives each node the firmware components Ironic's Redfish
interface would have cached (a BMC and a BIOS version, one node in twenty with an older BMC), written into Ironic's
SQLite database: fake-hardware records none. The fleet file declares every node (its resource class and traits, and
for one node in ten BIOS settings and a BMC version); one node in ten of it drifts.

In interleaved rounds (medians reported):
  floor       raw REST, the same reads: one list of the nodes (the report's fields), then each node's firmware
              components and the BIOS settings of the nodes whose declaration has some, eight at a time (as the
              module reads them);
  module      the module baremetal_fleet_report alone, with the same fleet (one process, as Ansible runs it);
  playbook    ansible-playbook playbooks/fleet_report.yml -e fleet_cloud=... -e report_dir=... -e fleet_file=...,
              wall time of the whole run (reading and validating the fleet file, the report, the JSON and the HTML).

With --page-sizes N [N ...], the HTML page alone, without Ironic: for each size a page of N nodes written by
Ansible's template module from a report that the collection's code builds (tests/integration/report_pages.py: one
node in ten drifted), opened in headless Chromium (Debian's chromium, as the tests run it), --repeat rounds. Each
round gives the milliseconds from the start of the navigation to the page's script done and its table laid out, then
those of each action as the page's own events run it, laid out again: a sort by name (a click on its header), the
filter (typing "active", a word of one node in three) and, where the page has the button (since issue 44 the table
holds the first 500 rows of its order and filter), showing all the nodes. The table gives their medians, and how the
load and the sort grew per node from the first size (1.00: linear).

    python bench/bench_fleet_report.py [--nodes 300] [--repeat 3] [--ironic-venv DIR] [--keep]
    python bench/bench_fleet_report.py --page-sizes 1000 3000 10000 [--repeat 3]
"""

import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import common

# The page's builder and Chromium's runner are the tests' (tests/integration): the bench opens the page the test
# opens, and stops every Chromium process it starts as the tests do.
sys.path.insert(0, os.path.join(common.ROOT, 'tests', 'integration'))

FIELDS = ('uuid,name,provision_state,target_provision_state,power_state,target_power_state,maintenance,'
          'maintenance_reason,fault,retired,retired_reason,protected,protected_reason,inspection_finished_at,'
          'last_error,disable_power_off,health,resource_class,owner,properties,traits,raid_config,target_raid_config')
CLASSES = ('gold', 'silver', 'bronze')
CONCURRENCY = 8  # the module's per-node reads at once (fleet/report.py READ_CONCURRENCY)


def name_of(index):
    return 'rack%d-node%02d' % (index // 40 + 1, index % 40 + 1)


def enroll(bench, size):
    """N nodes over REST, and their firmware components in Ironic's database; their UUIDs."""
    raw = bench.raw
    uuids = []
    for index in range(size):
        node = raw.call('POST', '/nodes', {'name': name_of(index), 'driver': 'fake-hardware',
                                           'resource_class': CLASSES[index % 3],
                                           'properties': {'cpu_arch': 'x86_64', 'vendor': 'Contoso'}})
        raw.call('PUT', '/nodes/%s/traits' % node['uuid'], {'traits': ['CUSTOM_BENCH', 'CUSTOM_RACK%d' % (index // 40)]})
        if index % 10 == 9:
            raw.call('PUT', '/nodes/%s/maintenance' % node['uuid'], {'reason': 'bench: replacing a fan'})
        uuids.append(node['uuid'])
    with sqlite3.connect(os.path.join(bench.dir, 'ironic', 'ironic.sqlite'), timeout=60) as database:
        rows = database.execute('SELECT id, name FROM nodes').fetchall()
        for node_id, name in rows:
            index = int(name.split('node')[1]) - 1 + 40 * (int(name.split('-')[0][4:]) - 1)
            for component, version in (('bmc', '2.8' if index % 20 == 7 else '2.10'), ('bios', '1.4.2')):
                database.execute(
                    'INSERT INTO firmware_information (node_id, component, initial_version, current_version, vendor, '
                    "model, created_at, version) VALUES (?, ?, ?, ?, 'Contoso', 'R640', datetime('now'), '1.2')",
                    (node_id, component, version, version))
    return uuids


def fleet_file(bench, size):
    nodes = []
    for index in range(size):
        node = {'name': name_of(index), 'driver': 'fake-hardware', 'resource_class': CLASSES[index % 3],
                'traits': ['CUSTOM_BENCH', 'CUSTOM_RACK%d' % (index // 40)]}
        if index % 10 == 3:
            node['resource_class'] = 'gold-declared'  # drift
        if index % 10 == 5:
            node['bios_settings'] = {'ProcTurboMode': 'Enabled'}  # fake-hardware caches none: drift
            node['firmware'] = [{'component': 'bmc', 'version': '2.10', 'url': 'http://127.0.0.1:9/bmc.bin'}]
        nodes.append(node)
    return bench.write('fleet.yml', json.dumps(nodes)), nodes


def children_cpu():
    """CPU seconds (user + system) of the finished child processes (ansible-playbook, its workers, the module); Ironic
    is not a child."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_floor(bench, declared):
    started = time.monotonic()
    nodes = bench.raw.list_nodes(fields=FIELDS)
    bios = set(node['name'] for node in declared if node.get('bios_settings'))
    reads = [('/nodes/%s/firmware' % node['uuid'], None) for node in nodes]
    reads += [('/nodes/%s/bios' % node['uuid'], {'detail': 'true'}) for node in nodes if node['name'] in bios]
    clients = [common.RawIronic(bench.endpoint) for _index in range(CONCURRENCY)]
    with ThreadPoolExecutor(max_workers=CONCURRENCY) as pool:
        list(pool.map(lambda index: [clients[index].call('GET', path, params=params)
                                     for path, params in reads[index::CONCURRENCY]], range(CONCURRENCY)))
    return time.monotonic() - started


def run_module(bench, declared):
    cpu = children_cpu()
    seconds, result = bench.module('baremetal_fleet_report', cloud=bench.cloud, fleet=[
        dict((key, value) for key, value in node.items() if key != 'driver') for node in declared])
    if result.get('failed'):
        raise common.BenchError('the module failed: %s' % result.get('msg'))
    return seconds, children_cpu() - cpu, result


def run_playbook(bench, path):
    report_dir = os.path.join(bench.dir, 'report')
    started, cpu = time.monotonic(), children_cpu()
    process = subprocess.run([common.tool('ansible-playbook'), os.path.join(common.ROOT, 'playbooks', 'fleet_report.yml'),
                              '-e', 'fleet_cloud=%s' % bench.cloud, '-e', 'report_dir=%s' % report_dir,
                              '-e', 'fleet_file=%s' % path], env=bench.env, capture_output=True, text=True, check=False)
    seconds, cpu = time.monotonic() - started, children_cpu() - cpu
    if process.returncode:
        raise common.BenchError('the playbook failed (rc %d): %s' % (process.returncode, process.stdout[-3000:]))
    with open(os.path.join(report_dir, 'fleet-report.json')) as handle:
        report = json.load(handle)
    return seconds, cpu, report, os.path.getsize(os.path.join(report_dir, 'fleet-report.html'))


# Run in the page once its own script has: the milliseconds from the start of the navigation to the table laid out,
# then those of a sort by name as a click on its header runs it, of the filter as typing "active" runs it and, on a
# page that has the button, of showing every node (after the filter box is emptied), each laid out again.
PAGE_PROBE = '''
function timed(action) {
  var started = performance.now();
  action();
  document.body.offsetHeight;
  return performance.now() - started;
}
function type(text) {
  var filter = document.getElementById("filter");
  filter.value = text;
  filter.dispatchEvent(new Event("input"));
}
document.body.offsetHeight;
var loaded = performance.now();
var sort = timed(function () { document.querySelector("#nodes th[data-key=name]").click(); });
var filter = timed(function () { type("active"); });
type("");
var button = document.getElementById("show-all");
return [loaded, sort, filter, button ? timed(function () { button.click(); }) : null];
'''
COLUMNS = ('load', 'sort', 'filter', 'show all')


def measure_pages(sizes, repeat):
    """{size: [(load ms, sort ms, filter ms, show all ms or None) of each round]}, the sizes taking turns within each
    round."""
    workdir = tempfile.mkdtemp(prefix='baremetal-bench-pages-')
    try:
        collections = common.collections_dir(workdir, common.ROOT, 'collections')
        sys.path.append(collections)  # report_pages imports the collection's report code
        import browser  # pylint: disable=import-outside-toplevel
        import report_pages  # pylint: disable=import-outside-toplevel
        env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(common.ROOT, 'ansible.cfg'),
                   ANSIBLE_COLLECTIONS_PATH=collections)
        pages = {}
        for size in sizes:
            directory = os.path.join(workdir, str(size))
            os.makedirs(directory)
            pages[size] = report_pages.write_page(report_pages.report_of(size), directory, env)
            print('page of %d nodes: %d kB' % (size, os.path.getsize(pages[size]) // 1024), flush=True)
        samples = dict((size, []) for size in sizes)
        for index in range(repeat):
            for size in sizes:
                samples[size].append(browser.probe(pages[size], PAGE_PROBE, workdir))
            print('  round %d: %s' % (index + 1, '; '.join('%d nodes %s' % (size, ', '.join(
                '%s %s ms' % (name, '-' if value is None else '%.0f' % value)
                for name, value in zip(COLUMNS, samples[size][-1]))) for size in sizes)), flush=True)
        return samples
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def report_pages_table(samples):
    sizes = sorted(samples)
    first = sizes[0]

    def median(size, column):
        values = [sample[column] for sample in samples[size]]
        return None if None in values else statistics.median(values)

    def shown(value):
        return '-' if value is None else '%.0f' % value

    rows = []
    for size in sizes:
        load, sort, filtered, show_all = (median(size, column) for column in range(len(COLUMNS)))
        loads = [sample[0] for sample in samples[size]]
        rows.append(('{:,}'.format(size), shown(load), '%.0f-%.0f' % (min(loads), max(loads)),
                     '%.2f' % (load / median(first, 0) / (size / first)), shown(sort),
                     '%.2f' % (sort / median(first, 1) / (size / first)), shown(filtered), shown(show_all)))
    print()
    print('the fleet report page in headless Chromium; median of %d rounds' % len(samples[first]))
    print(common.table(('nodes', 'load ms', 'min-max', 'per node vs %d' % first, 'sort by name ms',
                        'per node vs %d' % first, 'filter ms', 'show all ms'), rows))


def main():
    parser = common.options_parser(__doc__)
    parser.add_argument('--nodes', type=int, default=300, help='fleet size (default 300)')
    parser.add_argument('--repeat', type=int, default=3, help='rounds; medians are reported (default 3)')
    parser.add_argument('--page-sizes', type=int, nargs='+', metavar='N',
                        help='the HTML page alone, of each size, in Chromium (no Ironic)')
    args = parser.parse_args()
    if args.page_sizes:
        report_pages_table(measure_pages(args.page_sizes, args.repeat))
        return
    samples = {'floor: raw REST, same reads': [], 'module baremetal_fleet_report': [],
               'playbook fleet_report.yml': []}
    with common.ironic(args.ironic_venv, args.keep) as bench:
        started = time.monotonic()
        enroll(bench, args.nodes)
        print('enrolled %d nodes in %.1f s' % (args.nodes, time.monotonic() - started), flush=True)
        path, declared = fleet_file(bench, args.nodes)
        for index in range(args.repeat):
            floor = run_floor(bench, declared)
            module_seconds, module_cpu, result = run_module(bench, declared)
            playbook_seconds, playbook_cpu, report, html_size = run_playbook(bench, path)
            for key, value in zip(samples, ((floor, None), (module_seconds, module_cpu),
                                            (playbook_seconds, playbook_cpu))):
                samples[key].append(value)
            print('  round %d: floor %.2f s, module %.2f s (%d API calls, CPU %.2f s), playbook %.2f s (controller CPU '
                  '%.2f s)' % (index + 1, floor, module_seconds, result['api_calls'], module_cpu, playbook_seconds,
                               playbook_cpu), flush=True)
        summary = report['summary']
        print('report: %d nodes, %d in maintenance, %d firmware outliers, %d drifted; HTML %d kB'
              % (summary['nodes'], summary['in_maintenance'], summary['firmware_outliers'], summary['drifted'],
                 html_size // 1024))
    floor = statistics.median(value[0] for value in samples['floor: raw REST, same reads'])
    rows = []
    for path, values in samples.items():
        seconds = [value[0] for value in values]
        cpu = [value[1] for value in values if value[1] is not None]
        median = statistics.median(seconds)
        rows.append((path, '%.2f' % median, '%.2f-%.2f' % (min(seconds), max(seconds)), '%.2f' % (median / floor),
                     '%.1f' % (1000.0 * median / args.nodes), '%.2f' % statistics.median(cpu) if cpu else '-',
                     len(values)))
    print()
    print('%d fake-hardware nodes, fleet file declaring all of them; median of the rounds' % args.nodes)
    print(common.table(('path', 'seconds', 'min-max', 'x floor', 'ms/node', 'controller CPU s', 'samples'), rows))


if __name__ == '__main__':
    main()
