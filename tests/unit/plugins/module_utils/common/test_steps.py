# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The checks of step lists and config drives, against Ironic's own schemas, without a server."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import jsonschema
import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import steps

SECRET = 'never-shown-secret'

# Ironic's own schemas (ironic/api/controllers/v1/node.py _STEPS_SCHEMA, utils.py DEPLOY_STEP_SCHEMA and
# _CONFIG_DRIVE_SCHEMA), restated: what they accept the checks accept, and the other way round.
_INTERFACES = ['vendor', 'power', 'management', 'firmware', 'deploy', 'bios', 'raid']
_COUNT = {'anyOf': [{'type': 'integer', 'minimum': 0}, {'type': 'string', 'minLength': 1, 'pattern': '^[0-9]+$'}]}
IRONIC_SCHEMAS = {
    'clean': {'type': 'array', 'items': {
        'type': 'object', 'required': ['interface', 'step'], 'additionalProperties': False,
        'properties': {'interface': {'enum': _INTERFACES}, 'step': {'type': 'string', 'minLength': 1},
                       'args': {'type': 'object'}, 'order': _COUNT, 'execute_on_child_nodes': {'type': 'boolean'},
                       'limit_child_node_execution': {'type': 'array'}}}},
    'deploy': {'type': 'array', 'items': {
        'type': 'object', 'required': ['interface', 'step', 'args', 'priority'], 'additionalProperties': False,
        'properties': {'interface': {'type': 'string', 'enum': _INTERFACES},
                       'step': {'type': 'string', 'minLength': 1}, 'args': {'type': 'object'}, 'priority': _COUNT}}},
}

STEP_LISTS = [
    [{'interface': 'deploy', 'step': 'erase_devices_metadata'}],
    [{'interface': 'deploy', 'step': 'erase_devices', 'args': {}, 'priority': 0}],
    [{'interface': 'bios', 'step': 'apply_configuration', 'args': {'settings': []}, 'priority': '10'}],
    [{'interface': 'raid', 'step': 'create_configuration', 'order': 1, 'execute_on_child_nodes': True}],
    [{'interface': 'deplyo', 'step': 'x'}],
    [{'step': 'x'}],
    [{'interface': 'deploy', 'step': ''}],
    [{'interface': 'deploy', 'step': 'x', 'args': 'a=1'}],
    [{'interface': 'deploy', 'step': 'x', 'args': {}, 'priority': -1}],
    [{'interface': 'deploy', 'step': 'x', 'args': {}, 'priority': True}],
    [{'interface': 'deploy', 'step': 'x', 'prio': 1}],
    [{'interface': 'deploy', 'step': 'x', 'execute_on_child_nodes': 'yes'}],
    ['erase_devices'],
]


@pytest.mark.parametrize('kind', sorted(IRONIC_SCHEMAS))
@pytest.mark.parametrize('step_list', STEP_LISTS)
def test_step_checks_agree_with_ironics_schemas(kind, step_list):
    ironic_accepts = jsonschema.Draft7Validator(IRONIC_SCHEMAS[kind]).is_valid(step_list)
    assert (steps.step_errors('%s_steps' % kind, step_list, kind) == []) == ironic_accepts


def test_step_messages_name_the_step_the_key_and_the_fix_and_never_the_arguments():
    errors = steps.step_errors('clean_steps', [
        {'interface': 'deplyo', 'step': 'erase', 'args': {'password': SECRET}},
        {'interface': 'deploy', 'step': 'erase', 'priorty': 1}], 'clean')
    text = ' '.join(errors)
    assert "clean_steps[0].interface 'deplyo' is not an interface of clean steps (did you mean 'deploy'?)" in text
    assert "clean_steps[1] has the unknown key 'priorty'" in text
    assert SECRET not in text
    assert steps.step_errors('clean_steps', [], 'clean') == [
        'clean_steps is an empty list: give at least one step, or leave clean_steps out.']
    assert 'network' in ' '.join(steps.step_errors('service_steps', [{'interface': 'x', 'step': 's'}], 'service'))


@pytest.mark.parametrize('config_drive, accepted', [
    ('http://127.0.0.1:9/cd.iso', True),
    ('H4sIAAAAAAAA/+3BMQ0AAADCoPVPbQsHoAAAAAAAAAAAAAAAAAAAAAAA\n', True),
    ({'meta_data': {'hostname': 'n1'}, 'user_data': '#cloud-config\n', 'network_data': {}, 'vendor_data': {}}, True),
    ({'user_data': {'users': []}}, True),
    ({'user_data': ['a']}, True),
    ('#cloud-config\npassword: %s' % SECRET, False),
    ({'metadata': {}}, False),
    ({'meta_data': 'hostname: n1'}, False),
    ({'user_data': 5}, False),
    (['a'], False),
])
def test_config_drive_shapes(config_drive, accepted):
    errors = steps.config_drive_errors('config_drive', config_drive)
    assert (errors == []) == accepted
    assert SECRET not in ' '.join(errors)
