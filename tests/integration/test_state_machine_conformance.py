# -*- coding: utf-8 -*-
"""Our state table must agree with the installed Ironic's own state machine, edge for edge."""

import json
import os
import subprocess

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import preconditions, states
from nodes import RawIronic

DUMPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'dump_ironic_machine.py')


@pytest.fixture(scope='module')
def machine(ironic):
    output = subprocess.run([ironic.python, DUMPER], check=True, capture_output=True, text=True).stdout
    return json.loads(output)


def installed_release(machine):
    return tuple(int(part) for part in machine['release'].split('.')[:2])


@pytest.mark.smoke
def test_transitions_are_exactly_ironics(machine):
    """The table's edges of the installed release (TRANSITION_SINCE), edge for edge."""
    ours = set(states.transitions(installed_release(machine)))
    theirs = set(tuple(edge) for edge in machine['transitions'])
    assert sorted(theirs - ours) == [], 'edges Ironic %s has and our table lacks' % machine['release']
    assert sorted(ours - theirs) == [], 'edges our table has and Ironic %s lacks' % machine['release']
    assert len(states.TRANSITIONS) == len(set(states.TRANSITIONS)), 'duplicate edges in our table'


@pytest.mark.smoke
def test_the_release_read_from_the_api_version_uses_no_edge_the_installed_ironic_lacks(ironic, machine):
    api = capabilities.parse_version(machine['max_version'])
    assert ironic.server_version == machine['max_version']
    derived = capabilities.release_for_api(api)
    assert capabilities.OLDER_RELEASE < derived <= installed_release(machine)
    assert set(states.transitions(derived)) <= set(tuple(edge) for edge in machine['transitions'])
    assert dict(capabilities.RELEASE_API_VERSIONS).get(installed_release(machine)) == api, (
        'RELEASE_API_VERSIONS does not list Ironic %s with its API %s' % (machine['release'], machine['max_version']))


def test_states_kinds_and_targets_are_ironics(machine):
    assert set(states.STATES) == set(machine['states'])
    for name, (kind, target) in states.STATES.items():
        assert (kind == states.STABLE) == machine['states'][name]['stable'], name
        assert target == machine['states'][name]['target'], name
        assert (kind == states.FAILED) == (name in machine['failure_states']), name
        assert (kind == states.TRANSIENT) == (name in machine['unstable_states']), name


def test_verbs_and_their_minimum_versions_are_ironics(machine):
    assert dict((verb, event) for verb, event in states.VERBS.items() if verb != 'rebuild') == machine['verbs']
    assert states.VERBS['rebuild'] == 'rebuild'  # the API accepts it as an event of its own
    # Ironic keys MIN_VERB_VERSIONS by VERBS[verb]: 'undeploy' appears under its event, 'delete'.
    by_verb = dict(('undeploy' if key == 'delete' else key, (1, minor)) for key, minor in machine['verb_min_minor'].items())
    ours = capabilities.VERB_MIN_VERSION
    assert by_verb == dict((verb, version) for verb, version in ours.items() if version != capabilities.BASE_VERSION)
    assert set(ours) == set(states.VERBS)


def test_states_a_node_is_deleted_from_are_ironics(machine):
    assert list(states.DELETE_ALLOWED_STATES) == machine['delete_allowed_states']


def test_the_states_and_interfaces_the_preconditions_table_names_are_ironics(machine):
    assert sorted(preconditions.UPDATE_ALLOWED_STATES) == machine['update_allowed_states']
    assert sorted(preconditions.INTERFACE_FIELDS) == ['%s_interface' % name for name in machine['interfaces']]


def test_faults_are_ironics(machine):
    assert sorted(states.FAULTS) == machine['faults']


def test_inventory_and_service_step_versions_are_ironics(machine):
    assert capabilities.INVENTORY_MIN_VERSION == (1, machine['inventory_minor'])
    assert capabilities.FEATURE_MIN_VERSION['service_steps'] == (1, machine['service_minor'])


# Where to put a node to try each verb a flag refuses; the flag itself is set with a PATCH.
FLAGGED_NODE_STATES = {('retired', 'provide'): 'manageable', ('protected', 'deleted'): 'active',
                       ('protected', 'rebuild'): 'active'}


REFUSALS = sorted((flag, verb) for flag, rule in states.NODE_FLAGS.items()
                  if rule.refuses != states.ALL_VERBS for verb in rule.refuses)


@pytest.mark.parametrize('flag, verb', REFUSALS)
def test_ironic_refuses_every_verb_the_flag_table_says_it_refuses(ironic, flag, verb):
    """Ironic keeps these rules in code, not data: try each refused verb on a flagged node."""
    raw = RawIronic(ironic)
    node = raw.node_in(FLAGGED_NODE_STATES[(flag, verb)])
    raw.patch(node['uuid'], **{flag: True})
    answer = raw.api('PUT', '/nodes/%s/states/provision' % node['uuid'], {'target': verb}, expect=(400, 403))
    assert flag in answer['error_message'], answer
    assert raw.node(node['uuid'])['provision_state'] == FLAGGED_NODE_STATES[(flag, verb)]


def test_a_retired_nodes_teardown_lands_where_the_flag_table_says(ironic):
    raw = RawIronic(ironic)
    node = raw.node_in('active')
    raw.patch(node['uuid'], retired=True)
    assert raw.verb(node['uuid'], 'deleted')['provision_state'] == states.NODE_FLAGS['retired'].lands['deleted']
