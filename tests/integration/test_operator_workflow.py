# -*- coding: utf-8 -*-
"""playbooks/operator_workflow.yml, the operator guide's node lifecycle (list, manage, provide, maintenance set,
show, unset) declared, run against the real Ironic."""

import re

PLAYBOOK = 'playbooks/operator_workflow.yml'


def recap(output):
    match = re.search(r'localhost\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)', output)
    assert match, output[-3000:]
    return dict(zip(('ok', 'changed', 'unreachable', 'failed'), (int(value) for value in match.groups())))


def test_the_workflow_takes_an_enrolled_node_to_available_and_through_maintenance(ironic, run_playbook, fresh_node):
    node = fresh_node()
    bystander = fresh_node()
    reason = 'Replacing DIMM B2, ticket OPS-1234'

    rc, output = run_playbook(PLAYBOOK, {'operator_node': node['name'], 'operator_maintenance_reason': reason})

    assert rc == 0, output[-4000:]
    # the listing shows every node with its states
    assert re.search(r'%s\s+%s\s+enroll\s+None\s+False' % (node['name'], node['uuid']), output)
    assert re.search(r'%s\s+%s\s+enroll' % (bystander['name'], bystander['uuid']), output)
    # the path is the operator guide's: manage, then provide
    assert 'manage: enroll -> manageable' in output and 'provide: manageable -> available' in output
    # maintenance was shown set, with its reason, the way `baremetal node show` shows it
    assert 'maintenance        | True' in output and 'maintenance_reason | %s' % reason in output
    current = ironic.api('GET', '/nodes/%s' % node['uuid'])
    assert (current['provision_state'], current['maintenance'], current['maintenance_reason']) == (
        'available', False, None)
    assert ironic.api('GET', '/nodes/%s' % bystander['uuid'])['provision_state'] == 'enroll'
    assert recap(output) == {'ok': 9, 'changed': 3, 'unreachable': 0, 'failed': 0}


def test_a_rerun_moves_nothing_and_only_sets_and_unsets_maintenance(ironic, run_playbook, fresh_node):
    node = fresh_node()
    extra_vars = {'operator_node': node['name']}
    assert run_playbook(PLAYBOOK, extra_vars)[0] == 0

    mark = ironic.log_mark()
    rc, output = run_playbook(PLAYBOOK, extra_vars)

    assert rc == 0, output[-4000:]
    assert '%s is already available' % node['name'] in output
    assert 'maintenance_reason | Maintenance reason' in output
    assert [(request.method, request.path) for request in ironic.write_requests_since(mark)] == [
        ('PUT', '/v1/nodes/%s/maintenance' % node['uuid']), ('DELETE', '/v1/nodes/%s/maintenance' % node['uuid'])]
    assert recap(output)['changed'] == 2


def test_check_mode_says_the_node_would_be_made_available_and_changes_nothing(ironic, run_playbook, fresh_node):
    node = fresh_node()
    mark = ironic.log_mark()
    rc, output = run_playbook(PLAYBOOK, {'operator_node': node['name']}, check=True)

    assert rc == 0, output[-4000:]
    assert 'is already available' not in output
    assert '%s would be made available (check mode), by:' % node['name'] in output
    assert 'manage: enroll -> manageable' in output and 'provide: manageable -> available' in output
    assert ironic.write_requests_since(mark) == []
    assert ironic.api('GET', '/nodes/%s' % node['uuid'])['provision_state'] == 'enroll'


def test_without_a_node_the_playbook_says_what_to_set(ironic, run_playbook):
    mark = ironic.log_mark()
    rc, output = run_playbook(PLAYBOOK)
    assert rc != 0
    assert 'Set operator_node to the name or UUID of the node to work on' in output
    assert ironic.write_requests_since(mark) == []
