# -*- coding: utf-8 -*-
"""The stages after a node's record: when maintenance is cleared for a move, and one diff of them all. Their order is
tested through node/converge.py in test_converge.py."""

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import stages
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import PlanError

from .record_params import declared, node, states


# -- when maintenance is cleared for a move ---------------------------------------------------------------

@pytest.mark.parametrize('current, declared_states, expected', [
    (node(maintenance=True), states(maintenance=False), True),  # declared off: cleared, move or not
    (node(maintenance=True), states('available', maintenance=True), True),  # on, but must move: cleared for it
    (node(maintenance=True), states('manageable', maintenance=True), False),  # on, already there
    (node(maintenance=True), states(maintenance=True, power='powered_off'), False),  # on, nothing moves
    (node(maintenance=True), states('available'), False),  # not declared: left alone, the move names it
    (node(), states('available', maintenance=False), False),  # nothing to clear
    (node('cleaning', target_provision_state='available', maintenance=True), states('available', maintenance=True),
     True),  # still moving: it must rest in the declared state
])
def test_maintenance_is_cleared_where_declared_off_or_where_a_node_declared_on_must_move(current, declared_states,
                                                                                         expected):
    assert stages.clears_maintenance(current, declared(declared_states)) is expected


def test_a_move_that_has_no_acceptable_plan_is_refused_before_maintenance_is_cleared():
    with pytest.raises(PlanError, match='allow_destructive: true'):
        stages.clears_maintenance(node('active', maintenance=True), declared(states('available', maintenance=True)))
    assert stages.clears_maintenance(node('active', maintenance=True), declared(
        states('available', maintenance=True), allow_destructive=True)) is True


def test_merged_diff_keeps_the_order_of_the_stages_and_a_later_item_wins():
    assert stages.merged_diff([{'before': {'a': 1}, 'after': {'a': 2}}, {'before': {'b': 1}, 'after': {'b': 3, 'a': 4}}]) == {
        'before': {'a': 1, 'b': 1}, 'after': {'a': 4, 'b': 3}}


def test_the_diff_of_a_node_the_task_created_has_nothing_before():
    # a new node with provision_state showed before: {provision_state: enroll}, as if it had existed
    diffs = [{'before': {}, 'after': {'name': 'n1', 'driver': 'fake-hardware'}},
             {'before': {'provision_state': 'enroll'}, 'after': {'provision_state': 'manageable'}}]
    assert stages.merged_diff(diffs, created=True) == {
        'before': {}, 'after': {'name': 'n1', 'driver': 'fake-hardware', 'provision_state': 'manageable'}}
    assert stages.merged_diff(diffs)['before'] == {'provision_state': 'enroll'}
