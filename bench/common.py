# -*- coding: utf-8 -*-
"""What both benchmarks share: a throw-away local Ironic, a raw REST floor that counts its calls, and runners
for the collection's module and playbooks.

The floor is the least a client must do: the verbs, back to back, and polling at a fixed short interval. Our
module and playbooks run against the same Ironic in the same run, so the ratios compare like with like.
"""

import argparse
import contextlib
import copy
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import requests

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MICROVERSION = '1.115'
PAGE_LIMIT = 1000
POLL_FIELDS = 'uuid,provision_state,target_provision_state,last_error'
# The verbs from enroll, with the stable state each lands in.
TO_AVAILABLE = [('manage', 'manageable'), ('provide', 'available')]
TO_ACTIVE = TO_AVAILABLE + [('active', 'active')]


class BenchError(Exception):
    pass


def tool(name):
    """An Ansible command of the Python running this script, else the first on PATH."""
    candidate = os.path.join(os.path.dirname(sys.executable), name)
    found = candidate if os.access(candidate, os.X_OK) else shutil.which(name)
    if not found:
        raise BenchError('%s not found next to %s nor on PATH; run from the venv (make venv).' % (name, sys.executable))
    return found


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def free_conductor_hosts(count, port=8089):
    """The first of count consecutive loopback addresses 127.0.X.2... with json-rpc's port free on each."""
    for network in range(1, 255):
        hosts = ['127.0.%d.%d' % (network, 2 + index) for index in range(count)]
        try:
            for host in hosts:
                with socket.socket() as sock:
                    sock.bind((host, port))
        except OSError:
            continue
        return hosts[0]
    raise BenchError('no %d consecutive loopback addresses with port %d free' % (count, port))


class RawIronic(object):
    """Ironic over plain REST with a fixed microversion; counts every request."""

    def __init__(self, endpoint):
        self.endpoint = endpoint.rstrip('/') + '/v1'
        self.session = requests.Session()
        self.session.headers.update({'X-OpenStack-Ironic-API-Version': MICROVERSION, 'Accept': 'application/json'})
        self.calls = 0

    def call(self, method, path, body=None, params=None):
        self.calls += 1
        response = self.session.request(method, self.endpoint + path, json=body, params=params, timeout=60)
        if response.status_code >= 400:
            raise BenchError('%s %s: HTTP %d %s' % (method, path, response.status_code, response.text))
        return response.json() if response.content else None

    def list_nodes(self, fields=POLL_FIELDS):
        params = {'limit': PAGE_LIMIT, 'fields': fields}
        nodes = []
        while True:
            page = self.call('GET', '/nodes', params=params)
            nodes.extend(page['nodes'])
            if not page.get('next') or not page['nodes']:
                return nodes
            params['marker'] = page['nodes'][-1]['uuid']

    def create_nodes(self, count, prefix):
        """New fake-hardware nodes named prefix-0000, prefix-0001...; their (names, UUIDs)."""
        names = ['%s-%04d' % (prefix, index) for index in range(count)]
        return names, [self.call('POST', '/nodes', {'name': name, 'driver': 'fake-hardware'})['uuid']
                       for name in names]

    def delete_nodes(self, uuids):
        for uuid in uuids:
            self.call('DELETE', '/nodes/%s' % uuid)

    def states(self, uuids):
        wanted = set(uuids)
        return sorted(node['provision_state'] for node in self.list_nodes() if node['uuid'] in wanted)


def floor(raw, uuids, path, interval, one_get=False):
    """Drive the nodes along path with raw REST; returns (seconds, API calls).

    Every node's first verb is sent at once, back to back; each later verb as soon as a poll shows the node at
    rest. A poll is one list request per page, or with one_get a GET of the single node.
    """
    calls = raw.calls
    started = time.monotonic()
    step = dict.fromkeys(uuids, 0)
    for uuid in uuids:
        raw.call('PUT', '/nodes/%s/states/provision' % uuid, {'target': path[0][0]})
    pending = set(uuids)
    while pending:
        time.sleep(interval)
        if one_get:
            nodes = [raw.call('GET', '/nodes/%s' % uuid, params={'fields': POLL_FIELDS}) for uuid in pending]
        else:
            nodes = raw.list_nodes()
        for node in nodes:
            uuid = node['uuid']
            if uuid not in pending or node['target_provision_state'] is not None:
                continue
            verb, landing = path[step[uuid]]
            if node['provision_state'] != landing:
                raise BenchError('floor: %s after %s is %s: %s' % (uuid, verb, node['provision_state'],
                                                                   node['last_error']))
            step[uuid] += 1
            if step[uuid] == len(path):
                pending.discard(uuid)
            else:
                raw.call('PUT', '/nodes/%s/states/provision' % uuid, {'target': path[step[uuid]][0]})
    return time.monotonic() - started, raw.calls - calls


def collections_dir(parent, checkout, name):
    """parent/name, a directory in which checkout is importable as baremetal.lifecycle (a link to it); its path."""
    namespace = os.path.join(parent, name, 'ansible_collections', 'baremetal')
    os.makedirs(namespace)
    os.symlink(checkout, os.path.join(namespace, 'lifecycle'))
    return os.path.join(parent, name)


