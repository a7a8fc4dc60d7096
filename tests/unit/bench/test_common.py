# -*- coding: utf-8 -*-
"""bench/common.py: a bench that gets SIGTERM (a timeout, kill PID) still stops the Ironic it started."""

import os
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'bench'))
import common  # noqa: E402

# A run that, inside ended_by_sigterm, says it is ready and waits; its finally block stands for Bench.stop.
RUN = '''
import sys, time
sys.path.insert(0, %r)
import common
with common.ended_by_sigterm():
    try:
        print('ready', flush=True)
        for _second in range(60):
            time.sleep(1)
    finally:
        with open(%r, 'w') as handle:
            handle.write('stopped')
'''


def test_sigterm_runs_the_finally_blocks_that_stop_what_the_run_started(tmp_path):
    stopped = tmp_path / 'stopped'
    process = subprocess.Popen([sys.executable, '-c', RUN % (os.path.join(ROOT, 'bench'), str(stopped))],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline() == 'ready\n'  # the handler is in place: the event, not a delay
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 143
    finally:
        process.kill()
        process.wait()
    assert stopped.read_text() == 'stopped'


def test_the_handler_before_it_is_put_back():
    before = signal.getsignal(signal.SIGTERM)
    with common.ended_by_sigterm():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before
