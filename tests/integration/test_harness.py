# -*- coding: utf-8 -*-
"""The test harness itself (tests/conftest.py, tests/integration/conftest.py), exercised against Ironic directly."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

import pytest
from process_groups import group_members, stop_process_groups

# The installed collection the tests run (tests/conftest.py's COLLECTIONS).
COLLECTIONS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), '.work',
                           'collections')


def wait_for_stable(ironic, node, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        current = ironic.api('GET', '/nodes/%s' % node)
        if current['target_provision_state'] is None:
            return current
        time.sleep(0.05)
    raise AssertionError('node %s is still moving: %s' % (node, current['provision_state']))


def test_fresh_node_is_created_in_enroll_with_a_unique_name(fresh_node):
    first, second = fresh_node(), fresh_node(resource_class='baremetal')
    assert first['provision_state'] == 'enroll' and first['driver'] == 'fake-hardware'
    assert first['name'] != second['name']
    assert second['resource_class'] == 'baremetal'


def test_write_requests_since_sees_writes_and_only_writes(ironic, fresh_node):
    node = fresh_node()
    mark = ironic.log_mark()
    ironic.api('GET', '/v1/nodes/%s' % node['uuid'])
    assert ironic.write_requests_since(mark) == []

    ironic.api('PUT', '/nodes/%s/states/provision' % node['uuid'], {'target': 'manage'})
    assert wait_for_stable(ironic, node['uuid'])['provision_state'] == 'manageable'
    assert ironic.write_requests_since(mark) == [('PUT', '/v1/nodes/%s/states/provision' % node['uuid'], 202)]

    again = ironic.log_mark()
    ironic.api('GET', '/nodes/%s' % node['name'])
    assert ironic.write_requests_since(again) == []


class RewrittenLog:
    """A copy of the session Ironic's log, kept up to date by a thread, with each line rewritten by ``rewrite``:
    an instance whose ``log_path`` is the copy sees the same requests written in another format."""

    def __init__(self, ironic, path, rewrite):
        self.ironic = copy.copy(ironic)
        self.ironic.log_path = str(path)
        self.source = ironic.log_path
        self.rewrite = rewrite
        self.stopped = threading.Event()
        self.copy_once()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def copy_once(self):
        with open(self.source, encoding='utf-8', errors='replace') as source:
            text = ''.join(self.rewrite(line) for line in source)
        # Written aside and renamed: a reader between truncating and writing the copy would see an empty log.
        partial = self.ironic.log_path + '.partial'
        with open(partial, 'w', encoding='utf-8') as target:
            target.write(text)
        os.replace(partial, self.ironic.log_path)

    def run(self):
        while not self.stopped.wait(0.02):
            self.copy_once()

    def __enter__(self):
        self.thread.start()
        return self.ironic

    def __exit__(self, *exc_info):
        self.stopped.set()
        self.thread.join()


# Ironic 32.0 and newer log a request themselves; earlier releases leave it to eventlet's WSGI server.
NEWER = re.compile(r' INFO ironic\.api (\[[^]]*\]) (\S+) - ([A-Z]+) (\S+) - (\d{3}) \(([0-9.]+)ms\)')
OLDER = re.compile(r' INFO eventlet\.wsgi\.server (\[[^]]*\]) (\S+) "([A-Z]+) (\S+) HTTP/1\.1" status: (\d{3})  len: \d+ '
                   r'time: ([0-9.]+)')


def as_older_format(line):
    return NEWER.sub(r' INFO eventlet.wsgi.server \1 \2 "\3 \4 HTTP/1.1" status: \5  len: 0 time: \6', line)


def as_newer_format(line):
    return OLDER.sub(r' INFO ironic.api \1 \2 - \3 \4 - \5 (\6ms)', line)


def as_unknown_format(line):
    """An access log in Apache's common format, which the harness does not read."""
    line = NEWER.sub(r' INFO ironic.access \2 - - "\3 \4" \5 0', line)
    return OLDER.sub(r' INFO ironic.access \2 - - "\3 \4" \5 0', line)


