# -*- coding: utf-8 -*-
"""A dedicated Ironic (from the harness's make_ironic) with extra configuration, killed and restarted for real,
and the provision module run against it in the background."""

from __future__ import annotations

import configparser
import json
import os
import signal
import subprocess
import sys
import time

from process_groups import live_stat

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COLLECTIONS = os.path.join(ROOT, '.work', 'collections')
PYTHON = sys.executable  # the ansible-core under test (tests/conftest.py)


def spawn(instance):
    """Start Ironic the way the role does (setsid, pid file = process group) and wait for its API."""
    subprocess.run(
        ['setsid', '-f', '/bin/sh', '-c', 'echo $$ > "$1"; exec "$2" --config-file "$3" < /dev/null >> "$4" 2>&1',
         'ironic-standalone', instance.pid_path, os.path.join(instance.venv, 'bin', 'ironic'),
         os.path.join(instance.base_dir, 'ironic.conf'), os.path.join(instance.base_dir, 'ironic.out')],
        check=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if instance.api('GET', '/v1/drivers')['drivers']:
                return time.monotonic()
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError('Ironic did not come back on %s' % instance.endpoint)


def kill(instance):
    os.killpg(instance.pid, signal.SIGKILL)
    os.remove(instance.pid_path)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            instance.api('GET', '/')
        except OSError:
            return
        time.sleep(0.05)
    raise AssertionError('Ironic still answers after SIGKILL')


def module_process(module, args, tmp_path, **env):
    """A module of the installed collection started as Ansible starts it (its arguments in a file), in the
    background, with none of the caller's OS_* and CA bundle variables: only those given in env."""
    environment = dict((key, value) for key, value in os.environ.items()
                       if not key.startswith('OS_') and key not in ('REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE'))
    environment.update(PYTHONPATH=COLLECTIONS, **env)
    path = tmp_path / ('args-%s-%d.json' % (module, time.monotonic_ns()))
    path.write_text(json.dumps({'ANSIBLE_MODULE_ARGS': args}), encoding='utf-8')
    return subprocess.Popen(
        [PYTHON, '-m', 'ansible_collections.baremetal.lifecycle.plugins.modules.%s' % module, str(path)],
        cwd=str(tmp_path), env=environment, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def module_result(module, args, tmp_path, **env):
    """The result of module_process, once it has ended."""
    return result_of(module_process(module, args, tmp_path, **env))


def start_module(instance, tmp_path, module='baremetal_provision_state', env=None, **args):
    """Run a module of the collection against the instance in the background (with env added to its environment);
    result_of() waits for its result."""
    return module_process(module, dict(args, endpoint=instance.endpoint, _ansible_check_mode=False,
                                       _ansible_diff=False), tmp_path, **(env or {}))


def result_of(process, timeout=300):
    stdout, stderr = process.communicate(timeout=timeout)
    assert stdout.strip(), stderr
    return json.loads(stdout)


def spawn_with(instance, extra_conf):
    """Start the instance with the role, extra_conf (ironic.conf text: sections and options) written at the end of
    its ironic.conf (the role's ironic_standalone_config_overrides), in one start-up; returns when its API answers
    (time.monotonic())."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str
    parser.read_string(extra_conf)
    overrides = instance.role_vars.setdefault('ironic_standalone_config_overrides', {})
    for section in parser.sections():
        overrides.setdefault(section, {}).update(parser.items(section))
    instance.start()
    return time.monotonic()


def pid_files(instance):
    """The role's pid files in the instance's base directory, sorted."""
    return sorted(name for name in os.listdir(instance.base_dir) if name.endswith('.pid'))


def recorded_pids(instance):
    """The pid of every pid file, in the order of pid_files()."""
    pids = []
    for name in pid_files(instance):
        with open(os.path.join(instance.base_dir, name), encoding='utf-8') as handle:
            pids.append(int(handle.read().strip()))
    return pids


def running(pid):
    """Whether the process is alive (a zombie the container's init never reaped is not)."""
    return live_stat(pid) is not None
