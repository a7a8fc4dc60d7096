# -*- coding: utf-8 -*-
"""One BMC password per node (issue 44): what scrubbing a records task's result of its secrets costs, with a
password per node and without, with Ansible's remove_values (the old path) and with the collection's one-pass
scrub (task/module.py's remove_values_in_one_pass, the new path).

The scrub alone (no Ironic), per fleet size: a result of baremetal_node with nodes, as the module hands it to
Ansible (per node: its entry with the node view, secrets masked by key, and a diff), below -vvv (no echo of the
arguments, ansible-core 2.16-2.20's default) and from -vvv on (the echo of the arguments, every password in it), and
the task's no_log_values as the module computes them (secrets.no_log_values of the arguments: each password and the
forms an error message quotes it in). Each path is timed in CPU seconds of this process (steadier than wall time on
a busy machine), interleaved within each round; the median of the rounds is reported, and the ratio of the path with
a password per node to the same path without. Above 3,000 nodes only the one pass (Ansible's would take minutes a
call).

With --end-to-end N, the module process of the records task itself at N nodes, on its own Ironic (a no-op rerun of
N enrolled nodes, declared with a password each, or without any, with no ports nor traits so that enrolling them
takes less; below -vvv and at -vvv): wall seconds of the whole process (start-up, _log_invocation, the lists from
Ironic, the result and its scrub), medians of the rounds, the code of this checkout and, with --old-checkout DIR, of
another one (the old path: a worktree of the commit before the change), interleaved in each round on the same nodes.

    python bench/bench_scrub.py [--sizes 1000 3000] [--rounds 3] [--end-to-end 1000 [--old-checkout DIR]]
                                [--ironic-venv DIR]
"""

import json
import os
import statistics
import subprocess
import sys
import time
import uuid

import common

sys.path.insert(0, os.path.join(common.ROOT, '.work', 'collections'))  # after make install: this checkout's code

from ansible.module_utils.common.parameters import PASS_VARS, remove_values  # noqa: E402
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets  # noqa: E402
try:
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import remove_values_in_one_pass
except ImportError:  # an older checkout: the old path only
    remove_values_in_one_pass = None


def password(index):
    return 'Bmc-%04d-%s' % (index, uuid.uuid4().hex[:12])


