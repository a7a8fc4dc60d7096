# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every module shares, read from each module's argument spec and documentation: one node is named node or
name, whichever word the user reaches for."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import importlib
import os

import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.plugins.action import ActionBase

from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import CONNECTION_ARGUMENT_SPEC
from ansible_collections.baremetal.lifecycle.plugins.plugin_utils._module_action import CollectorPausedPayload

MODULES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))), 'plugins', 'modules')

# Modules that name one node: by the option node, with name as the other word for it, but for baremetal_node, whose
# option is name (the node record's field) and node the other word.
ONE_NODE = ('baremetal_hardware', 'baremetal_maintenance', 'baremetal_node', 'baremetal_node_info', 'baremetal_power',
            'baremetal_provision_state', 'baremetal_firmware_campaign')
NAMED_BY_NAME = ('baremetal_node',)
# Modules whose name is not a node's but the runbook's, the rule's, the template's or the allocation's.
NOT_A_NODE = ('baremetal_runbook', 'baremetal_inspection_rule', 'baremetal_deploy_template', 'baremetal_allocation')
# Modules that read every node and name none: neither node nor name.
EVERY_NODE = ('baremetal_fleet_report',)


def module(name):
    return importlib.import_module('ansible_collections.baremetal.lifecycle.plugins.modules.%s' % name)


def documented(name, section='options'):
    """A section of the module's documentation (options, attributes), with that of the fragments it extends."""
    documentation = yaml.safe_load(module(name).DOCUMENTATION)
    entries = dict(documentation.get(section) or {})
    for fragment in documentation.get('extends_documentation_fragment') or ():
        collection_fragment = fragment.split('.', 2)[2].split('.')
        doc = importlib.import_module('ansible_collections.baremetal.lifecycle.plugins.doc_fragments.%s'
                                      % collection_fragment[0]).ModuleDocFragment
        text = getattr(doc, collection_fragment[1].upper() if len(collection_fragment) > 1 else 'DOCUMENTATION')
        entries.update(yaml.safe_load(text).get(section) or {})
    return entries


def test_every_module_documents_the_action_groups_of_meta_runtime_it_is_in():
    with open(os.path.join(MODULES_DIR, '..', '..', 'meta', 'runtime.yml'), encoding='utf-8') as handle:
        groups = yaml.safe_load(handle)['action_groups']
    for name in sorted(list(ONE_NODE) + list(NOT_A_NODE) + list(EVERY_NODE)):
        membership = sorted('baremetal.lifecycle.%s' % group for group, members in groups.items() if name in members)
        assert membership, '%s is in no action group of meta/runtime.yml' % name
        assert documented(name, 'attributes')['action_group']['membership'] == membership, name


def test_the_table_names_every_module():
    modules = sorted(name[:-3] for name in os.listdir(MODULES_DIR) if name.endswith('.py') and name != '__init__.py')
    assert modules == sorted(list(ONE_NODE) + list(NOT_A_NODE) + list(EVERY_NODE))


@pytest.mark.parametrize('name', sorted(ONE_NODE))
def test_a_module_that_names_one_node_takes_node_and_name_and_documents_both(name):
    option, alias = ('name', 'node') if name in NAMED_BY_NAME else ('node', 'name')
    assert module(name).ARGUMENT_SPEC[option].get('aliases') == [alias]
    assert documented(name)[option].get('aliases') == [alias]
    spec = dict(CONNECTION_ARGUMENT_SPEC, **module(name).ARGUMENT_SPEC)
    for word in (option, alias):
        result = ArgumentSpecValidator(spec).validate({word: 'rack1-node07'})
        assert not [error for error in result.errors if 'Unsupported' in str(error)], (name, word, result.error_messages)
        assert result.validated_parameters[option] == 'rack1-node07'


# baremetal_allocation's node is not its name either: the active node an allocation is recorded for (a backfill).
OTHER_NODE = ('baremetal_allocation',)


@pytest.mark.parametrize('name', NOT_A_NODE)
def test_a_module_whose_name_is_not_a_node_takes_node_only_for_another_node(name):
    assert ('node' in module(name).ARGUMENT_SPEC) == (name in OTHER_NODE)
    assert not module(name).ARGUMENT_SPEC['name'].get('aliases')
    assert not (module(name).ARGUMENT_SPEC.get('node') or {}).get('aliases')


@pytest.mark.parametrize('name', EVERY_NODE)
def test_a_module_that_reads_every_node_takes_neither_node_nor_name(name):
    assert not set(('node', 'name', 'nodes')) & set(module(name).ARGUMENT_SPEC)
    assert not set(('node', 'name', 'nodes')) & set(documented(name))


@pytest.mark.parametrize('name', sorted(ONE_NODE + NOT_A_NODE + EVERY_NODE))
def test_every_module_has_an_action_that_builds_its_payload_with_the_collector_paused(name):
    action = importlib.import_module('ansible_collections.baremetal.lifecycle.plugins.action.%s' % name).ActionModule
    assert issubclass(action, CollectorPausedPayload) and issubclass(action, ActionBase)
    assert action._configure_module is CollectorPausedPayload._configure_module
