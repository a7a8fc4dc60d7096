# -*- coding: utf-8 -*-
"""What the smoke suite (``pytest -m smoke``, run against every supported Ironic release by ``make test-compat``)
needs beyond the tests marked smoke elsewhere: a node's whole provisioning life, and the recovery from
``service failed``, whose way out differs per release (``capabilities.TRANSITION_SINCE``).
"""

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities
from nodes import RawIronic

pytestmark = pytest.mark.smoke

LOG_PASSTHROUGH = {'interface': 'vendor', 'step': 'log_passthrough'}
NO_SUCH_STEP = {'interface': 'vendor', 'step': 'no_such_step'}
# From Ironic 32.0 a service step that fails puts the node in maintenance with the fault 'service failure'; before,
# Ironic refuses such a step before running it (conductor/servicing.py) and leaves maintenance alone.
SERVICE_FAULT_SINCE = (32, 0)


@pytest.fixture(scope='module')
def raw(ironic):
    return RawIronic(ironic)


@pytest.fixture(scope='module')
def release(ironic):
    return capabilities.release_for_api(capabilities.parse_version(ironic.server_version))


def steps_of(result):
    return [(step['verb'], step['from'], step['to']) for step in result['plan']]


def converge_and_rerun(ironic, run_module, node, state, **options):
    """Converge the node, then run the same task again: the rerun must write nothing."""
    result = run_module('baremetal_provision_state', node=node, state=state, **options)
    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is True and result['node']['provision_state'] == state
    mark = ironic.log_mark()
    again = run_module('baremetal_provision_state', node=node, state=state, **options)
    assert not again.get('failed'), again.get('msg')
    assert again['changed'] is False and again['plan'] == []
    assert ironic.write_requests_since(mark) == []
    return result


def test_a_node_is_enrolled_provided_deployed_and_undeployed_and_each_rerun_writes_nothing(ironic, run_module, raw):
    name = 'smoke-%s' % raw.create()['uuid'][:8]
    enrolled = run_module('baremetal_node', name=name, driver='fake-hardware')
    assert not enrolled.get('failed'), enrolled.get('msg')
    mark = ironic.log_mark()
    assert run_module('baremetal_node', name=name, driver='fake-hardware')['changed'] is False
    assert ironic.write_requests_since(mark) == []

    provided = converge_and_rerun(ironic, run_module, name, 'available')
    assert steps_of(provided) == [('manage', 'enroll', 'manageable'), ('provide', 'manageable', 'available')]
    deployed = converge_and_rerun(ironic, run_module, name, 'active')
    assert steps_of(deployed) == [('active', 'available', 'active')]
    undeployed = converge_and_rerun(ironic, run_module, name, 'available', allow_destructive=True)
    assert steps_of(undeployed) == [('deleted', 'active', 'available')]


def test_a_failed_service_is_recovered_the_way_the_servers_release_allows(ironic, run_module, raw, release):
    node = raw.node_in('active')['name']
    failed = run_module('baremetal_provision_state', node=node, state='active', service_steps=[NO_SUCH_STEP])
    assert failed['failed'] and failed['node']['provision_state'] == 'service failed'
    faulted = release >= SERVICE_FAULT_SINCE
    assert failed['node']['maintenance'] is faulted
    assert failed['node']['fault'] == ('service failure' if faulted else None)

    if release >= capabilities.TRANSITION_SINCE[('service failed', 'abort', 'active')]:
        recovered = run_module('baremetal_provision_state', node=node, state='active', clear_fault=True)
        assert not recovered.get('failed'), recovered.get('msg')
        assert steps_of(recovered) == [('clear_fault', 'service failed', 'service failed'),
                                       ('abort', 'service failed', 'active')]
    else:
        # No abort out of 'service failed' before Ironic 32.0: the task says so before any write, and names the
        # ways this server has.
        mark = ironic.log_mark()
        refused = run_module('baremetal_provision_state', node=node, state='active')
        assert refused['failed'] and ironic.write_requests_since(mark) == []
        for words in ('The plan rescues the node (rescue to rescue, unrescue to active); set rescue_password',
                      "'abort' out of 'service failed' exists from Ironic 32.0, and this server is older",
                      "From 'service failed' this server still takes service (service_steps) or service runbook (runbook)."):
            assert words in refused['msg']
        recovered = run_module('baremetal_provision_state', node=node, state='active', rescue_password='rescue-me')
        assert not recovered.get('failed'), recovered.get('msg')
        assert steps_of(recovered) == [('rescue', 'service failed', 'rescue'), ('unrescue', 'rescue', 'active')]
        assert 'rescue-me' not in str(recovered)
    assert raw.node(node)['provision_state'] == 'active'

    # Servicing again, with steps that work, is the way out on every release.
    run_module('baremetal_provision_state', node=node, state='active', service_steps=[NO_SUCH_STEP])
    serviced = run_module('baremetal_provision_state', node=node, state='active', clear_fault=True,
                          service_steps=[LOG_PASSTHROUGH])
    assert not serviced.get('failed'), serviced.get('msg')
    assert [step['verb'] for step in serviced['plan']] == (['clear_fault'] if faulted else []) + ['service']
    node_now = raw.node(node)
    assert node_now['provision_state'] == 'active' and node_now['maintenance'] is False and node_now['fault'] is None