@pytest.mark.parametrize('rewrite', [as_older_format, as_newer_format], ids=['eventlet-format', 'ironic-api-format'])
def test_the_write_counter_reads_the_request_lines_of_every_supported_release(ironic, fresh_node, tmp_path, rewrite):
    node = fresh_node()
    with RewrittenLog(ironic, tmp_path / 'ironic.log', rewrite) as rewritten:
        mark = rewritten.log_mark()
        ironic.api('GET', '/nodes/%s' % node['uuid'])
        assert rewritten.write_requests_since(mark) == []
        ironic.api('PATCH', '/nodes/%s' % node['uuid'], [{'op': 'add', 'path': '/extra/seen', 'value': 'yes'}])
        assert rewritten.write_requests_since(mark) == [('PATCH', '/v1/nodes/%s' % node['uuid'], 200)]


def test_the_write_counter_fails_on_a_log_it_cannot_read_instead_of_counting_nothing(ironic, fresh_node, tmp_path):
    node = fresh_node()
    with RewrittenLog(ironic, tmp_path / 'ironic.log', as_unknown_format) as rewritten:
        mark = rewritten.log_mark()
        ironic.api('PATCH', '/nodes/%s' % node['uuid'], [{'op': 'add', 'path': '/extra/seen', 'value': 'yes'}])
        with pytest.raises(AssertionError, match=r'cannot read the API requests in .*ironic\.access'):
            rewritten.write_requests_since(mark)


def test_the_write_counter_fails_on_a_log_that_shows_no_request(ironic, tmp_path):
    silent = copy.copy(ironic)
    silent.log_path = str(tmp_path / 'ironic.log')
    (tmp_path / 'ironic.log').write_text('2026-01-01 00:00:00.000 1 INFO ironic.common.service Started\n', encoding='utf-8')
    with pytest.raises(AssertionError, match='never appeared'):
        silent._sync_log(timeout=0.5)  # pylint: disable=protected-access


def test_raw_calls_ask_for_the_servers_newest_api_version_at_most(ironic):
    served = ironic.api('GET', '/')['default_version']['version']
    assert ironic.server_version == served
    assert ironic.api_version() == min(served, '1.115', key=lambda version: tuple(map(int, version.split('.'))))
    assert ironic.api_version('1.1') == '1.1'


def test_api_errors_carry_the_status(ironic):
    try:
        ironic.api('GET', '/nodes/no-such-node')
    except AssertionError as error:
        assert error.status == 404
    else:
        raise AssertionError('a missing node must raise')
    assert ironic.api('GET', '/nodes/no-such-node', expect=(404,))['error_message']


def test_run_module_reports_a_module_that_cannot_run(run_module):
    result = run_module('no_such_module_here')
    assert result['failed'] is True
    assert 'no_such_module_here' in result['msg']


def python_m(ironic, tmp_path, module, args):
    """(exit status, stdout, stderr) of the module run as a new interpreter runs it: python -m MODULE ARGS_FILE."""
    args_file = tmp_path / 'python-m.json'
    args_file.write_text(json.dumps({'ANSIBLE_MODULE_ARGS': dict(args, cloud=ironic.cloud_name)}), encoding='utf-8')
    env = dict(os.environ, PYTHONPATH=COLLECTIONS, OS_CLIENT_CONFIG_FILE=ironic.clouds_yaml)
    process = subprocess.run(
        [sys.executable, '-m', 'ansible_collections.baremetal.lifecycle.plugins.modules.%s' % module, str(args_file)],
        cwd=str(tmp_path), env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, check=False)
    return process.returncode, process.stdout, process.stderr


@pytest.mark.parametrize('args', [{'node': 'no-such-node-here'}, {'nodes': ['x']}], ids=['not found', 'bad option'])
def test_a_module_run_by_the_module_server_is_the_run_python_m_makes(ironic, run_module, tmp_path, args):
    rc, stdout, stderr = python_m(ironic, tmp_path, 'baremetal_node_info', args)
    assert rc == 1 and stderr == ''
    assert run_module('baremetal_node_info', **args) == json.loads(stdout)


