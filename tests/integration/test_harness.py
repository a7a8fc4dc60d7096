# -*- coding: utf-8 -*-
"""The test harness itself (tests/conftest.py, tests/integration/conftest.py), exercised against Ironic directly."""

from __future__ import annotations

import time


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
