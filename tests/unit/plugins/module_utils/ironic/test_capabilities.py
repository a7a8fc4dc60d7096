# -*- coding: utf-8 -*-
"""The capability table: what each Ironic offers, and its release read from its API version."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import types

import pytest
import yaml

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import actions, states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities


def test_releases_are_in_order_and_the_newest_serves_the_newest_api_the_client_speaks():
    assert capabilities.RELEASE_API_VERSIONS == tuple(sorted(capabilities.RELEASE_API_VERSIONS))
    apis = [api for _release, api in capabilities.RELEASE_API_VERSIONS]
    assert apis == sorted(apis)
    assert capabilities.RELEASE_API_VERSIONS[0][0] == capabilities.SUPPORTED_RELEASE
    assert capabilities.RELEASE_API_VERSIONS[-1][1] == capabilities.CLIENT_MAX_VERSION


@pytest.mark.parametrize('api, release, words', [
    ((1, 90), (24, 1), 'Ironic 24.1 (API 1.90)'),
    ((1, 91), (25, 0), 'Ironic 25.0 or 26.0 (API 1.91)'),
    ((1, 93), (26, 1), 'Ironic 26.1 (API 1.93)'),
    # 29.0 and 29.1 serve the same API: the older one is taken, so 29.1's edges are not relied on
    ((1, 96), (29, 0), 'Ironic 29.0 or 29.1 (API 1.96)'),
    ((1, 97), (29, 0), 'Ironic newer than 29.1 (API 1.97)'),
    ((1, 101), (32, 0), 'Ironic 32.0 or 32.1 (API 1.101)'),
    ((1, 110), (34, 0), 'Ironic newer than 34.0 (API 1.110)'),
    ((1, 111), (35, 0), 'Ironic 35.0 or 35.1 (API 1.111)'),
    ((1, 115), (39, 0), 'Ironic 39.0 (API 1.115)'),
    ((1, 120), (39, 0), 'Ironic newer than 39.0 (API 1.120)'),
    ((1, 89), capabilities.OLDER_RELEASE, 'Ironic older than 24.1 (API 1.89), which this collection does not support'),
])
def test_a_servers_release_follows_from_its_newest_api_version(api, release, words):
    assert capabilities.release_for_api(api) == release
    assert capabilities.describe_server(api) == words


# The rows of a verb or an in-place action: what adding one touches besides engine/states.py (docs/engine.md).
# The module that takes every in-place action's option (its argument spec holds engine/options.OPTION_SPEC).
ACTIONS_MODULE = 'baremetal_provision_state'
MODULES = ('baremetal_hardware', 'baremetal_maintenance', 'baremetal_node', 'baremetal_node_info', 'baremetal_power',
           'baremetal_provision_state', 'baremetal_runbook')


def module_options():
    """{module: (its argument spec, its documented options)}."""
    taken = {}
    for name in MODULES:
        module = importlib.import_module('ansible_collections.baremetal.lifecycle.plugins.modules.%s' % name)
        taken[name] = (module.ARGUMENT_SPEC, yaml.safe_load(module.DOCUMENTATION)['options'])
    return taken


def missing_rows(verbs, table, caps, taken):
    """What a verb (engine/states.VERBS) or in-place action row (engine/actions.py) of the state table lacks: its capability rows (the verb's version, each
    request field's), its option in the argument spec of the module that takes it, and that option's docs in every
    module whose argument spec takes it."""
    missing = []
    fields = dict(table.MOVE_REQUEST_FIELDS)
    for verb in verbs:
        if verb not in caps.VERB_MIN_VERSION:
            missing.append('verb %s: no row in capabilities.VERB_MIN_VERSION' % verb)
    for action in table.ACTIONS:
        if action.verb not in caps.VERB_MIN_VERSION:
            missing.append('action %s: its verb %s has no row in capabilities.VERB_MIN_VERSION' % (action.name, action.verb))
        fields[action.name] = action.request_fields
        spec, _documented = taken[ACTIONS_MODULE]
        if action.option not in spec:
            missing.append('action %s: its option %s is not in the argument spec of %s'
                           % (action.name, action.option, ACTIONS_MODULE))
        for module, (spec, documented) in sorted(taken.items()):
            if action.option in spec and not (documented.get(action.option) or {}).get('description'):
                missing.append('action %s: %s takes its option %s and does not document it'
                               % (action.name, module, action.option))
    for row, names in sorted(fields.items()):
        for field in names:
            if field not in caps.FEATURE_MIN_VERSION:
                missing.append('%s: its request field %s has no row in capabilities.FEATURE_MIN_VERSION' % (row, field))
    return missing


def test_every_verb_and_action_has_its_capability_row_its_option_and_its_docs():
    assert missing_rows(states.VERBS, actions, capabilities, module_options()) == []


def without(mapping, key):
    return dict((name, value) for name, value in mapping.items() if name != key)


def test_a_row_missing_anywhere_is_named():
    action = actions.ACTIONS_BY_NAME['service']
    taken = module_options()
    spec, documented = taken[ACTIONS_MODULE]
    caps = types.SimpleNamespace(VERB_MIN_VERSION=without(capabilities.VERB_MIN_VERSION, 'service'),
                                 FEATURE_MIN_VERSION=without(capabilities.FEATURE_MIN_VERSION, 'service_steps'))
    assert missing_rows(states.VERBS, actions, caps, taken) == [
        'verb service: no row in capabilities.VERB_MIN_VERSION',
        'action service: its verb service has no row in capabilities.VERB_MIN_VERSION',
        'action service runbook: its verb service has no row in capabilities.VERB_MIN_VERSION',
        'service: its request field service_steps has no row in capabilities.FEATURE_MIN_VERSION']
    undocumented = dict(taken, **{ACTIONS_MODULE: (spec, without(documented, action.option))})
    assert missing_rows(states.VERBS, actions, capabilities, undocumented) == [
        'action service: %s takes its option service_steps and does not document it' % ACTIONS_MODULE]
    untaken = dict(taken, **{ACTIONS_MODULE: (without(spec, action.option), documented)})
    assert missing_rows(states.VERBS, actions, capabilities, untaken) == [
        'action service: its option service_steps is not in the argument spec of %s' % ACTIONS_MODULE]