def test_each_module_run_has_its_own_environment_and_a_run_past_its_timeout_is_killed(ironic, module_server, tmp_path):
    args_file = tmp_path / 'args.json'
    args_file.write_text(json.dumps({'ANSIBLE_MODULE_ARGS': {'cloud': ironic.cloud_name, 'node': 'no-such-node'}}),
                         encoding='utf-8')
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith('OS_'))
    env['PYTHONPATH'] = COLLECTIONS
    missing = str(tmp_path / 'no-clouds.yaml')
    rc, stdout, _stderr = module_server.run('baremetal_node_info', args_file, tmp_path,
                                            dict(env, OS_CLIENT_CONFIG_FILE=missing), 300)
    assert rc == 1 and missing in json.loads(stdout)['msg']
    rc, stdout, _stderr = module_server.run('baremetal_node_info', args_file, tmp_path,
                                            dict(env, OS_CLIENT_CONFIG_FILE=ironic.clouds_yaml), 300)
    assert rc == 1 and missing not in stdout and 'no-such-node' in json.loads(stdout)['msg']
    # No OS_CLIENT_CONFIG_FILE: the clouds.yaml of the run's working directory, as openstacksdk looks for it first.
    own = tmp_path / 'own-directory'
    own.mkdir()
    shutil.copyfile(ironic.clouds_yaml, own / 'clouds.yaml')
    rc, stdout, _stderr = module_server.run('baremetal_node_info', args_file, own, env, 300)
    assert rc == 1 and 'no-such-node' in json.loads(stdout)['msg'], stdout
    with pytest.raises(subprocess.TimeoutExpired):
        module_server.run('baremetal_node_info', args_file, tmp_path, dict(env, OS_CLIENT_CONFIG_FILE=missing), 0.001)
    rc, stdout, _stderr = module_server.run('baremetal_node_info', args_file, tmp_path,
                                            dict(env, OS_CLIENT_CONFIG_FILE=missing), 300)
    assert rc == 1 and missing in json.loads(stdout)['msg']  # the server serves on


def test_run_playbook_gets_the_environment_and_the_extra_vars(ironic, run_playbook):
    rc, output = run_playbook('''
- hosts: localhost
  gather_facts: false
  tasks:
    - ansible.builtin.uri:
        url: "{{ endpoint }}/"
      register: root
    - ansible.builtin.debug:
        msg: "config={{ lookup('ansible.builtin.env', 'OS_CLIENT_CONFIG_FILE') }} version={{ root.json.default_version.version }}"
''', {'endpoint': ironic.endpoint})
    assert rc == 0, output
    assert 'config=%s version=' % ironic.clouds_yaml in output


def started_group(tmp_path, name, script):
    """A process group started the way the role starts one (setsid, its id in the pid file ``name``), once ``script``
    has run (it writes the file ``<name>.ready`` when its signal handlers are set)."""
    ready = tmp_path / (name + '.ready')
    process = subprocess.Popen(  # pylint: disable=consider-using-with
        [sys.executable, '-c', script + 'open(%r, "w").close()\ntime.sleep(60)\n' % str(ready)],
        start_new_session=True)
    (tmp_path / name).write_text('%d\n' % process.pid, encoding='utf-8')
    deadline = time.monotonic() + 30
    while not ready.exists():
        assert time.monotonic() < deadline and process.poll() is None, 'the process of %s never got ready' % name
        time.sleep(0.05)
    ready.unlink()
    return process


def test_an_instance_is_stopped_by_its_pid_files_ironic_first_and_a_process_deaf_to_sigterm_is_killed(tmp_path):
    order = tmp_path / 'order'
    # Ironic writes that it got SIGTERM and ends; the database server writes so too, but goes on: SIGKILL ends it.
    ironic = started_group(tmp_path, 'ironic.pid', (
        'import signal, sys, time\n'
        'def end(*_):\n'
        '    open(%r, "a").write("ironic\\n"); sys.exit(0)\n'
        'signal.signal(signal.SIGTERM, end)\n') % str(order))
    database = started_group(tmp_path, 'postgresql.pid', (
        'import signal, time\n'
        'signal.signal(signal.SIGTERM, lambda *_: open(%r, "a").write("database\\n"))\n') % str(order))
    other = started_group(tmp_path, 'other.pid', 'import time\n')

    stop_process_groups(tmp_path, timeout=1)

    assert ironic.wait(5) == 0 and order.read_text(encoding='utf-8') == 'ironic\ndatabase\n'
    assert database.wait(5) == -9
    assert not group_members(ironic.pid) and not group_members(database.pid)
    assert sorted(os.listdir(tmp_path)) == ['order', 'other.pid']  # only the role's pid files are its
    assert other.poll() is None
    other.kill()
    other.wait(5)
