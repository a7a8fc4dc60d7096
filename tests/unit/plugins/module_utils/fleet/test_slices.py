# -*- coding: utf-8 -*-
"""fleet/slices.py: a slice plans only its own nodes, and every slice refuses a node in no slice or in two."""

from __future__ import annotations

from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.slices import slice_errors, slice_nodes

SLICES = {'slice-a': ['rack-a'], 'slice-b': ['rack-b', 'rack-c']}
FLEET = [{'name': 'a1', 'conductor_group': 'rack-a'}, {'name': 'b1', 'conductor_group': 'rack-b'},
         {'name': 'c1', 'conductor_group': 'rack-c'}, {'name': 'a2', 'conductor_group': 'rack-a'}]


def names(nodes):
    return [node['name'] for node in nodes]


def test_each_slice_gets_the_nodes_of_its_groups_only_and_together_every_node_once():
    mine_a, errors_a = slice_nodes(FLEET, SLICES, 'slice-a')
    mine_b, errors_b = slice_nodes(FLEET, SLICES, 'slice-b')
    assert (errors_a, errors_b) == ([], [])
    assert names(mine_a) == ['a1', 'a2']
    assert names(mine_b) == ['b1', 'c1']


def test_no_slicing_is_every_node():
    assert slice_nodes(FLEET, {}, '') == (FLEET, [])


def test_a_node_in_no_slice_is_named_with_its_group_and_the_fix_and_no_node_is_planned():
    fleet = FLEET + [{'name': 'lost', 'conductor_group': 'rack-z'}, {'name': 'ungrouped'}]
    for slice_name in SLICES:
        mine, errors = slice_nodes(fleet, SLICES, slice_name)
        assert mine == []
        assert len(errors) == 1
        assert "lost (conductor_group 'rack-z')" in errors[0]
        assert "ungrouped (conductor_group '')" in errors[0]
        assert 'Add their conductor_group to one slice of fleet_slices' in errors[0]


def test_a_node_in_two_slices_is_named_with_both_slices_and_no_node_is_planned():
    slices = dict(SLICES, **{'slice-c': ['rack-c']})
    mine, errors = slice_nodes(FLEET, slices, 'slice-a')
    assert mine == []
    assert errors == ["These nodes are in more than one slice of fleet_slices, so two slices would write them at "
                      "once: c1 (conductor_group 'rack-c', in slices slice-b, slice-c). Keep each conductor_group in "
                      "one slice only."]


def test_slices_by_shard():
    fleet = [{'name': 'n1', 'shard': 's1', 'conductor_group': 'x'}, {'name': 'n2', 'shard': 's2'}]
    mine, errors = slice_nodes(fleet, {'one': ['s1'], 'two': ['s2']}, 'two', key='shard')
    assert (names(mine), errors) == (['n2'], [])


def test_a_slice_name_not_in_the_table_or_missing_or_a_table_missing_is_refused_with_the_fix():
    assert slice_nodes(FLEET, SLICES, 'slice-x') == (
        [], ["fleet_slice 'slice-x' is not a slice of fleet_slices (slice-a, slice-b): name one of them, or add it to "
             "fleet_slices."])
    mine, errors = slice_nodes(FLEET, SLICES, '')
    assert mine == [] and 'set fleet_slice to the slice this play drives' in errors[0]
    mine, errors = slice_nodes(FLEET, {}, 'slice-a')
    assert mine == [] and 'fleet_slices is empty' in errors[0]
    assert 'must be a non-empty list' in slice_errors({'slice-a': []}, 'slice-a', 'conductor_group')[0]
    assert slice_errors(SLICES, 'slice-a', 'owner') == ["fleet_slice_key must be one of conductor_group, shard, got "
                                                        "'owner'."]