# A process's peak resident size (ru_maxrss) starts at its parent's resident size when it is forked, and exec keeps
# it (Linux): a command the bench's own Python started read at least the bench's size, which grows with the fleet it
# holds (115 MiB in a 3,000-node round, above most of that round's commands). So each command is started by a small
# Python of its own, which waits for it, writes its usage to a file and passes on SIGTERM and SIGINT.
USAGE_HELPER = '''import json, os, signal, subprocess, sys
process, pending = None, []


def forward(number, _frame):
    if process is None:
        pending.append(number)
    else:
        process.send_signal(number)


for number in (signal.SIGTERM, signal.SIGINT):
    signal.signal(number, forward)
process = subprocess.Popen(sys.argv[2:])
for number in pending:
    process.send_signal(number)
_pid, status, usage = os.wait4(process.pid, 0)
with open(sys.argv[1], 'w') as handle:
    json.dump([os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, usage.ru_maxrss], handle)
'''


def start_measured(command, **popen_options):
    """Start command (with subprocess.Popen's options) through USAGE_HELPER, for wait_usage: (the helper's Popen, the
    file it writes the command's usage to)."""
    handle, usage_file = tempfile.mkstemp(prefix='baremetal-bench-usage-')
    os.close(handle)
    return subprocess.Popen([sys.executable, '-c', USAGE_HELPER, usage_file] + list(command),
                            **popen_options), usage_file


def wait_usage(started):
    """Wait for a command start_measured started: (exit code, CPU seconds, peak resident MiB). The CPU is user +
    system of the command and of every process it waited for (ansible-playbook's workers, the modules); the peak is
    the largest resident size any one of them reached (os.wait4's ru_maxrss, in KiB on Linux), not their sum at any
    moment."""
    process, usage_file = started
    process.wait()
    with open(usage_file) as handle:
        written = handle.read()
    os.remove(usage_file)
    if not written:
        raise BenchError('%s wrote no usage (rc %d)' % (' '.join(process.args[4:]), process.returncode))
    returncode, cpu, peak_kib = json.loads(written)
    return returncode, cpu, peak_kib / 1024.0


class Bench(object):
    """A local Ironic on a free loopback port, in a temporary directory, and the means to run our code on it."""

    def __init__(self, ironic_venv, keep=False, split=False, config_overrides=None):
        self.ironic_venv = ironic_venv
        self.keep = keep
        # More Ironic settings, {section: {option: value}} (the role's ironic_standalone_config_overrides).
        self.config_overrides = ['-e', json.dumps({'ironic_standalone_config_overrides': config_overrides})] \
            if config_overrides else []
        # split: Ironic as operators run it, ironic-api and two conductors over json-rpc, on PostgreSQL.
        self.split = ['-e', 'ironic_standalone_conductors=2', '-e', 'ironic_standalone_database=postgresql',
                      '-e', 'ironic_standalone_postgresql_port=%d' % free_port(),
                      '-e', 'ironic_standalone_conductor_first_host=%s' % free_conductor_hosts(2)] if split else []
        self.dir = tempfile.mkdtemp(prefix='baremetal-bench-')
        self.port = free_port()
        self.endpoint = 'http://127.0.0.1:%d' % self.port
        self.clouds_yaml = os.path.join(self.dir, 'clouds.yaml')
        self.cloud = 'baremetal-bench'
        # The source tree, importable as the collection: what is measured is what is in this checkout. Not in a
        # directory named collections: ansible-playbook looks first in the collections directory beside the playbook,
        # and the bench writes its playbooks in self.dir, so every playbook would run this checkout, also one that
        # measures another (of_checkout).
        self.checkout = ROOT
        self.collections = collections_dir(self.dir, ROOT, 'collections-this')
        self.env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=self.collections, OS_CLIENT_CONFIG_FILE=self.clouds_yaml,
                        ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_PYTHON_INTERPRETER=sys.executable,
                        ANSIBLE_HOST_KEY_CHECKING='false', ANSIBLE_RETRY_FILES_ENABLED='false',
                        ANSIBLE_LOCALHOST_WARNING='false', ANSIBLE_INVENTORY_UNPARSED_WARNING='false')
        self.raw = RawIronic(self.endpoint)

    def of_checkout(self, checkout):
        """This Bench, on the same Ironic, measuring the collection of another checkout (a worktree of an older
        commit): its modules, its playbooks' collection. Only the Bench that started Ironic stops it."""
        other = copy.copy(self)
        other.checkout = os.path.abspath(checkout)
        other.collections = collections_dir(self.dir, other.checkout,
                                            'collections-old-%s' % os.path.basename(other.checkout))
        other.env = dict(self.env, ANSIBLE_COLLECTIONS_PATH=other.collections)
        return other

    def _role_vars(self):
        return ['-e', 'ironic_standalone_base_dir=%s' % os.path.join(self.dir, 'ironic'),
                '-e', 'ironic_standalone_venv=%s' % self.ironic_venv,
                '-e', 'ironic_standalone_port=%d' % self.port,
                '-e', 'ironic_standalone_clouds_yaml=%s' % self.clouds_yaml,
                '-e', 'ironic_standalone_cloud_name=%s' % self.cloud,
                # Periodic power syncs of hundreds of nodes would land at random in one measurement or another.
                '-e', 'ironic_standalone_sync_power_state_interval=0'] + self.split + self.config_overrides

    def start(self):
        print('starting Ironic%s on %s (in %s)' % (' split (ironic-api, 2 conductors, PostgreSQL)' if self.split else '',
                                                   self.endpoint, self.dir), flush=True)
        subprocess.run([tool('ansible-playbook'), os.path.join(ROOT, 'playbooks', 'ironic_start.yml')]
                       + self._role_vars(), env=self.env, check=True, stdout=subprocess.DEVNULL)

    def stop(self):
        subprocess.run([tool('ansible-playbook'), os.path.join(ROOT, 'playbooks', 'ironic_stop.yml')]
                       + self._role_vars(), env=self.env, check=False, stdout=subprocess.DEVNULL)
        if not self.keep:
            shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, content):
        path = os.path.join(self.dir, name)
        with open(path, 'w') as handle:
            handle.write(content)
        return path

    def module(self, name, **args):
        """Run one of our modules as Ansible runs it on a host, minus the controller; (seconds, result)."""
        args_file = self.write('%s.args.json' % name, json.dumps({'ANSIBLE_MODULE_ARGS': args}))
        started = time.monotonic()
        output = subprocess.run([sys.executable, os.path.join(self.checkout, 'plugins', 'modules', name + '.py'),
                                 args_file],
                                env=dict(self.env, PYTHONPATH=self.collections), check=True, capture_output=True,
                                text=True).stdout
        return time.monotonic() - started, json.loads(output)

    def playbook(self, playbook, inventory=None, forks=5):
        """Run a playbook of one task; (wall seconds, {host: the task's result})."""
        tree = tempfile.mkdtemp(prefix='tree-', dir=self.dir)
        command = [tool('ansible-playbook'), playbook, '--forks', str(forks)]
        if inventory:
            command += ['-i', inventory]
        # The tree callback writes each host's last result as JSON, whatever the stdout callback.
        env = dict(self.env, ANSIBLE_CALLBACKS_ENABLED='ansible.builtin.tree', ANSIBLE_CALLBACK_TREE_DIR=tree)
        started = time.monotonic()
        process = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        seconds = time.monotonic() - started
        results = {}
        for host in os.listdir(tree):
            with open(os.path.join(tree, host)) as handle:
                results[host] = json.load(handle)
        shutil.rmtree(tree)
        failed = [(host, result.get('msg')) for host, result in results.items() if result.get('failed')]
        if process.returncode or failed or not results:
            raise BenchError('%s failed (rc %d): %s %s' % (playbook, process.returncode, failed[:5],
                                                           process.stdout[-1500:] + process.stderr[-1500:]))
        return seconds, results


