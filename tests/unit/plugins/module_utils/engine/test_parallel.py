# -*- coding: utf-8 -*-
"""Running an action on many items (engine/parallel.py): each keeps its own result or error, at most concurrency at once."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.parallel import run_each
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.outcome import failure_message
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError


def test_a_failing_item_keeps_its_error_and_the_others_go_on():
    def action(item):
        if item == 2:
            raise BaremetalError('node 2 refused', {'changed': False, 'node': {'name': 'two'}})
        return {'changed': True, 'item': item}

    results = run_each([1, 2, 3], action, concurrency=2)
    assert results == [{'changed': True, 'item': 1},
                       {'changed': False, 'node': {'name': 'two'}, 'error': 'node 2 refused'},
                       {'changed': True, 'item': 3}]
    assert failure_message(results, ['a', 'b', 'c']) == '1 of the 3 nodes to change failed: b: node 2 refused'
    assert failure_message(results[:1], ['a']) is None


def test_at_most_concurrency_items_run_at_once():
    """Each item waits at a barrier for two others: three run at once (a serial run breaks the barrier), and the
    peak says no fourth ever joined them."""
    running, peak, lock = [0], [0], threading.Lock()
    three_at_once = threading.Barrier(3, timeout=10)

    def action(item):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        three_at_once.wait()
        with lock:
            running[0] -= 1
        return {'item': item}

    assert [result['item'] for result in run_each(range(9), action, concurrency=3)] == list(range(9))
    assert peak[0] == 3
