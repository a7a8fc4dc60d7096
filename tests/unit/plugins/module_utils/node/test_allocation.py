# -*- coding: utf-8 -*-
"""Declaring an allocation: what is refused before any write, keeping it by name, and waiting for Ironic's pick."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import allocation
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.resources import CollectionEndpoints
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError, Locked, NotFound

NODE = {'uuid': 'n-1', 'name': 'gpu-01', 'provision_state': 'available', 'maintenance': False,
        'resource_class': 'gpu'}


def params(**fields):
    declared = dict(name='render-01', state='present', resource_class='gpu', traits=None, candidate_nodes=None,
                    owner=None, extra=None, node=None, timeout=30)
    declared.update(fields)
    return declared


def stored(**fields):
    """An allocation as Ironic returns it, once it picked a node."""
    return dict({'uuid': 'a-1', 'name': 'render-01', 'state': 'active', 'node_uuid': 'n-1', 'resource_class': 'gpu',
                 'traits': [], 'candidate_nodes': [], 'owner': None, 'extra': {}, 'last_error': None}, **fields)


class FakeIronic(CollectionEndpoints):
    """Allocations and nodes in memory; polls answer the states in ``picks`` one by one; every write recorded."""

    def __init__(self, version=(1, 115), allocations=(), nodes=(NODE,), picks=('active',), last_error=None):
        self.version = version
        self.allocations = dict((item['uuid'], dict(item)) for item in allocations)
        self.nodes = dict((node['uuid'], dict(node)) for node in nodes)
        self.picks = list(picks)
        self.last_error = last_error
        self.writes = []
        self.polls = 0

    def require(self, feature, version):
        if self.version < version:
            raise IronicError('%s needs Ironic API %d.%d or newer' % ((feature,) + version))

    def find_node(self, ident, fields=None):
        return next((dict(node) for node in self.nodes.values() if ident in (node['uuid'], node['name'])), None)

    def request(self, method, path, body=None, params=None, replay=True, retry_busy=True):
        ident = path.split('/')[2] if path.count('/') > 1 else None
        if method == 'GET':
            found = next((item for item in self.allocations.values() if ident in (item['uuid'], item['name'])), None)
            if found is None:
                raise NotFound('no allocation')
            if found['state'] == 'allocating' and self.picks:
                self.polls += 1
                self._pick(found, self.picks.pop(0))
            return dict(found)
        self.writes.append((method, path, body))
        if method == 'POST':
            created = dict(stored(uuid='a-%d' % (len(self.allocations) + 2), state='allocating', node_uuid=None),
                           **dict((key, value) for key, value in body.items() if key != 'node'))
            if body.get('node'):
                self._pick(created, 'active', self.find_node(body['node'])['uuid'])
            self.allocations[created['uuid']] = created
            return dict(created)
        if method == 'PATCH':
            for operation in body:
                self.allocations[ident][operation['path'][1:]] = operation['value']
            return dict(self.allocations[ident])
        if method == 'DELETE':
            del self.allocations[ident]
        return None

    def _pick(self, item, state, node_uuid='n-1'):
        item['state'] = state
        if state == 'active':
            item['node_uuid'] = node_uuid
        elif state == 'error':
            item['last_error'] = self.last_error


def ensure(client, declared, check_mode=False):
    clock = [0.0]
    return allocation.ensure_allocation(client, declared, check_mode, clock=lambda: clock[0],
                                        sleep=lambda seconds: clock.__setitem__(0, clock[0] + seconds))


def test_a_new_allocation_is_asked_for_and_waited_until_ironic_picks_the_node():
    client = FakeIronic(picks=('allocating', 'allocating', 'active'))
    result = ensure(client, params(traits=['CUSTOM_GPU'], extra={'team': 'render'}))
    assert client.writes == [('POST', '/allocations', {'name': 'render-01', 'resource_class': 'gpu',
                                                       'traits': ['CUSTOM_GPU'], 'extra': {'team': 'render'}})]
    assert client.polls == 3
    assert result['changed'] is True
    assert result['node'] == {'uuid': 'n-1', 'name': 'gpu-01'}
    assert result['allocation']['state'] == 'active' and result['allocation']['node_uuid'] == 'n-1'
    assert result['diff']['before'] == {} and result['diff']['after']['resource_class'] == 'gpu'


def test_a_rerun_keeps_the_same_node_and_writes_nothing():
    client = FakeIronic(allocations=[stored(traits=['CUSTOM_GPU'])])
    result = ensure(client, params(traits=['CUSTOM_GPU'], candidate_nodes=['gpu-01', 'gpu-02']))
    assert client.writes == []
    assert result['changed'] is False and result['node'] == {'uuid': 'n-1', 'name': 'gpu-01'}
    assert result['diff']['before'] == result['diff']['after']


def test_check_mode_writes_nothing_and_picks_no_node():
    client = FakeIronic()
    result = ensure(client, params(), check_mode=True)
    assert client.writes == [] and result['changed'] is True and result['node'] is None
    assert result['allocation']['state'] == 'allocating'


def test_extra_is_updated_in_place_from_1_57_and_refused_before():
    client = FakeIronic(allocations=[stored()])
    result = ensure(client, params(extra={'ticket': '4711'}))
    assert client.writes == [('PATCH', '/allocations/a-1', [{'op': 'replace', 'path': '/extra',
                                                             'value': {'ticket': '4711'}}])]
    assert result['changed'] is True and result['diff']['after']['extra'] == {'ticket': '4711'}
    old = FakeIronic(version=(1, 56), allocations=[stored()])
    with pytest.raises(IronicError, match='updating an allocation needs Ironic API 1.57'):
        ensure(old, params(extra={'ticket': '4711'}), check_mode=True)
    assert old.writes == []


def test_a_failed_pick_reports_ironics_reason_and_a_rerun_asks_again():
    client = FakeIronic(picks=('error',), last_error='no available nodes match the resource class gpu')
    with pytest.raises(BaremetalError) as failure:
        ensure(client, params())
    assert ('allocation render-01 failed; Ironic says: no available nodes match the resource class gpu. A node '
            'matches when it is available, not in maintenance, with a power state Ironic knows (fake hardware has none '
            'until one is set: baremetal.lifecycle.baremetal_power, or the power of baremetal_node)'
            ) in str(failure.value)
    assert failure.value.result['allocation']['state'] == 'error'
    client.picks = ['active']
    result = ensure(client, params())
    assert [write[0] for write in client.writes] == ['POST', 'DELETE', 'POST']
    assert result['allocation']['state'] == 'active'


def test_an_allocation_still_allocating_at_the_timeout_fails_saying_so():
    client = FakeIronic(picks=['allocating'] * 1000)
    with pytest.raises(BaremetalError, match=r'allocation render-01 is still allocating after 30 s: raise timeout'):
        ensure(client, params())


def test_what_ironic_cannot_change_is_refused_before_any_write():
    client = FakeIronic(allocations=[stored(traits=['CUSTOM_GPU'])])
    with pytest.raises(BaremetalError) as failure:
        ensure(client, params(resource_class='cpu', traits=['CUSTOM_FPGA'], candidate_nodes=['gpu-09'],
                              extra={'a': 1}))
    assert str(failure.value) == (
        "allocation render-01 exists, and Ironic cannot change it as declared: resource_class is 'gpu', not 'cpu'; "
        "traits is ['CUSTOM_GPU'], not ['CUSTOM_FPGA']; its node gpu-01 is not among candidate_nodes. Release it "
        "first (state: absent), or declare it as it is. Nothing was changed.")
    assert client.writes == []


@pytest.mark.parametrize('option, value, version', [('owner', 'project-a', '1.60'), ('node', 'gpu-01', '1.58')])
def test_an_option_the_api_lacks_is_refused_naming_the_version(option, value, version):
    client = FakeIronic(version=(1, 57))
    with pytest.raises(BaremetalError, match='%s needs Ironic API %s or newer; this server supports up to 1.57'
                       % (option, version)):
        ensure(client, params(**{option: value}))
    assert client.writes == []


def test_allocations_need_1_52():
    with pytest.raises(IronicError, match='allocations needs Ironic API 1.52'):
        ensure(FakeIronic(version=(1, 51)), params())


def test_a_declaration_ironic_would_refuse_names_every_problem():
    errors = allocation.declaration_errors(params(name='not a name', resource_class=None, traits=['gpu']), (1, 115))
    assert errors == [
        "name 'not a name' is not an allocation name Ironic accepts: use 1 to 255 letters, digits, '.', '_', '~' or "
        "'-'.",
        "trait 'gpu' is not a trait name: custom traits are CUSTOM_ followed by A-Z, 0-9 and _ (for example "
        "CUSTOM_GPU_A100); the others are os-traits names such as HW_CPU_X86_AVX2.",
        'resource_class is required to ask for a node: Ironic picks an available node of that class. (To record an '
        'allocation for a node already deployed, give node instead.)']
    assert allocation.declaration_errors(params(node='db-01', candidate_nodes=['db-02']), (1, 115)) == [
        'node db-01 is not among candidate_nodes: leave candidate_nodes out, or name the node there.']


def test_a_backfill_records_the_allocation_for_an_active_node_and_refuses_another():
    active = dict(NODE, uuid='n-7', name='db-01', provision_state='active')
    client = FakeIronic(nodes=[NODE, active])
    result = ensure(client, params(name='db', resource_class=None, node='db-01'))
    assert client.writes == [('POST', '/allocations', {'name': 'db', 'node': 'db-01'})]
    assert result['node'] == {'uuid': 'n-7', 'name': 'db-01'}
    with pytest.raises(BaremetalError, match='node gpu-01 is available: an allocation is recorded for'):
        ensure(client, params(name='other', resource_class=None, node='gpu-01'))
    assert len(client.writes) == 1


def test_absent_releases_the_node_unless_its_workload_is_active():
    client = FakeIronic(allocations=[stored()])
    result = ensure(client, params(state='absent'), check_mode=True)
    assert client.writes == [] and result['changed'] is True
    result = ensure(client, params(state='absent'))
    assert client.writes == [('DELETE', '/allocations/a-1', None)]
    assert result['allocation'] is None and result['node'] == {'uuid': 'n-1', 'name': 'gpu-01'}
    assert result['diff']['after'] == {}
    assert ensure(client, params(state='absent'))['changed'] is False

    busy = FakeIronic(allocations=[stored()], nodes=[dict(NODE, provision_state='active')])
    with pytest.raises(BaremetalError, match="allocation render-01 cannot be released from node gpu-01: Ironic releases "
                                             "the allocation of a node in active only in maintenance, and it is "
                                             "'active', not in maintenance"):
        ensure(busy, params(state='absent'))
    assert busy.writes == []


class LockedNodeIronic(FakeIronic):
    """Refuses the first ``held`` deletes with HTTP 409, its node locked by a conductor (at once: retry_busy=False)."""

    def __init__(self, held, **kwargs):
        super(LockedNodeIronic, self).__init__(**kwargs)
        self.held = held
        self.deletes = []

    def request(self, method, path, body=None, params=None, replay=True, retry_busy=True):
        if method == 'DELETE':
            self.deletes.append(retry_busy)
            if len(self.deletes) <= self.held:
                raise Locked('HTTP 409', 409, 'Node n-1 is locked by host conductor-1, please retry after the current '
                                              'operation is completed.')
        return super(LockedNodeIronic, self).request(method, path, body, params, replay, retry_busy)


def test_a_release_its_nodes_conductor_holds_off_is_sent_again_within_the_tasks_timeout():
    # The transport's own retries gave up after ~30 s with a bare 409, though the task's timeout was longer.
    client = LockedNodeIronic(held=5, allocations=[stored()])
    result = ensure(client, params(state='absent'))
    assert result['changed'] is True and client.allocations == {}
    assert client.deletes == [False] * 6

    # Still held off at the timeout: this allocation fails, naming the node and the lock, and the task's others go on.
    client = LockedNodeIronic(held=10 ** 6, allocations=[stored(), stored(uuid='a-2', name='render-02')])
    with pytest.raises(BaremetalError) as caught:
        ensure(client, bulk(element('render-01', state='absent'), element('render-02', resource_class='gpu'), timeout=30))
    assert str(caught.value).startswith('node gpu-01: releasing allocation render-01 never went through: a conductor '
                                        'kept the node locked until the timeout (30 s) passed')
    assert 'raise timeout' in str(caught.value) and 'a-1' in client.allocations
    assert [one['changed'] for one in caught.value.result['allocations']] == [False, False]


def element(name, **fields):
    """An element of allocations as the argument spec fills it: every option, None when unset."""
    return dict(dict((option, None) for option in allocation.ALLOCATION_OPTIONS), name=name, **fields)


def bulk(*elements, **fields):
    return params(name=None, resource_class=None, allocations=list(elements), **fields)


def test_allocations_in_one_task_each_with_its_result_and_diff_the_state_from_the_task():
    client = FakeIronic(allocations=[stored()])
    result = ensure(client, bulk(element('render-01', resource_class='gpu'), element('render-02', resource_class='gpu'),
                                 element('render-03', state='absent')))
    assert client.writes == [('POST', '/allocations', {'name': 'render-02', 'resource_class': 'gpu'})]
    assert result['changed'] is True
    assert [(one['changed'], one['allocation'] and one['allocation']['name']) for one in result['allocations']] == [
        (False, 'render-01'), (True, 'render-02'), (False, None)]
    assert result['allocations'][1]['node'] == {'uuid': 'n-1', 'name': 'gpu-01'}
    assert all(sorted(one) == ['allocation', 'changed', 'node'] for one in result['allocations'])
    assert [one['before_header'] for one in result['diff']] == ['render-01', 'render-02', 'render-03']
    assert result['diff'][1]['before'] == {} and result['diff'][1]['after']['name'] == 'render-02'
    assert ensure(client, bulk(element('render-01'), element('render-02'), state='absent'), check_mode=True)[
        'changed'] is True
    assert len(client.writes) == 1


def test_releases_then_the_most_particular_allocations_are_carried_out_first_and_results_keep_the_task_order():
    # Asked in the order written, web-01 (no trait) could take the one node with CUSTOM_SSD that web-02 needs.
    old = stored(uuid='a-9', name='web-old')
    client = FakeIronic(allocations=[old], picks=('active', 'active', 'active'))
    result = ensure(client, bulk(element('web-01', resource_class='gpu'),
                                 element('web-02', resource_class='gpu', traits=['CUSTOM_SSD']),
                                 element('web-03', resource_class='gpu', candidate_nodes=['gpu-01']),
                                 element('web-old', state='absent')))
    assert [(method, body and body['name']) for method, _path, body in client.writes] == [
        ('DELETE', None), ('POST', 'web-03'), ('POST', 'web-02'), ('POST', 'web-01')]
    assert [one['allocation'] and one['allocation']['name'] for one in result['allocations']] == [
        'web-01', 'web-02', 'web-03', None]
    assert [one['before_header'] for one in result['diff']] == ['web-01', 'web-02', 'web-03', 'web-old']


def test_bad_elements_and_a_name_given_twice_are_refused_in_one_message_before_any_read():
    client = FakeIronic()
    with pytest.raises(BaremetalError) as caught:
        ensure(client, bulk(element('render-01'), element('render-02', resource_class='gpu', traits=['gpu']),
                            element('render-02', resource_class='gpu')))
    message = str(caught.value)
    assert 'allocations[0] (render-01): resource_class is required' in message
    assert 'allocations[1] (render-02):' in message and 'gpu' in message
    assert 'allocations names render-02 2 times; declare each allocation once.' in message
    assert client.writes == []


def test_an_element_ironic_cannot_do_refuses_them_all_before_the_first_write():
    busy = dict(NODE, uuid='n-9', name='busy-01', provision_state='active')
    client = FakeIronic(allocations=[stored(), stored(uuid='a-9', name='held', node_uuid='n-9')], nodes=[NODE, busy])
    with pytest.raises(BaremetalError) as caught:
        ensure(client, bulk(element('new-01', resource_class='gpu'), element('render-01', resource_class='cpu'),
                            element('held', state='absent')))
    message = str(caught.value)
    assert "allocations[1] (render-01): allocation render-01 exists, and Ironic cannot change it" in message
    assert 'allocations[2] (held): allocation held cannot be released from node busy-01' in message
    assert 'new-01' not in message and client.writes == []


def test_check_mode_with_allocations_writes_nothing():
    client = FakeIronic(allocations=[stored()])
    result = ensure(client, bulk(element('render-02', resource_class='gpu'), element('render-01', resource_class='gpu', extra={'a': 1})),
                    check_mode=True)
    assert client.writes == [] and [one['changed'] for one in result['allocations']] == [True, True]
    assert result['diff'][1]['after']['extra'] == {'a': 1}
