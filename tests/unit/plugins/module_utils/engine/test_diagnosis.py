# -*- coding: utf-8 -*-
"""The messages of the scheduler: each names the node, where it rests, and what to do."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import diagnosis
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.graph import Step


def test_every_reason_no_conductor_takes_a_node_over_is_worded():
    node = {'provision_state': 'inspecting', 'conductor_group': 'rack1'}
    assert diagnosis.no_takeover('state', node) == "No other conductor takes over a node in 'inspecting'"
    assert 'HOST:PORT' in diagnosis.no_takeover('port', node)
    assert "conductor group 'rack1'" in diagnosis.no_takeover('group', node)


def test_a_refused_step_says_which_of_the_plan_and_where_the_node_rests():
    step = Step('provide', 'manageable', 'available')
    message = diagnosis.refused(step, [Step('manage', 'enroll', 'manageable'), step], 'HTTP 409',
                                {'provision_state': 'manageable', 'maintenance': True})
    assert message.startswith("Ironic refused 'provide' (step 2 of 2) from 'manageable': HTTP 409 The node rests "
                              "in 'manageable'. It is in maintenance (reason: none given)")


def test_a_stranded_node_without_a_way_out_names_the_dead_conductors_to_restart():
    advice = diagnosis.no_way_out('deploying', None, [{'hostname': 'c1', 'updated_at': 'then'}])
    assert advice == ("Ironic takes no request that moves a node out of 'deploying'. No other conductor takes over a "
                      "node in 'deploying': restart the ironic-conductor c1 (down since then); on start-up it fails "
                      "the nodes it left there, and a rerun of this task then recovers them.")
