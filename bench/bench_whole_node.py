# -*- coding: utf-8 -*-
"""One node, enrolled and available: the no-op rerun of one baremetal_node task against two tasks (issue 19, section 3).

Starts its own Ironic on a free loopback port; one fake-hardware node is enrolled and made available once, then in
each round, in alternating order, the no-op rerun of:
  two tasks   baremetal_node (the record) then baremetal_provision_state (state: available);
  one task    baremetal_node with the same record and provision_state: available.
Both must report changed=0. Reported: the median ansible-playbook wall time of each, their ratio, the API calls.

    python bench/bench_whole_node.py [--repeat 5] [--ironic-venv DIR]
"""

import statistics

import common

RECORD = '''        cloud: %(cloud)s
        name: %(name)s
        driver: fake-hardware
        driver_info:
          deploy_kernel: http://127.0.0.1:9/deploy.kernel
          deploy_ramdisk: http://127.0.0.1:9/deploy.ramdisk
        properties:
          cpu_arch: x86_64
        automated_clean: false
'''

PLAY = '''---
- name: One node, enrolled and available, in %(count)s
  hosts: localhost
  gather_facts: false
  tasks:
'''

TWO_TASKS = PLAY % {'count': 'two tasks'} + '''    - name: Enroll the node
      baremetal.lifecycle.baremetal_node:
%(record)s
    - name: Make it available
      baremetal.lifecycle.baremetal_provision_state:
        cloud: %(cloud)s
        node: %(name)s
        state: available
'''

ONE_TASK = PLAY % {'count': 'one task'} + '''    - name: Enroll the node and make it available
      baremetal.lifecycle.baremetal_node:
%(record)s        provision_state: available
'''


def measure(bench, repeat):
    values = {'cloud': bench.cloud, 'name': 'whole-node-bench'}
    values['record'] = RECORD % values
    playbooks = {'two tasks': bench.write('two.yml', TWO_TASKS % values),
                 'one task': bench.write('one.yml', ONE_TASK % values)}
    _seconds, results = bench.playbook(playbooks['one task'])
    if results['localhost']['node']['provision_state'] != 'available':
        raise common.BenchError('the node did not become available: %s' % results['localhost'])
    samples = dict((path, []) for path in playbooks)
    calls = {}
    for index in range(repeat):
        order = sorted(playbooks) if index % 2 == 0 else sorted(playbooks, reverse=True)
        for path in order:
            seconds, results = bench.playbook(playbooks[path])
            result = results['localhost']
            if result.get('changed'):
                raise common.BenchError('%s: the rerun changed the node: %s' % (path, result))
            calls[path] = result['api_calls']
            samples[path].append(seconds)
        line = ', '.join('%s %.2f s' % (path, samples[path][-1]) for path in sorted(playbooks))
        print('round %d/%d: %s' % (index + 1, repeat, line), flush=True)
    return dict((path, statistics.median(seconds)) for path, seconds in samples.items()), calls


def main():
    parser = common.options_parser(__doc__)
    parser.add_argument('--repeat', type=int, default=5)
    args = parser.parse_args()
    with common.ironic(args.ironic_venv, args.keep) as bench:
        medians, calls = measure(bench, args.repeat)
    print()
    print('no-op rerun of one node, enrolled and available; ansible-playbook wall time, median of %d' % args.repeat)
    print(common.table(('playbook', 'seconds', 'x two tasks', 'API calls (last task)'), [
        ('two tasks: baremetal_node + baremetal_provision_state', '%.2f' % medians['two tasks'], '1.00',
         calls['two tasks']),
        ('one task: baremetal_node with provision_state', '%.2f' % medians['one task'],
         '%.2f' % (medians['one task'] / medians['two tasks']), calls['one task'])]))


if __name__ == '__main__':
    main()
