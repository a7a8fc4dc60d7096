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

import argparse
import http.client
import http.server
import threading

import common


class CountingProxy(object):
    """Forwards to Ironic; counts requests and the bytes of their answers."""

    def __init__(self, upstream_port):
        self.requests = 0
        self.bytes = 0
        self.lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def _forward(self):
                length = int(self.headers.get('Content-Length') or 0)
                body = self.rfile.read(length) if length else None
                upstream = http.client.HTTPConnection('127.0.0.1', upstream_port, timeout=120)
                headers = dict((key, value) for key, value in self.headers.items() if key.lower() != 'host')
                upstream.request(self.command, self.path, body=body, headers=headers)
                response = upstream.getresponse()
                payload = response.read()
                upstream.close()
                with proxy.lock:
                    proxy.requests += 1
                    proxy.bytes += len(payload)
                self.send_response(response.status)
                for key, value in response.getheaders():
                    if key.lower() not in ('connection', 'transfer-encoding', 'content-length'):
                        self.send_header(key, value)
                self.send_header('Content-Length', str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_PUT = do_POST = do_PATCH = do_DELETE = _forward

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.server.daemon_threads = True
        self.endpoint = 'http://127.0.0.1:%d' % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def count(self):
        return self.requests, self.bytes

    def close(self):
        self.server.shutdown()
        self.server.server_close()


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
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--nodes', type=int, default=20, help='nodes converged (default 20)')
    parser.add_argument('--total', type=int, default=2000, help='nodes Ironic holds in the big case (default 2000)')
    parser.add_argument('--ironic-venv', default=common.default_ironic_venv(),
                        help='virtualenv with Ironic (default $IRONIC_VENV or .work/ironic-venv)')
    parser.add_argument('--keep', action='store_true', help='keep the temporary directory (Ironic logs)')
    args = parser.parse_args()
    with common.ironic(args.ironic_venv, args.keep) as bench:
        proxy = CountingProxy(bench.port)
        try:
            small = fleet_case(bench, proxy, args.nodes, 'small')
            # The small case's nodes stay: fill up so that Ironic holds the total when the big case's module runs.
            filler = args.total - 3 * args.nodes
            print('filling Ironic with %d more nodes' % filler, flush=True)
            bench.raw.create_nodes(filler, 'filler')
            big = fleet_case(bench, proxy, args.nodes, 'big')
        finally:
            proxy.close()
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
          'poll lists the nodes of one transient state (provision_state filter) and GETs the few that left it.')
    print('list-all: the raw floor polling one list of every node, as every fleet poll did before.')


if __name__ == '__main__':
    main()
