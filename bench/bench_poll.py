# -*- coding: utf-8 -*-
"""A small fleet inside a big Ironic: what converging 20 nodes costs when Ironic holds 20 and when it holds 2,000.

Starts its own Ironic on a free loopback port. Every request goes through a counting proxy on loopback, so the
figures are requests and response bytes as Ironic sent them. In the same run it measures, for the same 20
fake-hardware nodes from enroll to available (manage, provide):
  module        baremetal_provision_state with nodes: (lookup, polls, verbs), then a no-op rerun;
  list-all      the raw REST floor polling with one list of every node per poll (what each poll cost before);
first with 20 nodes in Ironic, then after filling Ironic up to --total nodes.

    python bench/bench_poll.py [--nodes 20] [--total 2000] [--ironic-venv DIR]
"""

import os
import sys

import common

# One loopback proxy for the tests and this bench: it counts requests and answer bytes (tests/integration/proxy.py,
# with its handler from tests/loopback_http.py).
TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests')
sys.path[:0] = [os.path.join(TESTS, 'integration'), TESTS]
from proxy import FaultProxy  # noqa: E402  pylint: disable=wrong-import-position


def measure(proxy, action):
    requests, size = proxy.count()
    result = action()
    after = proxy.count()
    return after[0] - requests, after[1] - size, result


def fleet_case(bench, proxy, count, label):
    """The three measurements for `count` new nodes; returns {measurement: (requests, bytes, seconds)}."""
    figures = {}
    names, _uuids = bench.raw.create_nodes(count, '%s-module' % label)
    for name in ('module', 'module no-op'):
        requests, size, (seconds, result) = measure(proxy, lambda: bench.module(
            'baremetal_provision_state', nodes=names, state='available', concurrency=count, endpoint=proxy.endpoint))
        if result.get('failed'):
            raise common.BenchError('%s (%s): %s' % (name, label, result.get('msg')))
        figures[name] = (requests, size, seconds)
    floor_raw = common.RawIronic(proxy.endpoint)
    _names, uuids = bench.raw.create_nodes(count, '%s-floor' % label)
    requests, size, (seconds, _calls) = measure(proxy, lambda: common.floor(floor_raw, uuids, common.TO_AVAILABLE,
                                                                            0.05))
    figures['list-all'] = (requests, size, seconds)
    return figures


def main():
    parser = common.options_parser(__doc__)
    parser.add_argument('--nodes', type=int, default=20, help='nodes converged (default 20)')
    parser.add_argument('--total', type=int, default=2000, help='nodes Ironic holds in the big case (default 2000)')
    args = parser.parse_args()
    with common.ironic(args.ironic_venv, args.keep) as bench:
        with FaultProxy(bench.port) as proxy:
            small = fleet_case(bench, proxy, args.nodes, 'small')
            # The small case's nodes stay: fill up so that Ironic holds the total when the big case's module runs.
            filler = args.total - 3 * args.nodes
            print('filling Ironic with %d more nodes' % filler, flush=True)
            bench.raw.create_nodes(filler, 'filler')
            big = fleet_case(bench, proxy, args.nodes, 'big')
    rows = []
    for name in ('module', 'module no-op', 'list-all'):
        (s_req, s_bytes, s_sec), (b_req, b_bytes, b_sec) = small[name], big[name]
        rows.append((name, s_req, b_req, '%.1f' % (float(b_req) / s_req), s_bytes, b_bytes,
                     '%.1f' % (float(b_bytes) / s_bytes), '%.2f' % s_sec, '%.2f' % b_sec))
    print()
    print('%d nodes enroll -> available, in an Ironic holding %d nodes, then %d (big)' % (
        args.nodes, args.nodes, args.total))
    print(common.table(('path', 'requests', 'big', 'x', 'bytes', 'big', 'x', 'seconds', 'big'), rows))
    print()
    print('module: lookup reads one list of 2x the nodes asked for plus a GET for each node it did not hold; each '
          'poll lists the nodes of one transient state (provision_state filter), looks for those that left it in '
          'one list of their landing state\'s latest arrivals, and GETs the few in neither.')
    print('list-all: the raw floor polling one list of every node, as every fleet poll did before.')


if __name__ == '__main__':
    main()
