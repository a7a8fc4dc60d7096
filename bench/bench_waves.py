# -*- coding: utf-8 -*-
"""A rolling servicing of active nodes in waves: baremetal_provision_state with wave_size against raw REST.

Starts its own Ironic on a free loopback port; in the same run, on the same active fake-hardware nodes:
  floor    raw REST doing the same waves: each wave's service requests back to back, a list every 100 ms until
           they all rest, then one list to read them again (the health check), then the next wave;
  module   baremetal_provision_state with nodes, state: active, service_steps, wave_size.
Each round runs the floor and the module once (in alternating order). Reported: the medians, their ratio, and the
module's overhead per wave ((module - floor) / waves). Target: a small overhead per wave, well under a second.

    python bench/bench_waves.py [--nodes 50] [--wave-size 10] [--repeat 3] [--ironic-venv DIR]
"""

import statistics
import time

import common

# A service step the fake hardware type runs (the vendor interface logs the call).
SERVICE_STEPS = [{'interface': 'vendor', 'step': 'log_passthrough', 'args': {}}]


def floor_in_waves(raw, uuids, wave_size):
    """Service the nodes wave after wave over raw REST; (seconds, API calls)."""
    calls = raw.calls
    started = time.monotonic()
    for start in range(0, len(uuids), wave_size):
        wave = set(uuids[start:start + wave_size])
        for uuid in sorted(wave):
            raw.call('PUT', '/nodes/%s/states/provision' % uuid, {'target': 'service', 'service_steps': SERVICE_STEPS})
        pending = set(wave)
        while pending:
            time.sleep(0.1)
            for node in raw.list_nodes():
                if node['uuid'] in pending and node['target_provision_state'] is None:
                    if node['provision_state'] != 'active':
                        raise common.BenchError('floor: %s is %s: %s' % (node['uuid'], node['provision_state'],
                                                                         node['last_error']))
                    pending.discard(node['uuid'])
        raw.list_nodes(fields='uuid,provision_state,maintenance,fault,power_state')  # the health check
    return time.monotonic() - started, raw.calls - calls


def active_nodes(bench, count):
    names, uuids = bench.raw.create_nodes(count, 'waves')
    common.floor(bench.raw, uuids, common.TO_ACTIVE, 0.1)
    return names, uuids


def measure(bench, count, wave_size, repeat):
    names, uuids = active_nodes(bench, count)
    samples = {'floor': [], 'module': []}
    calls = {}
    waves = -(-count // wave_size)
    for index in range(repeat):
        order = ('floor', 'module') if index % 2 == 0 else ('module', 'floor')
        for path in order:
            if path == 'floor':
                seconds, calls['floor'] = floor_in_waves(bench.raw, uuids, wave_size)
            else:
                seconds, result = bench.module('baremetal_provision_state', cloud=bench.cloud, nodes=names, state='active',
                                               service_steps=SERVICE_STEPS, wave_size=str(wave_size))
                if result.get('failed') or len(result['waves']) != waves:
                    raise common.BenchError('module: %s' % result.get('msg'))
                calls['module'] = result['api_calls']
            samples[path].append(seconds)
        print('round %d/%d: floor %.2f s, module %.2f s' % (index + 1, repeat, samples['floor'][-1],
                                                            samples['module'][-1]), flush=True)
    for uuid in uuids:  # Ironic deletes an active node only in maintenance
        bench.raw.call('PUT', '/nodes/%s/maintenance' % uuid, {'reason': 'bench cleanup'})
    bench.raw.delete_nodes(uuids)
    return dict((path, statistics.median(values)) for path, values in samples.items()), calls, waves


def main():
    parser = common.options_parser(__doc__)
    parser.add_argument('--nodes', type=int, default=50)
    parser.add_argument('--wave-size', type=int, default=10)
    parser.add_argument('--repeat', type=int, default=3)
    args = parser.parse_args()
    with common.ironic(args.ironic_venv, args.keep) as bench:
        medians, calls, waves = measure(bench, args.nodes, args.wave_size, args.repeat)
    floor, module = medians['floor'], medians['module']
    print()
    print('%d active fake-hardware nodes serviced in %d waves of %d; median of %d'
          % (args.nodes, waves, args.wave_size, args.repeat))
    print(common.table(('path', 'seconds', 'x floor', 'API calls'), [
        ('floor: raw REST, same waves, list every 100 ms', '%.2f' % floor, '1.00', calls['floor']),
        ('baremetal_provision_state, wave_size', '%.2f' % module, '%.2f' % (module / floor), calls['module'])]))
    print('overhead per wave: %.2f s' % ((module - floor) / waves))


if __name__ == '__main__':
    main()