def declared(index, with_password):
    driver_info = {'ipmi_address': '10.%d.%d.%d' % (index >> 16 & 255, index >> 8 & 255, index & 255),
                   'ipmi_username': 'admin'}
    if with_password:
        driver_info['ipmi_password'] = password(index)
    return {'name': 'bench-scrub-%05d' % index, 'driver': 'ipmi', 'driver_info': driver_info,
            'properties': {'cpu_arch': 'x86_64', 'cpus': 32, 'memory_mb': 262144},
            'resource_class': 'baremetal.large', 'traits': ['CUSTOM_RACK%d' % (index // 40)],
            'ports': [{'address': '52:54:%02x:%02x:%02x:%02x' % (index >> 24 & 255, index >> 16 & 255,
                                                                 index >> 8 & 255, index & 255)}]}


def view(element):
    """The node view a records task returns for an element (RETURN of baremetal_node), secrets masked by key."""
    return dict(secrets.masked({'driver_info': element['driver_info']}), uuid=str(uuid.uuid4()), name=element['name'],
                provision_state='enroll', target_provision_state=None, power_state=None, target_power_state=None,
                maintenance=False, maintenance_reason=None, last_error=None, driver=element['driver'],
                properties=element['properties'], resource_class=element['resource_class'],
                traits=element['traits'], extra={}, instance_name=None, conductor_group='', shard=None, owner=None,
                lessee=None, description=None, automated_clean=None, protected=False, protected_reason=None,
                retired=False, retired_reason=None, disable_power_off=False, health=None,
                interfaces={'boot': 'ipxe', 'power': 'ipmitool', 'management': 'ipmitool'},
                ports=[dict(port, pxe_enabled=True, physical_network=None, local_link_connection={})
                       for port in element['ports']])


def result_of(size, with_password, echo):
    """(result as the module hands it to Ansible, the task's no_log_values)."""
    nodes = [declared(index, with_password) for index in range(size)]
    entries = [{'name': element['name'], 'created': True, 'changed': True, 'error': None, 'bmc_verified': None,
                'node': view(element)} for element in nodes]
    result = {'changed': True, 'nodes': entries, 'failed_nodes': [], 'api_calls': 2 * size + 3,
              'totals': {'nodes': size, 'changed': size, 'failed': 0, 'not_started': 0, 'seconds': 1.0},
              'diff': [{'before_header': entry['name'], 'after_header': entry['name'], 'before': {},
                        'after': secrets.masked({'driver_info': element['driver_info']})}
                       for entry, element in zip(entries, nodes)]}
    result['invocation'] = {'module_args': {'nodes': nodes, 'cloud': 'bench', 'update_secrets': 'on_create'}} \
        if echo else {}
    return result, secrets.no_log_values({'nodes': nodes})


def cpu_seconds(function, *args):
    started = time.process_time()
    function(*args)
    return time.process_time() - started


# Ansible's remove_values takes each secret out of each text: at 10,000 nodes a call takes minutes (the square of the
# nodes; its figures at 1,000 and 3,000 show it), so above this size only the one pass is measured.
ANSIBLE_PATH_UP_TO = 3000


def measure_scrub(sizes, rounds):
    rows = []
    for size in sizes:
        paths = [('Ansible remove_values', remove_values)] if size <= ANSIBLE_PATH_UP_TO or \
            not remove_values_in_one_pass else []
        if remove_values_in_one_pass:
            paths.append(('one pass (task/module.py)', remove_values_in_one_pass))
        for echo in (False, True):
            cases = dict((with_password, result_of(size, with_password, echo)) for with_password in (False, True))
            samples = dict(((name, with_password), []) for name, _ in paths for with_password in (False, True))
            for _round in range(rounds):
                for name, function in paths:
                    for with_password, (result, no_log_values) in cases.items():
                        samples[(name, with_password)].append(cpu_seconds(function, result, no_log_values))
            for name, _function in paths:
                without = statistics.median(samples[(name, False)])
                with_ = statistics.median(samples[(name, True)])
                rows.append(('{:,}'.format(size), 'yes' if echo else 'no', name, '%.3f' % without, '%.3f' % with_,
                             '%.2fx' % (with_ / without), '%d' % len(cases[True][1])))
            print(common.table(HEADERS, rows[-len(paths):]), flush=True)
    return rows


HEADERS = ('nodes', 'echo (-vvv)', 'scrub', 'without passwords, s', 'with a password per node, s', 'ratio',
           'no_log values')


RECORDS_TASK_HEADERS = ('nodes', 'verbosity', 'code', 'without passwords, s (rounds)',
                        'with a password per node, s (rounds)', 'ratio')


def module_runner(bench, checkout):
    """Run baremetal_node of checkout as Ansible runs it on a host: (seconds, result)."""
    collections = os.path.join(bench.dir, 'collections-%s' % os.path.basename(checkout.rstrip('/')))
    if not os.path.isdir(collections):
        os.makedirs(os.path.join(collections, 'ansible_collections', 'baremetal'))
        os.symlink(checkout, os.path.join(collections, 'ansible_collections', 'baremetal', 'lifecycle'))
    args_file = os.path.join(bench.dir, 'records.args.json')

    def run(**args):
        with open(args_file, 'w') as handle:
            json.dump({'ANSIBLE_MODULE_ARGS': args}, handle)
        started = time.monotonic()
        process = subprocess.run([sys.executable, os.path.join(checkout, 'plugins', 'modules', 'baremetal_node.py'),
                                  args_file], env=dict(bench.env, PYTHONPATH=collections), check=False,
                                 capture_output=True, text=True)
        seconds = time.monotonic() - started
        try:
            return seconds, json.loads(process.stdout)
        except ValueError:
            raise common.BenchError('%s: %s' % (checkout, process.stdout[-1500:] + process.stderr[-1500:]))
    return run


def measure_end_to_end(bench, size, rounds, old_checkout):
    """The records task's module process, a no-op rerun of size nodes, with and without a password per node."""
    fleets = {}
    for with_password in (False, True):
        nodes = []
        for index in range(size):
            node = declared(index + (size if with_password else 0), with_password)
            del node['ports'], node['traits']
            nodes.append(dict(node, driver='fake-hardware', validate_driver_info=False))
        seconds, result = bench.module('baremetal_node', cloud=bench.cloud, nodes=nodes)
        if result.get('failed'):
            raise common.BenchError(result.get('msg'))
        print('enrolled %d nodes %s passwords in %.1f s' % (size, 'with' if with_password else 'without', seconds),
              flush=True)
        fleets[with_password] = nodes
    codes = [('this checkout', module_runner(bench, common.ROOT))]
    if old_checkout:
        codes.append(('old: %s' % old_checkout, module_runner(bench, os.path.abspath(old_checkout))))
    # -vvv: the echo of the arguments, which ansible-core 2.21 and later make only when asked (INJECT_INVOCATION).
    asked = {'_ansible_inject_invocation': True} if 'inject_invocation' in PASS_VARS else {}
    rows = []
    for verbosity in (0, 3):
        samples = dict(((code, with_password), []) for code, _run in codes for with_password in fleets)
        for _round in range(rounds):
            for code, run in codes:
                for with_password, nodes in fleets.items():
                    seconds, result = run(cloud=bench.cloud, nodes=nodes, _ansible_verbosity=verbosity, **asked)
                    if result.get('failed') or result.get('changed'):
                        raise common.BenchError('%s: the rerun was no no-op: %s' % (code, result.get('msg')))
                    samples[(code, with_password)].append(seconds)
        for code, _run in codes:
            without, with_ = (statistics.median(samples[(code, False)]), statistics.median(samples[(code, True)]))
            rows.append(('{:,}'.format(size), '-vvv' if verbosity else 'default', code, '%.2f (%s)' % (
                without, ', '.join('%.2f' % value for value in samples[(code, False)])), '%.2f (%s)' % (
                with_, ', '.join('%.2f' % value for value in samples[(code, True)])), '%.2fx' % (with_ / without)))
        print(common.table(RECORDS_TASK_HEADERS, rows[-len(codes):]), flush=True)
    return rows


def main():
    parser = common.options_parser(__doc__)
    parser.add_argument('--sizes', type=int, nargs='*', default=[1000, 3000])
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--end-to-end', type=int, default=0, metavar='N',
                        help='also the records task module process at N nodes, on its own Ironic')
    parser.add_argument('--old-checkout', metavar='DIR', help='with --end-to-end, also the module of this checkout')
    options = parser.parse_args()
    if options.sizes:
        print('the scrub alone, CPU seconds, median of %d rounds (%s)' % (
            options.rounds, 'new and old path' if remove_values_in_one_pass else 'old path only: an older checkout'))
        rows = measure_scrub(options.sizes, options.rounds)
        print()
        print(common.table(HEADERS, rows))
    if options.end_to_end:
        with common.ironic(options.ironic_venv, options.keep) as bench:
            bench.write('clouds.yaml', 'clouds:\n  %s:\n    auth_type: none\n    baremetal_endpoint_override: %s\n'
                        % (bench.cloud, bench.endpoint))
            rows = measure_end_to_end(bench, options.end_to_end, options.rounds, options.old_checkout)
        print()
        print('the records task, module process, wall seconds, median of %d rounds' % options.rounds)
        print(common.table(RECORDS_TASK_HEADERS, rows))


if __name__ == '__main__':
    main()
