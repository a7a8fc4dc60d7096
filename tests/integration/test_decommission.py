# -*- coding: utf-8 -*-
"""Decommissioning against a real Ironic (fake-hardware): baremetal_provision_state with state manageable, retired
and erase, and playbooks/decommission.yml. The fake deploy interface has no erase step: an erase is refused before
anything is sent, naming the interface; the success path runs a clean step the fake interfaces do run."""

import pytest

from nodes import RawIronic

PLAYBOOK = 'playbooks/decommission.yml'
LOG_PASSTHROUGH = {'interface': 'vendor', 'step': 'log_passthrough'}


@pytest.fixture(scope='module')
def raw(ironic):
    return RawIronic(ironic)


def steps_of(entries):
    return [(entry['verb'], entry['from'], entry['to']) + ((entry['action'],) if 'action' in entry else ())
            for entry in entries]


def decommission(run_module, node, **options):
    return run_module('baremetal_provision_state', node=node, state='manageable', retired=True,
                      retired_reason='end of lease', **options)


def test_an_erase_the_fake_deploy_interface_cannot_run_is_refused_before_the_teardown_and_retiring_needs_none(
        raw, ironic, run_module):
    node = raw.node_in('active')
    mark = ironic.log_mark()
    refused = decommission(run_module, node['name'], erase='metadata')
    assert refused['failed'] and 'allow_destructive: true' in refused['msg']
    assert ironic.write_requests_since(mark) == []

    # Ironic would refuse the erase step only once the workload is gone: the plan is refused first, in check mode too
    for check in (True, False):
        failed = decommission(run_module, node['name'], erase='metadata', allow_destructive=True, check=check)
        assert failed['failed'] and failed['changed'] is False
        assert ("erase needs deploy.erase_devices_metadata, which this node's deploy_interface 'fake' does not offer"
                in failed['msg'])
        assert ironic.write_requests_since(mark) == []
    stored = raw.node(node['uuid'])
    assert (stored['provision_state'], stored['retired']) == ('active', False)

    retired = decommission(run_module, node['name'], allow_destructive=True)
    assert not retired.get('failed'), retired.get('msg')
    assert steps_of(retired['transitions']) == [('set_retired', 'active', 'active'),
                                                ('deleted', 'active', 'manageable')]
    stored = raw.node(node['uuid'])
    assert (stored['provision_state'], stored['retired'], stored['retired_reason']) == (
        'manageable', True, 'end of lease')
    assert stored['instance_uuid'] is None and not stored['maintenance']

    mark = ironic.log_mark()
    again = decommission(run_module, node['name'])
    assert again['changed'] is False and again['plan'] == []
    assert ironic.write_requests_since(mark) == []


def test_an_available_node_is_made_manageable_before_ironic_retires_it(raw, run_module):
    node = raw.node_in('available')
    result = decommission(run_module, node['name'])
    assert not result.get('failed'), result.get('msg')
    assert steps_of(result['transitions']) == [('manage', 'available', 'manageable'),
                                               ('set_retired', 'manageable', 'manageable')]
    assert raw.node(node['uuid'])['retired'] is True
    refused = run_module('baremetal_provision_state', node=node['name'], state='available')
    assert refused['failed'] and 'retired' in refused['msg']


def test_the_playbook_decommissions_active_and_available_nodes_through_a_step_fake_hardware_runs(
        raw, ironic, run_playbook):
    active, available = raw.node_in('active'), raw.node_in('available')
    extra_vars = {'decommission_nodes': [active['name'], available['name']], 'decommission_reason': 'rack 7 leaves',
                  'decommission_clean_steps': [LOG_PASSTHROUGH], 'decommission_allow_destructive': True}
    refused, output = run_playbook(PLAYBOOK, dict(extra_vars, decommission_allow_destructive=False))
    assert refused != 0 and 'decommission_allow_destructive to true' in output
    assert raw.node(active['uuid'])['provision_state'] == 'active'

    mark = ironic.log_mark()
    rc, output = run_playbook(PLAYBOOK, extra_vars)
    assert rc == 0, output[-3000:]
    for node in (active, available):
        stored = raw.node(node['uuid'])
        assert (stored['provision_state'], stored['retired'], stored['retired_reason']) == (
            'manageable', True, 'rack 7 leaves')
        assert stored['instance_uuid'] is None
    moves = [request.path for request in ironic.write_requests_since(mark) if request.path.endswith('/provision')]
    # active: undeploy and the clean; available: manage and the clean
    assert len(moves) == 4

    rc, output = run_playbook(PLAYBOOK, dict(extra_vars, decommission_delete=True))
    assert rc == 0, output[-3000:]
    for node in (active, available):
        assert ironic.api('GET', '/nodes/%s' % node['uuid'], expect=(404,))
