# -*- coding: utf-8 -*-
"""The order in which a node declared whole is brought about, and when maintenance is cleared for a move; the
same against a real Ironic is tested in tests/integration/test_node_whole.py."""

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import converge
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import NODE_SUMMARY_FIELDS
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError

from .record_params import declared, node, states

LANDING = {'manage': 'manageable', 'provide': 'available', 'active': 'active', 'deleted': 'available'}
POWER = {'power on': 'power on', 'power off': 'power off', 'rebooting': 'power on'}


class StagedIronic(object):
    """An Ironic whose verbs land at once, and which refuses to move a node in maintenance, as Ironic does."""

    poll_fields = NODE_SUMMARY_FIELDS
    release = None  # the newest: every edge of the state machine

    def __init__(self, *nodes):
        self.nodes = dict((item['uuid'], dict(item)) for item in nodes)
        self.calls = []

    def find_node(self, ident, fields=None):
        return dict(self.nodes[ident]) if ident in self.nodes else None

    def get_node(self, ident, fields=None):
        return dict(self.nodes[ident])

    def poll_nodes(self, last_seen, transient_states, agent_states=(), landing=None):
        return dict((uuid, dict(self.nodes[uuid])) for uuid in last_seen)

    def require_provision_request(self, verb, arguments):
        pass

    def set_provision_state(self, ident, verb, **arguments):
        assert not self.nodes[ident]['maintenance'], 'Ironic refuses to move a node in maintenance'
        self.calls.append(('provision', verb))
        self.nodes[ident]['provision_state'] = LANDING[verb]

    def set_power_state(self, ident, target, timeout=None, retry_busy=True):
        self.calls.append(('power', target))
        self.nodes[ident]['power_state'] = POWER[target]

    def set_maintenance(self, ident, reason=None, retry_busy=True):
        self.calls.append(('set maintenance', reason))
        self.nodes[ident].update(maintenance=True, maintenance_reason=reason)

    def unset_maintenance(self, ident, retry_busy=True):
        self.calls.append(('clear maintenance',))
        self.nodes[ident].update(maintenance=False, maintenance_reason=None, fault=None)


@pytest.fixture
def records(monkeypatch):
    """The record stage as ensure_nodes would end it for nodes whose record needs no change (or, for None, would
    create it in check mode)."""
    def ensure_nodes(client, declarations, update_secrets, check_mode, **options):
        results = []
        for declaration in declarations:
            current = client.find_node('u-1')
            results.append({'name': declaration.name, 'changed': current is None, 'created': current is None,
                            'node': current, 'diff': {'before': {}, 'after': {'driver': 'fake-hardware'} if current is None else {}},
                            'bmc_verified': None, 'error': None})
        return results
    monkeypatch.setattr(converge, 'ensure_nodes', ensure_nodes)


def whole(client, states, check_mode=False, **options):
    return converge.ensure_whole_nodes(client, [declared(states, **options)], 'on_create', check_mode)[0]


def test_the_health_gate_expects_what_the_node_declares():
    assert converge.declared_health(declared(states('available', maintenance=True, power='soft_powered_off'))) == {
        'maintenance': True, 'power_state': 'power off'}
    assert converge.declared_health(declared(states('available'))) == {}


# -- the order of the stages --------------------------------------------------------------------------------

def test_maintenance_is_cleared_before_the_move_and_set_after_it_and_the_power_with_its_reason(records):
    client = StagedIronic(node(maintenance=True, maintenance_reason='replacing DIMM B2', power_state='power on'))
    result = whole(client, states('available', maintenance=True, power='powered_off'))
    assert client.calls == [('clear maintenance',), ('provision', 'provide'), ('power', 'power off'),
                            ('set maintenance', 'replacing DIMM B2')]
    assert result['error'] is None and result['changed'] is True
    assert result['maintenance'] == {'maintenance': True, 'maintenance_reason': 'replacing DIMM B2', 'changed': True,
                                     'cleared_for_move': True}
    assert result['power'] == {'power_state': 'power off', 'changed': True}
    assert [step['verb'] for step in result['provision']['transitions']] == ['provide']
    assert (result['node']['provision_state'], result['node']['maintenance']) == ('available', True)
    assert result['diff'] == {
        'before': {'provision_state': 'manageable', 'power_state': 'power on', 'maintenance': True,
                   'maintenance_reason': 'replacing DIMM B2'},
        'after': {'provision_state': 'available', 'power_state': 'power off', 'maintenance': True,
                  'maintenance_reason': 'replacing DIMM B2'}}


def test_check_mode_plans_every_stage_from_the_node_out_of_maintenance_and_writes_nothing(records):
    client = StagedIronic(node(maintenance=True, maintenance_reason='cabling'))
    result = whole(client, states('available', maintenance=False, power='powered_on'), check_mode=True)
    assert client.calls == []
    assert [step['verb'] for step in result['provision']['plan']] == ['provide']
    assert result['maintenance'] == {'maintenance': False, 'maintenance_reason': None, 'changed': True,
                                     'cleared_for_move': False}
    assert result['power'] == {'power_state': 'power on', 'changed': True}
    assert result['changed'] is True and result['node']['maintenance'] is True  # the node as it is


def test_a_node_that_would_be_created_is_planned_no_further(records):
    client = StagedIronic()
    result = whole(client, states('available', power='powered_on'), check_mode=True)
    assert client.calls == [] and result['created'] is True
    assert 'provision' not in result and 'power' not in result
    assert result['not_planned'].startswith('node n1 does not exist yet') and 'provision_state, power' in result['not_planned']


def test_a_failed_move_stops_the_node_but_sets_the_maintenance_it_cleared_again(records):
    client = StagedIronic(node(maintenance=True, maintenance_reason='quarantine'))

    def refuse(ident, verb, **arguments):
        raise IronicError('Ironic said no', status=400)
    client.set_provision_state = refuse
    result = whole(client, states('available', maintenance=True, power='powered_off'))
    assert client.calls == [('clear maintenance',), ('set maintenance', 'quarantine')]
    assert "Ironic refused 'provide'" in result['error'] and 'power' not in result
    assert result['maintenance']['maintenance'] is True and result['maintenance']['cleared_for_move'] is True


def test_a_node_that_declares_no_state_is_its_record_only(records):
    client = StagedIronic(node())
    result = whole(client, states())
    assert client.calls == [] and set(result) == {'name', 'changed', 'created', 'node', 'diff', 'bmc_verified', 'error'}
