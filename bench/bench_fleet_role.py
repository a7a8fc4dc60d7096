# -*- coding: utf-8 -*-
"""The fleet role from nothing to available, and its no-op rerun, against a raw REST floor doing the same requests.

Starts its own Ironic on a free loopback port. For each fleet size, in interleaved rounds (medians reported):
  floor       raw REST: per node POST /nodes (properties, resource class), PUT traits, POST /ports, back to back;
              then manage and provide as bench/common.floor does (every verb back to back, one list request per
              page every 100 ms, each next verb as soon as the list shows the node at rest);
  role        ansible-playbook running the role baremetal.lifecycle.fleet over a fleet file of the same nodes
              (records, ports, traits, maintenance, provision), wall time of the whole run;
  rerun       the same ansible-playbook again, --reruns times: each must report changed=0.
The role moves at most fleet_concurrency nodes at once (its default, 100, unless --concurrency is given); the floor
moves every node at once.
Nodes are deleted after each measurement, so that every one starts from an empty Ironic.
The nodes have automated_clean false on both paths: cleaning fake-hardware is conductor time that both paths
wait for alike, and would only dilute what the collection adds.
Targets (issue 9): 300 nodes, rerun under 5 s; role within 1.3x of the floor.

    python bench/bench_fleet_role.py [--sizes 100 300] [--repeat 3] [--reruns 3] [--concurrency N]
                                     [--ironic-venv DIR]
"""

import json
import re
import resource
import statistics
import subprocess
import time
import uuid

import common

ROLE_PLAYBOOK = '''---
- name: Converge the fleet
  hosts: localhost
  gather_facts: false
  roles:
    - role: baremetal.lifecycle.fleet
      vars:
        fleet_file: %(fleet_file)s
        fleet_cloud: %(cloud)s
%(settings)s'''

# The fields of a fleet_nodes node that the floor's POST /nodes sends (traits and ports go by their own requests).
FLOOR_FIELDS = ('name', 'driver', 'resource_class', 'automated_clean', 'properties', 'driver_info')
RECAP = re.compile(r'localhost\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)')


