# -*- coding: utf-8 -*-
"""One node from enroll to active: baremetal_provision_state against the same verbs over raw REST.

Starts its own Ironic on a free loopback port, and in the same run measures, on fresh fake-hardware nodes:
  floor       manage, provide, active over raw REST, one GET of the node every 50 ms;
  module      the module process alone (Python start-up included), with endpoint and with a clouds.yaml cloud;
  playbook    ansible-playbook with one task.
Each is run again once the node is active: that no-op run is the fixed start-up (Python, imports, Ansible,
reading the node). Target: within 1.5x of the floor plus that fixed start-up.

    python bench/bench_single.py [--repeat 5] [--ironic-venv DIR]
"""

import statistics

import common


def playbook_for(bench, ident):
    return bench.write('single-%s.yml' % ident, '''---
- name: One node to active
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Deploy the node
      baremetal.lifecycle.baremetal_provision_state:
        cloud: %s
        node: %s
        state: active
''' % (bench.cloud, ident))


def run(bench, repeat):
    raw = bench.raw
    samples = {}
    calls = {}

    def record(name, seconds, api_calls):
        samples.setdefault(name, []).append(seconds)
        calls[name] = api_calls

    created = []
    for index in range(repeat):
        uuid = raw.create_nodes(1, 'floor-%d' % index)[1][0]
        created.append(uuid)
        record('floor', *common.floor(raw, [uuid], common.TO_ACTIVE, 0.05, one_get=True))

        for name, connection in (('endpoint', {'endpoint': bench.endpoint}), ('cloud', {'cloud': bench.cloud})):
            uuid = raw.create_nodes(1, '%s-%d' % (name, index))[1][0]
            created.append(uuid)
            # The second run finds the node active: what is left is the fixed cost of a module run.
            for run_name in (name, name + ' no-op'):
                seconds, result = bench.module('baremetal_provision_state', node=uuid, state='active', **connection)
                if result.get('failed') or result['node']['provision_state'] != 'active':
                    raise common.BenchError('module (%s): %s' % (run_name, result.get('msg')))
                record(run_name, seconds, result['api_calls'])

        uuid = raw.create_nodes(1, 'playbook-%d' % index)[1][0]
        created.append(uuid)
        playbook = playbook_for(bench, uuid)
        for name in ('playbook', 'playbook no-op'):
            seconds, results = bench.playbook(playbook)
            record(name, seconds, results['localhost']['api_calls'])
        print('round %d/%d done' % (index + 1, repeat), flush=True)
    for uuid in created:  # Ironic deletes an active node only in maintenance; bench_all.py goes on in this Ironic
        raw.call('PUT', '/nodes/%s/maintenance' % uuid, {'reason': 'bench cleanup'})
    raw.delete_nodes(created)
    return dict((name, statistics.median(values)) for name, values in samples.items()), calls


def report(medians, calls, repeat):
    floor = medians['floor']
    labels = [
        ('floor', 'floor: raw REST, GET every 50 ms'),
        ('endpoint', 'module process, endpoint'),
        ('endpoint no-op', '  same, node already active'),
        ('cloud', 'module process, clouds.yaml cloud'),
        ('cloud no-op', '  same, node already active'),
        ('playbook', 'ansible-playbook, one task (cloud)'),
        ('playbook no-op', '  same, node already active'),
    ]
    print()
    print('one fake-hardware node, enroll -> active (manage, provide, active); median of %d' % repeat)
    print(common.table(('path', 'seconds', 'x floor', 'API calls'), [
        (label, '%.3f' % medians[name], '%.2f' % (medians[name] / floor), calls[name]) for name, label in labels]))
    print()
    print('target: within 1.5x of the floor plus the fixed start-up (the same run on a node already active)')
    for name in ('endpoint', 'cloud', 'playbook'):
        fixed = medians[name + ' no-op']
        print('  %-9s %.3f s - %.3f s fixed = %.3f s = %.2fx the floor: %s' % (
            name, medians[name], fixed, medians[name] - fixed, (medians[name] - fixed) / floor,
            'yes' if medians[name] <= 1.5 * floor + fixed else 'NO'))


def main():
    parser = common.options_parser(__doc__)
    parser.add_argument('--repeat', type=int, default=5, help='rounds; the median is reported (default 5)')
    args = parser.parse_args()
    with common.ironic(args.ironic_venv, args.keep) as bench:
        medians, calls = run(bench, args.repeat)
    report(medians, calls, args.repeat)


if __name__ == '__main__':
    main()
