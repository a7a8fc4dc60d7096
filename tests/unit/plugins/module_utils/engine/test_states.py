# -*- coding: utf-8 -*-
"""The state table's own consistency: every flag, way out and release edge refers to what the machine has.

Agreement with Ironic itself is tested against the installed Ironic in
tests/integration/test_state_machine_conformance.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities


@pytest.mark.parametrize('flag', list(states.NODE_FLAGS))
def test_node_flags_name_verbs_and_stable_landings(flag):
    rule = states.NODE_FLAGS[flag]
    assert rule.refuses == states.ALL_VERBS or set(rule.refuses) <= set(states.VERBS)
    for verb, landing in rule.lands.items():
        assert verb in states.VERBS and states.STATES[landing][0] == states.STABLE
    assert rule.clear.startswith('baremetal.lifecycle.')


def test_every_way_out_of_a_stranded_state_is_an_edge_of_ironics_machine_to_a_resting_state():
    edges = dict(((source, event), destination) for source, event, destination in states.TRANSITIONS)
    for state, verb in states.STRANDED_WAY_OUT.items():
        assert states.STATES[state][0] == states.TRANSIENT
        landing = edges[(state, states.VERBS[verb])]
        assert states.STATES[landing][0] in (states.STABLE, states.FAILED)


def test_every_edge_with_a_release_is_an_edge_of_the_newest_machine_after_the_oldest_supported_release():
    assert set(capabilities.TRANSITION_SINCE) <= set(states.TRANSITIONS)
    releases = [release for release, _api in capabilities.RELEASE_API_VERSIONS]
    for since in capabilities.TRANSITION_SINCE.values():
        assert capabilities.SUPPORTED_RELEASE < since and since in releases
    assert states.transitions() == states.transitions(releases[-1]) == states.TRANSITIONS
    assert not set(capabilities.TRANSITION_SINCE) & set(states.transitions(capabilities.SUPPORTED_RELEASE))


def test_a_server_older_than_every_release_listed_has_none_of_the_newer_edges():
    assert states.transitions(capabilities.OLDER_RELEASE) == states.transitions(capabilities.SUPPORTED_RELEASE)
