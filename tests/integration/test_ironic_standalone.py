# -*- coding: utf-8 -*-
"""The role baremetal.lifecycle.ironic_standalone and its playbooks (ironic_start/stop/status.yml)."""

from __future__ import annotations

import glob
import os
import re
import socket

import pytest
import yaml
from process_groups import group_members

LOOPBACK_REFUSAL = 'ironic_standalone_host must be a loopback IP address'


def recap(output):
    """The PLAY RECAP counters of localhost, as a dict of ints."""
    match = re.search(r'^localhost\s+:\s+(.*)$', output, re.MULTILINE)
    assert match, output
    return dict((key, int(value)) for key, value in re.findall(r'(\w+)=(\d+)', match.group(1)))


def answers(host, port):
    with socket.socket(socket.AF_INET6 if ':' in host else socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(2)
        return sock.connect_ex((host, port)) == 0


def test_start_is_idempotent(ironic):
    pid = ironic.pid
    rc, output = ironic.playbook('start')
    assert rc == 0, output
    assert recap(output)['changed'] == 0, output
    assert ironic.pid == pid
    assert group_members(pid)


def test_status_reports_running_pid_endpoint_and_version(ironic):
    version = ironic.api('GET', '/')['default_version']['version']
    rc, output = ironic.playbook('status')
    assert rc == 0, output
    assert 'Ironic is running: pid %d, endpoint %s, API version %s' % (ironic.pid, ironic.endpoint, version) in output
    assert recap(output)['changed'] == 0


def test_clouds_yaml_points_at_the_instance(ironic):
    with open(ironic.clouds_yaml, encoding='utf-8') as handle:
        clouds = yaml.safe_load(handle)['clouds']
    assert clouds[ironic.cloud_name] == {'auth_type': 'none', 'baremetal_endpoint_override': ironic.endpoint}


@pytest.mark.parametrize('host', ['0.0.0.0', '192.0.2.10', '::', 'localhost'])
def test_a_non_loopback_host_is_refused_and_nothing_is_started(make_ironic, host):
    instance = make_ironic(host=host)
    rc, output = instance.playbook('start')
    assert rc != 0, output
    assert LOOPBACK_REFUSAL in output and "got '%s'" % host in output, output
    assert not os.path.exists(instance.base_dir)
    assert not os.path.exists(instance.clouds_yaml)
    assert not answers('127.0.0.1', instance.port)


def test_start_stop_status_cycle(make_ironic):
    """Start over a stale pid file and next to another cloud in clouds.yaml (backed up first, as the user wrote it),
    stop (the whole process tree), stop again (no-op), status."""
    instance = make_ironic()
    os.makedirs(instance.base_dir)
    with open(instance.pid_path, 'w', encoding='utf-8') as handle:
        handle.write('999999999\n')  # above pid_max: never a live process
    other = {'auth_type': 'password', 'auth': {'auth_url': 'https://keystone.example.com/v3'}}
    users_text = '# my clouds\n' + yaml.safe_dump({'clouds': {'other': other}})
    with open(instance.clouds_yaml, 'w', encoding='utf-8') as handle:
        handle.write(users_text)

    rc, output = instance.playbook('start')
    assert rc == 0, output
    assert recap(output)['changed'] > 0
    pid = instance.pid
    assert pid != 999999999
    assert group_members(pid), 'no Ironic process in group %s' % pid
    assert instance.api('GET', '/')['default_version']['version']
    with open(instance.clouds_yaml, encoding='utf-8') as handle:
        clouds = yaml.safe_load(handle)['clouds']
    assert clouds == {'other': other,
                      instance.cloud_name: {'auth_type': 'none', 'baremetal_endpoint_override': instance.endpoint}}
    backups = glob.glob(instance.clouds_yaml + '.*~')
    assert len(backups) == 1 and re.fullmatch(r'\.\d+\.\d{4}-\d\d-\d\d@\d\d:\d\d:\d\d~',
                                              backups[0][len(instance.clouds_yaml):]), backups
    with open(backups[0], encoding='utf-8') as handle:
        assert handle.read() == users_text
    assert 'The previous %s was kept as %s' % (instance.clouds_yaml, backups[0]) in output

    rc, output = instance.playbook('stop')
    assert rc == 0, output
    assert recap(output)['changed'] == 1, output
    assert group_members(pid) == [], 'the whole process tree must be stopped'
    assert not os.path.exists(instance.pid_path)
    assert not answers('127.0.0.1', instance.port)

    rc, output = instance.playbook('stop')
    assert rc == 0, output
    assert recap(output)['changed'] == 0, 'stopping a stopped Ironic must be a no-op'

    rc, output = instance.playbook('status')
    assert rc == 0, output
    assert 'Ironic is not running' in output


@pytest.mark.parametrize('groups', [['rack a'], ['rack-a', 'rack-b']])
def test_invalid_conductor_groups_are_refused_and_nothing_is_started(make_ironic, groups):
    instance = make_ironic()
    instance.role_vars['ironic_standalone_conductor_groups'] = groups  # one conductor: at most one group
    rc, output = instance.playbook('start')
    assert rc != 0, output
    assert 'ironic_standalone_conductor_groups' in output and 'must have at most one group per conductor' in output
    assert not os.path.exists(instance.base_dir)


def test_the_single_process_serves_the_first_conductor_group(shared_ironic):
    # Shared with test_node.py's conductor group test: the same variables, the same instance.
    instance = shared_ironic(ironic_standalone_conductor_groups=['rack1'])
    conductors = instance.api('GET', '/v1/conductors?fields=hostname,conductor_group')['conductors']
    assert [conductor['conductor_group'] for conductor in conductors] == ['rack1']
