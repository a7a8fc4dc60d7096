# -*- coding: utf-8 -*-
"""The nodes a baremetal_node task declares (node/declaration.py): what an element of nodes or a selected node
inherits from the task, and the checks made across them before anything is read."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.runner import Target, targets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import check_declarations, declarations_of, refusal
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import NodeError

from .record_params import params, port, states


def declared(params, selected=None):
    """The Declarations of baremetal_node's params, its nodes parsed as the runner parses them (fleet/runner.py);
    selected: the nodes a selection matched."""
    if selected is not None:
        params = dict(params, select={})
        nodes = [Target('node %s' % (node.get('name') or node['uuid']), node['uuid'], {}, node) for node in selected]
    else:
        nodes = targets(None, dict(dict(name=None, select=None), **params), {}, key='name')
    return declarations_of(params, nodes)


def element(name, **given):
    full = dict(name=name, uuid=None, validate_driver_info=None, state=None, shard=None, protected=None,
                protected_reason=None, retired=None, retired_reason=None)
    full.update(given)
    return params(**full)


def task(nodes, **given):
    full = dict(nodes=nodes, state='present', validate_driver_info=True)
    full.update(given)
    return full


def test_elements_inherit_state_and_validation_from_the_task_unless_they_set_their_own():
    declarations = declared(task(
        [element('a', driver='fake-hardware'), element('b', state='absent', validate_driver_info=False)],
        validate_driver_info=True))
    assert [(d.name, d.state, d.validate_driver_info, d.label) for d in declarations] == [
        ('a', 'present', True, 'nodes[0] (a)'), ('b', 'absent', False, 'nodes[1] (b)')]
    assert declarations[0].declared == {'driver': 'fake-hardware'}


def test_selected_nodes_each_get_the_tasks_record_and_a_node_without_a_name_is_refused():
    task_params = dict(params(owner='gpu-team', traits=['CUSTOM_GPU']), nodes=None, state='present',
                       validate_driver_info=True)
    declarations = declared(task_params, [{'uuid': 'u1', 'name': 'a'}, {'uuid': 'u2', 'name': 'b'}])
    assert [(d.name, d.label, d.declared) for d in declarations] == [
        ('a', 'node a', {'owner': 'gpu-team', 'traits': ['CUSTOM_GPU']}),
        ('b', 'node b', {'owner': 'gpu-team', 'traits': ['CUSTOM_GPU']})]
    with pytest.raises(NodeError, match='select matches nodes without a name \\(u2\\)'):
        declared(task_params, [{'uuid': 'u1', 'name': 'a'}, {'uuid': 'u2', 'name': None}])


def test_every_invalid_element_is_listed_before_anything_is_read():
    declarations = declared(task([
        element('a', driver='fake-hardware', traits=['lower']),
        element('b', driver='fake-hardware', ports=[port('52:54:00:00:00:01')]),
        element('c', driver='fake-hardware', ports=[port('52:54:00:00:00:01')]),
        element('d', protected=False, protected_reason='why'),
    ]))
    problems = check_declarations(declarations)
    message = str(refusal(declarations, problems))
    assert "nodes[0] (a): trait 'lower' is not a trait name" in message
    assert 'nodes[2] (c): port 52:54:00:00:00:01 is also declared by nodes[1] (b)' in message
    assert 'nodes[3] (d): protected_reason is only kept while protected is true' in message
    assert 'nodes[1]' not in message.replace('declared by nodes[1]', '')


def test_keep_workload_goes_to_absent_elements_unless_they_set_their_own_and_is_refused_where_it_means_nothing():
    declarations = declared(task(
        [element('a', state='absent'), element('b', state='absent', keep_workload=False), element('c')],
        keep_workload=True))
    assert [d.keep_workload for d in declarations] == [True, False, False]
    single = declared(dict(params(), name='n1', nodes=None, state='present', validate_driver_info=True,
                           keep_workload=True))
    both = declared(task([element('a', state='absent', allow_destructive=True)], keep_workload=True))
    problems = [message for _declaration, message in check_declarations(single + both)]
    assert problems == [
        'keep_workload keeps the workload of a node whose record state: absent deletes; it means nothing with '
        'state: present. Drop keep_workload, or declare state: absent.',
        'keep_workload deletes the record without touching the workload, and allow_destructive allows tearing the '
        'workload down on the way to deleting it; choose one.']


def test_elements_inherit_the_tasks_states_and_options_and_an_absent_one_declares_none_of_them():
    params = dict(nodes=[{'name': 'a'}, {'name': 'b', 'provision_state': 'manageable', 'maintenance': True,
                                         'allow_destructive': True}, {'name': 'c', 'state': 'absent'}],
                  state='present', validate_driver_info=True, provision_state='available', power='powered_on',
                  maintenance=None, maintenance_reason=None, allow_destructive=False, inspection='once',
                  rescue_password='secret')
    a, b, c = declared(params)
    assert a.states == states('available', power='powered_on')
    assert b.states == states('manageable', maintenance=True, power='powered_on')
    assert (a.options.allow_destructive, b.options.allow_destructive) == (False, True)
    assert a.options.inspection == b.options.inspection == 'once' and b.options.rescue_password == 'secret'
    assert c.states == states() and check_declarations([c]) == []
    own = declared(dict(params, nodes=[{'name': 'c', 'state': 'absent', 'power': 'powered_off'}]))
    assert 'cannot also declare power' in check_declarations(own)[0][1]


DROPPED = ('maintenance_reason is only kept while maintenance is on, and %s: drop maintenance_reason, or set '
           'maintenance: true.')


@pytest.mark.parametrize('maintenance, how', [
    (False, 'maintenance: false (or state: disabled) takes the node out of maintenance'),
    (None, 'maintenance is not declared, so the node is left as it is'),
])
def test_a_maintenance_reason_the_task_would_drop_is_refused_before_anything_is_read(maintenance, how):
    task_params = dict(params(), name='n1', nodes=None, state='present', validate_driver_info=True,
                       maintenance=maintenance, maintenance_reason='Replacing disk 2')
    with pytest.raises(NodeError) as caught:
        declared(task_params)
    assert str(caught.value) == DROPPED % how
    with pytest.raises(NodeError):
        declared(dict(task_params, name=None), [{'uuid': 'u1', 'name': 'a'}])  # with select too
    assert declared(dict(task_params, maintenance_reason=''))  # an empty reason says what happens: none
    assert declared(dict(task_params, maintenance=True))[0].states['maintenance_reason'] == 'Replacing disk 2'


def test_an_elements_own_reason_with_its_maintenance_off_and_a_task_reason_no_element_keeps_are_refused():
    on = {'name': 'a', 'maintenance': True}
    off = {'name': 'b', 'maintenance': False}
    base = dict(state='present', validate_driver_info=True, maintenance=None, maintenance_reason=None)
    # The task's reason kept by a node that is on, not by one that is off: accepted.
    assert declared(dict(base, nodes=[on, off], maintenance_reason='Fan'))[0].states['maintenance_reason'] == 'Fan'
    with pytest.raises(NodeError) as caught:
        declared(dict(base, nodes=[on, dict(off, maintenance_reason='Fan')]))
    assert str(caught.value) == 'nodes[1] (b): ' + DROPPED % (
        'maintenance: false (or state: disabled) takes the node out of maintenance')
    with pytest.raises(NodeError) as caught:
        declared(dict(base, nodes=[off, dict(on, maintenance_reason='Disk')], maintenance_reason='Fan'))
    assert str(caught.value).startswith("the task's maintenance_reason is kept by none of its nodes"), str(caught.value)


def test_a_reason_that_holds_a_secret_is_refused_naming_the_field_and_the_element_never_the_value():
    base = dict(params(), state='present', validate_driver_info=True, maintenance=True, maintenance_reason=None,
                protected_reason=None, retired_reason=None)
    with pytest.raises(NodeError) as caught:
        declared(dict(base, name='n1', nodes=None, maintenance_reason='BMC rotated, old password=Zq-old-1'))
    assert str(caught.value).startswith('maintenance_reason holds what reads as a secret')
    with pytest.raises(NodeError) as caught:
        declared(dict(base, nodes=[element('a'), element('b', retired_reason='see http://u:Zq-old-1@127.0.0.1/')]))
    assert str(caught.value).startswith('nodes[1].retired_reason holds what reads as a secret')
    assert 'Zq-old-1' not in str(caught.value)


def test_integer_properties_given_as_digits_are_declared_as_integers_and_each_node_is_warned():
    declarations = declared(task([element('a', properties={'cpus': '8', 'cpu_arch': 'x86_64'}),
                                  element('b', properties={'cpus': 8})]))
    assert [d.declared['properties'] for d in declarations] == [{'cpus': 8, 'cpu_arch': 'x86_64'}, {'cpus': 8}]
    assert declarations[0].warnings == [
        "nodes[0] (a): properties.cpus was given as the string '8' and is sent to Ironic as the integer 8: write it as "
        "a number (cpus: 8); arguments written name=value (properties=cpus=8) and templated values are strings."]
    assert declarations[1].warnings == []
