# -*- coding: utf-8 -*-
"""bench/common.py: a bench that gets SIGTERM (a timeout, kill PID) still stops the Ironic it started; a command's
usage is its own; a playbook it writes runs the checkout it measures."""

import os
import shutil
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


def test_a_commands_peak_memory_is_its_own_not_the_bench_s():
    # A process's peak starts at its parent's size when forked: started by this Python, holding 300 MiB, an empty
    # Python read over 300 MiB.
    held = b'x' * (300 << 20)
    returncode, _cpu, peak = common.wait_usage(common.start_measured([sys.executable, '-c', 'pass']))
    assert len(held) and returncode == 0 and peak < 100


def test_a_commands_exit_code_cpu_and_peak_are_read():
    command = [sys.executable, '-c', 'import sys; held = b"x" * (200 << 20); sum(range(10 ** 7)); sys.exit(3)']
    returncode, cpu, peak = common.wait_usage(common.start_measured(command))
    assert returncode == 3 and cpu > 0.05 and peak >= 200


def test_sigterm_to_a_measured_command_reaches_the_command():
    started = common.start_measured([sys.executable, '-c', 'import time; print("ready", flush=True); time.sleep(60)'],
                                    stdout=subprocess.PIPE, text=True)
    process = started[0]
    try:
        assert process.stdout.readline() == 'ready\n'
        process.send_signal(signal.SIGTERM)
        assert common.wait_usage(started)[0] == -signal.SIGTERM
    finally:
        process.kill()
        process.wait()


def test_a_playbook_the_bench_writes_runs_the_checkout_it_measures(tmp_path):
    # ansible-playbook looks first in a collections directory beside the playbook; the bench writes its playbooks in
    # its own directory, where the collection of this checkout must not be found by that name, or a playbook meant
    # for another checkout (of_checkout, make bench --old-checkout) runs this one.
    other = tmp_path / 'other-checkout'
    other.symlink_to(ROOT)
    bench = common.Bench(os.path.join(ROOT, '.work', 'ironic-venv'))
    try:
        old = bench.of_checkout(str(other))
        play = bench.write('play.yml', '- hosts: localhost\n  gather_facts: false\n  tasks:\n'
                                       '    - baremetal.lifecycle.baremetal_node_info:\n'
                                       '        endpoint: http://127.0.0.1:9\n        node: absent\n'
                                       '      ignore_errors: true\n')
        for view in (bench, old):
            output = subprocess.run([common.tool('ansible-playbook'), play, '-vvvv'], env=view.env, check=True,
                                    capture_output=True, text=True).stdout
            loaded = [line for line in output.splitlines() if line.startswith('Loading collection baremetal.lifecycle')]
            assert loaded == ['Loading collection baremetal.lifecycle from %s'
                              % os.path.join(view.collections, 'ansible_collections', 'baremetal', 'lifecycle')], output
    finally:
        shutil.rmtree(bench.dir)
