# -*- coding: utf-8 -*-
"""Ironic's own pacing, for real: past [conductor]max_concurrent_deploy it answers a deploy with HTTP 503 and does
nothing. A fleet task that asks for more nodes at once than that must treat the answer as back-pressure: every node
deployed, none failed, and no storm of refused requests."""

from __future__ import annotations

import threading
import time

from dedicated import result_of, start_module
from nodes import RawIronic

NODES = 4
LIMIT = 1  # [conductor] max_concurrent_deploy
DEPLOY_SECONDS = 1  # [fake] deploy_delay: each fake deploy step sleeps this long


def test_a_task_asking_more_than_ironics_deploy_limit_is_paced_by_it_and_deploys_every_node(make_ironic, tmp_path):
    ironic = make_ironic()
    ironic.role_vars['ironic_standalone_config_overrides'] = {'conductor': {'max_concurrent_deploy': LIMIT},
                                                              'fake': {'deploy_delay': DEPLOY_SECONDS}}
    ironic.start()
    raw = RawIronic(ironic)
    names = []
    for _index in range(NODES):
        node = raw.create('paced', automated_clean=False)
        raw.verb(node['uuid'], 'manage')
        raw.verb(node['uuid'], 'provide')
        names.append(node['name'])

    deploying_peak = [0]
    done = threading.Event()

    def watch():
        while not done.is_set():
            listed = ironic.api('GET', '/v1/nodes?fields=provision_state')['nodes']
            deploying_peak[0] = max(deploying_peak[0], sum(node['provision_state'] in ('deploying', 'wait call-back')
                                                           for node in listed))
            time.sleep(0.1)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    mark = ironic.log_mark()
    try:
        result = result_of(start_module(ironic, tmp_path, nodes=names, state='active', concurrency=NODES,
                                        timeout=300))
    finally:
        done.set()
        watcher.join(timeout=10)

    assert not result.get('failed'), result.get('msg')
    assert [entry['node']['provision_state'] for entry in result['nodes']] == ['active'] * NODES
    assert all(entry['error'] is None for entry in result['nodes'])
    assert 0 < deploying_peak[0] <= LIMIT
    puts = [request for request in ironic.requests_since(mark) if request.method == 'PUT']
    refused = [request for request in puts if request.status == 503]
    accepted = [request for request in puts if request.status == 202]
    # Ironic did push back, and the task answered it with one more try each time one of its nodes came to rest, not
    # with a storm of retries (sent again after 0.1, 0.2, 0.4... s, each node would be refused about once a second).
    print('%d deploys accepted, %d refused with HTTP 503' % (len(accepted), len(refused)))
    assert len(accepted) == NODES
    assert 0 < len(refused) <= NODES
