# -*- coding: utf-8 -*-
"""One node, nothing to change: this collection's module against openstack.cloud's, on the same Ironic.

Two reruns of one node that is already as declared, each a module process as Ansible starts it on a host
(Python, imports, connection, requests), ours and the peer's interleaved within each round:
  record     baremetal.lifecycle.baremetal_node against openstack.cloud.baremetal_node (the same driver,
             driver_info, properties and a port), both answering changed=false, each on a node of its own: the
             peer sends every property as a string (its cpus, memory_mb and local_gb are strings), ours sends the
             numbers as numbers, and Ironic keeps what it is sent, so on one node each rerun would undo the other's;
  deployed   baremetal.lifecycle.baremetal_provision_state state=active against
             openstack.cloud.baremetal_node_action state=present, on an active node, both changed=false.
The peer is openstack.cloud 2.5.0 as the `ansible` 12.3.0 package ships it, run by its own virtualenv with the same
ansible-core as ours and openstacksdk 4.14.0: it reads `openstack.version`, which openstacksdk 4.15 and later no
longer import with `openstack` ("module 'openstack' has no attribute 'version'"). Both are installed from PyPI once,
into .work/peer. Both modules read the same clouds.yaml entry (auth_type none and the endpoint). Each rerun is measured twice: the module process alone, and
`ansible-playbook` of a play of that one task (what an operator waits for: the controller's start-up included,
the same for both). Reported: wall and CPU seconds (user + system of the processes) per module, the median of the
rounds, and the peer's time divided by ours (above 1: ours is ahead).

    python bench/bench_peer.py [--rounds 5] [--ironic-venv DIR]
"""

import importlib.metadata
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import zipfile

import common

PEER_PACKAGE = 'ansible==12.3.0'
PEER_SDK = 'openstacksdk==4.14.0'
PEER_COLLECTION = 'ansible_collections/openstack/cloud/'
PEER_DIR = os.path.join(common.ROOT, '.work', 'peer')
NODE = 'bench-peer-node'
MAC = '52:54:00:be:ec:01'
INSTANCE_INFO = {'image_source': 'http://127.0.0.1:9/image.qcow2'}
RECORD = dict(name=NODE, driver='fake-hardware', driver_info={},
              properties={'cpus': 8, 'memory_mb': 16384, 'local_gb': 100, 'cpu_arch': 'x86_64'})
# The record as the peer writes it, on its own node: openstack.cloud.baremetal_node's properties are strings.
PEER_MAC = '52:54:00:be:ec:02'
PEER_RECORD = dict(RECORD, name=NODE + '-peer',
                   properties=dict((key, str(value)) for key, value in RECORD['properties'].items()))


def peer_collections():
    """The directory that holds ansible_collections/openstack/cloud, extracted from the ansible package once."""
    marker = os.path.join(PEER_DIR, 'collections', PEER_COLLECTION, 'MANIFEST.json')
    if not os.path.exists(marker):
        download = os.path.join(PEER_DIR, 'download')
        subprocess.run([sys.executable, '-m', 'pip', 'download', '--no-deps', '--quiet', '-d', download, PEER_PACKAGE],
                       check=True)
        wheel = os.path.join(download, [name for name in os.listdir(download) if name.endswith('.whl')][0])
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(os.path.join(PEER_DIR, 'collections'),
                               [name for name in archive.namelist() if name.startswith(PEER_COLLECTION)])
    return os.path.join(PEER_DIR, 'collections')


def peer_python():
    """The peer's interpreter: a virtualenv with our ansible-core and the openstacksdk the peer runs with."""
    python = os.path.join(PEER_DIR, 'venv', 'bin', 'python')
    if not os.path.exists(python):
        core = importlib.metadata.version('ansible-core')
        subprocess.run([sys.executable, '-m', 'venv', os.path.join(PEER_DIR, 'venv')], check=True)
        subprocess.run([python, '-m', 'pip', 'install', '--quiet', 'ansible-core==%s' % core, PEER_SDK], check=True)
    return python


def module_path(collections, fqcn):
    namespace, name, module = fqcn.split('.')
    return os.path.join(collections, 'ansible_collections', namespace, name, 'plugins', 'modules', module + '.py')


def run_module(bench, python, collections, fqcn, args):
    """(wall seconds, CPU seconds, result) of one module process."""
    args_file = bench.write('peer.args.json', json.dumps({'ANSIBLE_MODULE_ARGS': args}))
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    process = subprocess.run([python, module_path(collections, fqcn), args_file], check=False,
                             capture_output=True, text=True, env=dict(bench.env, PYTHONPATH=collections))
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if '{' not in process.stdout:
        raise common.BenchError('%s printed no result: %s' % (fqcn, (process.stdout + process.stderr)[-1500:]))
    result = json.loads(process.stdout[process.stdout.index('{'):])
    if result.get('failed') or result.get('changed'):
        raise common.BenchError('%s is no no-op rerun: %s' % (fqcn, json.dumps(result)[:1500]))
    return wall, after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime, result