@contextlib.contextmanager
def ended_by_sigterm():
    """Within it, SIGTERM (a timeout's, a kill PID) ends the run as Ctrl-C does, by an exception (SystemExit 143), so
    that the finally blocks on the way out stop what the run started; a second SIGTERM is ignored until they have.
    The handler before it is put back at its end."""
    def terminate(signum, _frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def ironic(ironic_venv, keep=False, split=False, config_overrides=None):
    """A started Bench, stopped at the end: also when the run fails, is interrupted or gets SIGTERM."""
    bench = Bench(ironic_venv, keep, split, config_overrides)
    with ended_by_sigterm():
        try:
            bench.start()
            yield bench
        finally:
            bench.stop()


def default_ironic_venv():
    return os.environ.get('IRONIC_VENV') or os.path.join(ROOT, '.work', 'ironic-venv')


def table(headers, rows):
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]
    lines = ['  '.join(str(cell).rjust(width) if index else str(cell).ljust(width)
                       for index, (cell, width) in enumerate(zip(row, widths))) for row in [headers] + rows]
    lines.insert(1, '  '.join('-' * width for width in widths))
    return '\n'.join(lines)


def options_parser(doc, keep=True):
    """The options of every script on its own Ironic: --ironic-venv, and --keep (its temporary directory)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--ironic-venv', default=default_ironic_venv(),
                        help='virtualenv with Ironic (default $IRONIC_VENV or .work/ironic-venv)')
    if keep:
        parser.add_argument('--keep', action='store_true', help='keep the temporary directory (Ironic logs, output)')
    return parser


def rounds_options(doc, old_checkout=False):
    """The options of a script measured in rounds on its own Ironic: --rounds (at least 3) and --ironic-venv, and
    with old_checkout --old-checkout DIR (another checkout of the collection to measure beside this one)."""
    parser = options_parser(doc, keep=False)
    parser.add_argument('--rounds', type=int, default=5, help='rounds (at least 3; the median is reported)')
    if old_checkout:
        parser.add_argument('--old-checkout', metavar='DIR', help='also measure the collection of this checkout')
    options = parser.parse_args()
    if options.rounds < 3:
        parser.error('--rounds must be at least 3')
    return options