def fleet_nodes(size, label, passwords=False):
    """A fleet file's nodes: fake-hardware, one port, two traits, properties and a resource class each; with
    passwords, a driver_info with a BMC password of its own each (fake-hardware does not check driver_info, so
    validate_driver_info is false)."""
    nodes = [{'name': '%s-%04d' % (label, index), 'driver': 'fake-hardware', 'resource_class': 'bench',
              'automated_clean': False,
              'properties': {'cpu_arch': 'x86_64', 'memory_mb': 4096},
              'ports': [{'address': '52:54:%02x:%02x:%02x:%02x' % (sum(map(ord, label)) % 256, index // 65536 % 256,
                                                                   index // 256 % 256, index % 256)}],
              'traits': ['CUSTOM_BENCH', 'CUSTOM_RACK%d' % (index // 40)]}
             for index in range(size)]
    if passwords:
        for index, node in enumerate(nodes):
            node.update(validate_driver_info=False, driver_info={
                'ipmi_address': '10.%d.%d.%d' % (index >> 16 & 255, index >> 8 & 255, index & 255),
                'ipmi_username': 'admin', 'ipmi_password': 'Bmc-%05d-%s' % (index, uuid.uuid4().hex[:12])})
    return nodes


def fleet_of(raw, label):
    """The nodes of the fleet named label (fleet_nodes): bench_all.py runs other measurements in the same Ironic."""
    return [node for node in raw.list_nodes(fields='uuid,name,provision_state')
            if (node['name'] or '').startswith(label + '-')]


def delete_fleet(raw, label):
    """The fleet's nodes, gone (maintenance first: Ironic deletes available nodes only then)."""
    for node in fleet_of(raw, label):
        if node['provision_state'] == 'available':
            raw.call('PUT', '/nodes/%s/maintenance' % node['uuid'], {'reason': 'bench cleanup'})
        raw.call('DELETE', '/nodes/%s' % node['uuid'])


def check_available(raw, size, path, label):
    nodes = fleet_of(raw, label)
    states = sorted(set(node['provision_state'] for node in nodes))
    if states != ['available'] or len(nodes) != size:
        raise common.BenchError('%s left %d nodes in %s' % (path, len(nodes), states))


def children_cpu():
    """CPU seconds (user + system) of the finished child processes and theirs: ansible-playbook, its workers and
    the module processes. Ironic is not a child. On a loaded machine this is what the run would take on an idle one,
    less the time spent waiting on Ironic."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_floor(bench, size, label, passwords=False):
    raw = bench.raw
    started = time.monotonic()
    uuids = []
    for node in fleet_nodes(size, label, passwords):
        created = raw.call('POST', '/nodes', dict((field, node[field]) for field in FLOOR_FIELDS if field in node))
        raw.call('PUT', '/nodes/%s/traits' % created['uuid'], {'traits': node['traits']})
        for port in node['ports']:
            raw.call('POST', '/ports', dict(port, node_uuid=created['uuid']))
        uuids.append(created['uuid'])
    common.floor(raw, uuids, common.TO_AVAILABLE, 0.1)
    seconds = time.monotonic() - started
    check_available(raw, size, 'floor', label)
    return {'floor: raw REST, same requests': (seconds, None, None)}


def run_role(bench, size, label, forks, reruns, concurrency):
    fleet_file = bench.write(label + '.fleet.yml', json.dumps(fleet_nodes(size, label)))
    settings = '        fleet_concurrency: %d\n' % concurrency if concurrency else ''
    playbook = bench.write(label + '.yml', ROLE_PLAYBOOK % {'fleet_file': fleet_file, 'cloud': bench.cloud,
                                                            'settings': settings})
    samples = {}
    for path in ['role: nothing -> available'] + ['role: no-op rerun %d' % index for index in range(reruns)]:
        started, cpu = time.monotonic(), children_cpu()
        process = subprocess.run([common.tool('ansible-playbook'), playbook, '--forks', str(forks)],
                                 env=bench.env, capture_output=True, text=True, check=False)
        seconds, cpu = time.monotonic() - started, children_cpu() - cpu
        recap = RECAP.search(process.stdout)
        if process.returncode or not recap:
            raise common.BenchError('%s failed (rc %d): %s' % (path, process.returncode,
                                                               process.stdout[-3000:] + process.stderr[-2000:]))
        samples[path] = (seconds, cpu, int(recap.group(2)))
    changed = [sample[2] for path, sample in samples.items() if path.startswith('role: no-op')]
    if any(changed):
        raise common.BenchError('a rerun reported changed=%s' % changed)
    check_available(bench.raw, size, 'role', label)
    delete_fleet(bench.raw, label)
    return samples


def measure(bench, size, repeat, forks, reruns, concurrency):
    samples = {}

    def add(path, sample):
        samples.setdefault(path, []).append(sample)
        print('  %s: %.2f s%s%s' % (path, sample[0], ', controller CPU %.2f s' % sample[1] if sample[1] else '',
                                    ', changed=%d' % sample[2] if sample[2] is not None else ''), flush=True)

    for index in range(repeat):
        label = 'r%d-%d' % (size, index)
        for path, sample in run_floor(bench, size, label).items():
            add(path, sample)
        delete_fleet(bench.raw, label)
        for path, sample in run_role(bench, size, label, forks, reruns, concurrency).items():
            # The reruns of a round are samples of one path.
            add(re.sub(r' \d+$', '', path), sample)
    return samples


def report(size, samples):
    floor = statistics.median(sample[0] for sample in samples['floor: raw REST, same requests'])
    rows = []
    for path, values in samples.items():
        seconds = [value[0] for value in values]
        spread = '%.2f-%.2f' % (min(seconds), max(seconds)) if len(seconds) > 1 else ''
        median = statistics.median(seconds)
        cpu = [value[1] for value in values if value[1] is not None]
        rows.append((path, '%.2f' % median, spread, '%.2f' % (median / floor), '%.1f' % (1000.0 * median / size),
                     '%.2f' % statistics.median(cpu) if cpu else '-', len(values)))
    print()
    print('%d fake-hardware nodes (one port, two traits each), nothing -> available; median of the rounds' % size)
    print(common.table(('path', 'seconds', 'min-max', 'x floor', 'ms/node', 'controller CPU s', 'samples'), rows))


def main():
    parser = common.options_parser(__doc__)
    parser.add_argument('--sizes', type=int, nargs='+', default=[100, 300], help='fleet sizes (default 100 300)')
    parser.add_argument('--repeat', type=int, default=3, help='rounds per size; medians are reported (default 3)')
    parser.add_argument('--forks', type=int, default=5, help='ansible-playbook --forks (default 5)')
    parser.add_argument('--reruns', type=int, default=3,
                        help='no-op reruns of the role per round; all count in the median (default 3)')
    parser.add_argument('--concurrency', type=int,
                        help="the role's fleet_concurrency, how many nodes move at once (default: the role's, 100)")
    args = parser.parse_args()
    results = []
    with common.ironic(args.ironic_venv, args.keep) as bench:
        for size in args.sizes:
            print('%d nodes' % size, flush=True)
            results.append((size, measure(bench, size, args.repeat, args.forks, args.reruns, args.concurrency)))
    for size, samples in results:
        report(size, samples)


if __name__ == '__main__':
    main()