def run_playbook(bench, python, collections, fqcn, args):
    """(wall seconds, CPU seconds) of ansible-playbook running a play of the one task on localhost."""
    play = [{'hosts': 'localhost', 'gather_facts': False, 'connection': 'local',
             'vars': {'ansible_python_interpreter': python}, 'tasks': [{fqcn: args}]}]
    path = bench.write('peer-play.yml', json.dumps(play))
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    process = subprocess.run([common.tool('ansible-playbook'), path], check=False, capture_output=True, text=True,
                             env=dict(bench.env, ANSIBLE_COLLECTIONS_PATH=collections))
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode or 'changed=0' not in process.stdout:
        raise common.BenchError('%s in a playbook is no no-op rerun: %s' % (fqcn, process.stdout[-1500:]))
    return wall, after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime


def scenarios(bench):
    """(name, ours (fqcn, args), peer's (fqcn, args)) of each rerun."""
    cloud = dict(cloud=bench.cloud)
    return [
        ('record', ('baremetal.lifecycle.baremetal_node', dict(cloud, ports=[{'address': MAC}], **RECORD)),
         ('openstack.cloud.baremetal_node', dict(cloud, nics=[{'mac': PEER_MAC}], **PEER_RECORD))),
        ('deployed', ('baremetal.lifecycle.baremetal_provision_state',
                      dict(cloud, node=NODE, state='active', instance_info=INSTANCE_INFO)),
         ('openstack.cloud.baremetal_node_action',
          dict(cloud, name=NODE, state='present', deploy=True, instance_info=INSTANCE_INFO))),
    ]


def prepare(bench):
    """The nodes as ours and the peer declare them (both reruns of the record are no-ops), ours deployed; returns
    the UUIDs of both."""
    bench.write('clouds.yaml', 'clouds:\n  %s:\n    auth_type: none\n    baremetal_endpoint_override: %s\n'
                % (bench.cloud, bench.endpoint))
    peer = bench.raw.call('POST', '/nodes', dict(PEER_RECORD))
    bench.raw.call('POST', '/ports', {'address': PEER_MAC, 'node_uuid': peer['uuid']})
    node = bench.raw.call('POST', '/nodes', dict(RECORD))
    bench.raw.call('POST', '/ports', {'address': MAC, 'node_uuid': node['uuid']})
    bench.raw.call('PATCH', '/nodes/%s' % node['uuid'],
                   [{'op': 'add', 'path': '/instance_info', 'value': INSTANCE_INFO}])
    common.floor(bench.raw, [node['uuid']], common.TO_ACTIVE, 0.2, one_get=True)
    # fake-hardware deploys without powering on; the peer refuses a node whose power state Ironic does not know.
    bench.raw.call('PUT', '/nodes/%s/states/power' % node['uuid'], {'target': 'power on'})
    for _attempt in range(100):
        if bench.raw.call('GET', '/nodes/%s' % node['uuid'], params={'fields': 'power_state'})['power_state'] == 'power on':
            return node['uuid'], peer['uuid']
        time.sleep(0.1)
    raise common.BenchError('%s did not power on' % NODE)


def measure(bench, rounds):
    """{(scenario, 'ours' or 'peer'): [(wall, cpu) of each round]}, ours and the peer's interleaved; a scenario is a
    rerun's name for the module process, and its name with ' (playbook)' for the play."""
    where = {'ours': (sys.executable, bench.collections), 'peer': (peer_python(), peer_collections())}
    uuid, peer_uuid = prepare(bench)
    samples = {}
    for _round in range(rounds + 1):
        for name, ours, peer in scenarios(bench):
            for who, (fqcn, args) in (('ours', ours), ('peer', peer)):
                wall, cpu, _result = run_module(bench, where[who][0], where[who][1], fqcn, args)
                played = run_playbook(bench, where[who][0], where[who][1], fqcn, args)
                if _round:  # the first round warms the file cache and is not counted
                    samples.setdefault((name, who), []).append((wall, cpu))
                    samples.setdefault((name + ' (playbook)', who), []).append(played)
    # Ironic deletes an active node only in maintenance; bench_all.py measures again in this Ironic.
    bench.raw.call('PUT', '/nodes/%s/maintenance' % uuid, {'reason': 'bench cleanup'})
    bench.raw.delete_nodes([uuid, peer_uuid])
    return samples


def medians(values):
    return statistics.median(wall for wall, _cpu in values), statistics.median(cpu for _wall, cpu in values)


def report(samples):
    rows = []
    for name in sorted(set(name for name, _who in samples)):
        ours, peer = medians(samples[(name, 'ours')]), medians(samples[(name, 'peer')])
        rows.append((name, '%.3f' % ours[0], '%.3f' % peer[0], '%.2fx' % (peer[0] / ours[0]),
                     '%.3f' % ours[1], '%.3f' % peer[1], '%.2fx' % (peer[1] / ours[1])))
    print(common.table(('one-node rerun', 'ours s', 'openstack.cloud s', 'peer / ours', 'ours CPU s',
                        'peer CPU s', 'peer / ours (CPU)'), rows))


def main():
    options = common.rounds_options(__doc__)
    with common.ironic(options.ironic_venv) as bench:
        samples = measure(bench, options.rounds)
    report(samples)


if __name__ == '__main__':
    main()
