# -*- coding: utf-8 -*-
"""What Ironic refuses of a write in a node's state (engine/preconditions.py): every row refuses its case and takes
the same write where Ironic takes it, a write is judged on the node as the moves before it leave it, and a refusal
names the node, the rule, the node as it is and the fix."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import preconditions, states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import Step
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.preconditions import (
    ALLOCATION, DELETE_NODE, PRECONDITIONS, RELEASE_ALLOCATION, UPDATE_NODE, UPDATE_PORT, Write, after_steps,
    node_writes, refusals)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import SUPPORTED_RELEASE


def node(**fields):
    return dict({'name': 'n1', 'uuid': 'u-1', 'provision_state': 'manageable', 'target_provision_state': None,
                 'maintenance': False}, **fields)


DELETE = Write(DELETE_NODE, None, None)

# One case per row, in the order of PRECONDITIONS: (the node, the write Ironic refuses, the node as Ironic takes it).
CASES = [
    (node(provision_state='deploying', target_provision_state='active'), Write(UPDATE_NODE, 'description', 'x'),
     node(provision_state='deploy failed', target_provision_state='active')),
    (node(provision_state='active', resource_class='old'), Write(UPDATE_NODE, 'resource_class', 'new'),
     node(provision_state='active', resource_class=None)),
    (node(provision_state='active'), Write(UPDATE_NODE, 'deploy_interface', 'direct'),
     node(provision_state='active', maintenance=True)),
    (node(console_enabled=True), Write(UPDATE_NODE, 'driver', 'redfish'), node(console_enabled=False)),
    (node(), Write(UPDATE_NODE, 'protected', True), node(provision_state='rescue')),
    (node(provision_state='available'), Write(UPDATE_NODE, 'retired', True), node()),
    (node(instance_uuid='i-1', **{ALLOCATION: 'web-1'}), DELETE,
     node(instance_uuid='i-1', maintenance=True, **{ALLOCATION: 'web-1'})),
    (node(instance_uuid='i-1'), DELETE, node(instance_uuid='i-1', maintenance=True)),
    (node(protected=True), DELETE, node()),
    (node(provision_state='available'), DELETE, node(provision_state='available', maintenance=True)),
    (node(provision_state='available'), Write(UPDATE_PORT, 'pxe_enabled', False), node(provision_state='inspect wait')),
    (node(provision_state='clean wait', target_provision_state='available'), Write(RELEASE_ALLOCATION, None, None),
     node(provision_state='inspecting', target_provision_state='manageable')),
    (node(provision_state='active'), Write(RELEASE_ALLOCATION, None, None),
     node(provision_state='active', maintenance=True)),
]


def test_every_row_has_its_case():
    assert len(CASES) == len(PRECONDITIONS)


@pytest.mark.parametrize('index', range(len(CASES)))
def test_each_row_refuses_its_case_and_takes_the_write_where_ironic_does(index):
    refused, write, taken = CASES[index]
    assert refusals(refused, [write]) == [
        preconditions.refusal_message(PRECONDITIONS[index], refused, write, 'n1')]
    assert refusals(taken, [write]) == []


def test_every_state_a_row_names_is_a_state_of_ironics_machine():
    for row in PRECONDITIONS:
        assert set(row.allowed or ()) | set(row.refused) <= set(states.STATES), row.rule
        assert row.since >= SUPPORTED_RELEASE and row.rule and row.fix


def test_resource_class_on_an_active_node_names_the_node_the_states_and_the_fix():
    assert refusals(node(provision_state='active', resource_class='old'),
                    [Write(UPDATE_NODE, 'resource_class', 'gold')]) == [
        "resource_class of node n1 cannot change to 'gold': Ironic changes the resource_class of a node that has one "
        "only in enroll, inspecting, inspect wait, manageable or available, and it is 'active'. Undeploy it first "
        "(baremetal.lifecycle.baremetal_provision_state state: manageable, allow_destructive: true), or leave "
        "resource_class out, then rerun."]


def test_the_delete_of_a_node_an_allocation_holds_names_the_allocation_to_release():
    held = node(provision_state='available', instance_uuid='i-1', **{ALLOCATION: 'web-1'})
    assert refusals(after_steps(held, [Step('manage', 'available', 'manageable')]), [DELETE]) == [
        'node n1 cannot be deleted: Ironic deletes a node that holds an allocation only in maintenance, and it holds '
        'allocation web-1, not in maintenance. Release allocation web-1 first '
        '(baremetal.lifecycle.baremetal_allocation name: web-1, state: absent), then rerun.']


def test_an_undeploy_on_the_way_clears_the_instance_and_the_allocation_a_delete_is_judged_on():
    deployed = node(provision_state='active', instance_uuid='i-1', **{ALLOCATION: 'web-1'})
    moved = after_steps(deployed, [Step('deleted', 'active', 'available'), Step('manage', 'available', 'manageable')])
    assert moved['provision_state'] == 'manageable' and moved['instance_uuid'] is None and moved[ALLOCATION] is None
    assert refusals(moved, [DELETE]) == []
    assert after_steps(deployed, []) is deployed


def test_a_protected_node_is_refused_even_in_maintenance_and_every_refusal_is_listed():
    messages = refusals(node(provision_state='active', protected=True, maintenance=True), [DELETE])
    assert len(messages) == 1 and 'Ironic deletes no protected node, and it is protected. Set protected: false' in \
        messages[0]
    both = refusals(node(provision_state='active', resource_class='old'),
                    [Write(UPDATE_NODE, 'resource_class', 'new'), Write(UPDATE_NODE, 'boot_interface', 'pxe')])
    assert [message.split(':')[0] for message in both] == [
        "resource_class of node n1 cannot change to 'new'", "boot_interface of node n1 cannot change to 'pxe'"]


def test_a_flag_cleared_is_not_judged_as_one_set():
    assert refusals(node(provision_state='available', retired=True), [Write(UPDATE_NODE, 'retired', False)]) == []
    assert refusals(node(protected=True), [Write(UPDATE_NODE, 'protected', False)]) == []


def test_node_writes_are_one_per_field_of_a_patch():
    assert node_writes([{'op': 'add', 'path': '/properties/cpus', 'value': 8},
                        {'op': 'remove', 'path': '/properties/memory_mb'},
                        {'op': 'replace', 'path': '/resource_class', 'value': 'gold'}]) == [
        Write(UPDATE_NODE, 'properties', 8), Write(UPDATE_NODE, 'resource_class', 'gold')]


def test_a_node_is_read_with_every_field_a_row_judges_but_the_allocation_it_is_given():
    assert preconditions.PRECONDITION_FIELDS == ('console_enabled', 'instance_uuid', 'protected', 'resource_class')


def test_the_release_of_an_allocation_names_it():
    assert refusals(node(provision_state='active', **{ALLOCATION: 'web-1'}), [Write(RELEASE_ALLOCATION, None, None)],
                    'gpu-01') == [
        "allocation web-1 cannot be released from node gpu-01: Ironic releases the allocation of a node in active only "
        "in maintenance, and it is 'active', not in maintenance. Undeploy it first "
        "(baremetal.lifecycle.baremetal_provision_state state: available), or set maintenance on it, then rerun."]
