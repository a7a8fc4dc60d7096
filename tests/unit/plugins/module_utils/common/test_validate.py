# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shared input checks, without a server: limits, names, node lists (steps and config drives: test_steps.py).
tests/integration/test_bad_input.py proves against the real Ironic that each refusal sends nothing."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import pytest
import yaml

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import validate

UUID = '5f1c2d6e-6a9c-4a55-9d3c-2b3f8e0c1a11'
SECRET = 'never-shown-secret'


def test_limits():
    assert validate.limit_errors('max_fail_percentage', 150) == [
        'max_fail_percentage must be between 0 and 100, got 150: set it in that range.']
    assert validate.limit_errors('max_fail_percentage', -1.5)
    # Ansible hands float options over as floats: the message shows what the task wrote
    assert validate.limit_errors('max_fail_percentage', 150.0) == [
        'max_fail_percentage must be between 0 and 100, got 150: set it in that range.']
    assert validate.limit_errors('wave_pause', -0.5) == ['wave_pause must be at least 0, got -0.5.']
    assert validate.limit_errors('max_fail_percentage', 100) == []
    assert validate.limit_errors('api_timeout', 0) == ['api_timeout must be at least 1, got 0.']
    assert validate.limit_errors('fleet_concurrency', '0', 'concurrency') == ['fleet_concurrency must be at least 1, got 0.']
    assert validate.limit_errors('fleet_timeout', 'soon', 'timeout') == ["fleet_timeout must be a number, got 'soon'."]


@pytest.mark.parametrize('text, expected', [
    (UUID, True), (UUID.upper(), True), (UUID.replace('-', ''), True), ('{%s}' % UUID, True),
    ('rack1-node07', False), (UUID[:-1], False), ('', False), (None, False), (5, False),
])
def test_is_uuid_like_agrees_with_oslo(text, expected):
    assert validate.is_uuid_like(text) is expected


def test_a_uuid_or_a_name_ironic_cannot_hold_is_refused_as_a_node_name():
    with pytest.raises(validate.InputError, match='Ironic node names cannot be UUIDs'):
        validate.check_node_name('name', UUID)
    for name in ('rack 1', 'nœud', 'x' * 256, ''):
        with pytest.raises(validate.InputError, match='is not a node name Ironic accepts'):
            validate.check_node_name('name', name)
    validate.check_node_name('name', 'rack1-node07.a_b~c')


def test_node_lists():
    assert validate.nodes_errors('nodes', ['a', 'b', {'node': UUID}, {'node': 'c', 'state': 'active'}]) == []
    assert validate.nodes_errors('nodes', ['a', {'node': 'a'}]) == [
        'nodes[1].node names a again (first in nodes[0]): list each node once.']
    assert 'is not a node name' in validate.nodes_errors('nodes', ['a b'])[0]
    # node: finds a node, by name or UUID; name: names a record, and Ironic names are never UUIDs.
    assert validate.nodes_errors('nodes', [{'name': UUID}]) == [
        'nodes[0].name %s is a UUID, and Ironic node names cannot be UUIDs: give the name of the node (to choose '
        'the UUID of a new node, set uuid as well).' % UUID]
    with pytest.raises(validate.InputError, match=r'names node u1 more than once \(n1, u1\)'):
        validate.check_distinct_nodes({'n1': {'uuid': 'u1'}, 'u1': {'uuid': 'u1'}, 'n2': {'uuid': 'u2'}})


def test_check_options_reports_every_problem_at_once():
    with pytest.raises(validate.InputError) as raised:
        validate.check_options({'timeout': 0, 'concurrency': 0, 'max_fail_percentage': 101, 'api_timeout': -1,
                                'uuid': 'abc', 'instance_info': {'a/b': 1}, 'node': 'a b',
                                'clean_steps': [{'step': 'x'}], 'config_drive': {'userdata': SECRET}})
    message = str(raised.value)
    for part in ('timeout must be at least 1', 'concurrency must be at least 1', 'max_fail_percentage must be between',
                 'api_timeout must be at least 1', "uuid 'abc' is not a UUID", "instance_info key 'a/b'",
                 "node 'a b' is not a node name", "clean_steps[0] lacks 'interface'", "unknown key 'userdata'"):
        assert part in message
    assert SECRET not in message
    validate.check_options({'timeout': 1, 'node': UUID, 'nodes': None, 'config_drive': None})


@pytest.mark.parametrize('params, problem', [
    ({'wave_pause': 30.0}, 'wave_pause (30 s) is the pause between two waves, and without wave_size the task runs no '
                           'waves. Set wave_size (such as 10, or "25%" of the nodes that change), or leave wave_pause out.'),
    ({'wave_pause': 0.5, 'wave_size': None}, 'wave_pause (0.5 s)'),
    ({'wave_pause': 30.0, 'wave_size': '10%'}, None),
    ({'wave_pause': 0.0}, None),  # the default
])
def test_a_pause_between_waves_needs_waves(params, problem):
    if problem is None:
        validate.check_options(params)
        return
    with pytest.raises(validate.InputError) as raised:
        validate.check_options(params)
    assert problem in str(raised.value)


def test_numbers_are_written_as_a_task_writes_them():
    assert [validate.as_written(number) for number in (0.0, 30.0, 12.5, 7)] == ['0', '30', '12.5', '7']


@pytest.mark.parametrize('mac, problem', [
    ('52:54:00:12:34:56', None), (' 52:54:00:AB:cd:EF ', None),  # as Ironic stores it once in lower case
    ('52-54-00-12-34-56', 'is not a MAC address'), ('52:54:00:12:34', 'is not a MAC address'),
    ('rack1-node07', 'is not a MAC address'), ('525400123456', 'is not a MAC address'),
])
def test_a_mac_address_to_look_up_is_checked_before_any_request(mac, problem):
    if problem is None:
        validate.check_options({'mac': mac})
        return
    with pytest.raises(validate.InputError) as caught:
        validate.check_options({'mac': mac})
    assert str(caught.value) == ('mac %r is not a MAC address; write six hexadecimal octets separated by colons, for '
                                 'example 52:54:00:12:34:56.' % mac.strip().lower())


@pytest.mark.parametrize('written, read', [
    ('52:54:00:12:34:56', 41135085296), ('52:54:00:03:00:01', 41135050801), ('12:00:00:00:00:01', 9331200001),
])
def test_a_mac_address_yaml_read_as_a_number_is_told_to_be_quoted(written, read):
    # YAML 1.1 (PyYAML, Ansible) reads 52:54:00:12:34:56 unquoted as a base-60 integer; the option gets its digits
    assert yaml.safe_load('mac: %s' % written) == {'mac': read}
    with pytest.raises(validate.InputError) as caught:
        validate.check_options({'mac': read})
    assert str(caught.value) == ("mac '%d' is a number, not a MAC address: YAML reads a MAC address written without "
                                 "quotes whose octets are all decimal digits, such as %s, as a base-60 number. Quote "
                                 "it: \"%s\"." % (read, written, written))
    assert validate.mac_errors('ports[0].address', str(read)) == ['ports[0].address' + str(caught.value)[len('mac'):]]


@pytest.mark.parametrize('selection, problem', [
    ({}, 'select sets no filter, and an empty selection is never every node'),
    ({'resource_class': None, 'owner': None, 'all': False}, 'select sets no filter'),
    ({'resource_class': None, 'all': None}, "or write select: {all: true} to act on every node on purpose."),
    ({'resource_class': ''}, 'select.resource_class is an empty string: give the value to filter on'),
    ({'owner': '  ', 'shard': 's1'}, 'select.owner is an empty string'),
    ({'all': True, 'shard': 's1'}, 'select.all: true selects every node, and select also sets shard: drop all'),
])
def test_a_selection_that_sets_no_filter_is_never_every_node(selection, problem):
    errors = validate.selection_errors('select', selection)
    assert len(errors) == 1 and problem in errors[0]
    with pytest.raises(validate.InputError, match='select'):
        validate.check_options({'select': selection})


@pytest.mark.parametrize('selection', [{'all': True}, {'all': True, 'owner': None}, {'shard': 's1', 'all': False},
                                       {'resource_class': 'gpu', 'owner': None}])
def test_a_selection_with_a_filter_or_all_is_taken(selection):
    assert validate.selection_errors('select', selection) == []
    validate.check_options({'select': selection})


def test_no_selection_is_not_an_empty_selection():
    validate.check_options({'select': None, 'node': 'a'})
    assert validate.selection_given(None) == {}
    assert validate.selection_given({'all': True, 'owner': None, 'shard': 's'}) == {'shard': 's'}


def test_a_reason_is_dropped_where_maintenance_is_off_or_no_node_with_maintenance_on_takes_the_tasks():
    elements = ['a', {'node': 'b', 'reason': 'Disk'}, {'node': 'c', 'reason': ''}]
    labels = ['nodes[0] (a)', 'nodes[1] (b)', 'nodes[2] (c)']
    assert validate.dropped_reasons(elements, [True, True, False], labels, 'Fan', 'reason') == []
    assert validate.dropped_reasons(elements, [False, False, False], labels, 'Fan', 'reason') == [
        'nodes[1] (b): ' + validate.reason_dropped('reason', False),
        "the task's reason is kept by none of its nodes: reason is only kept while maintenance is on, and no element "
        "of nodes that takes the task's reason has maintenance: true. Drop reason, or set maintenance: true."]
    assert validate.dropped_reasons([], [], [], 'Fan', 'reason') == []  # no node: an explicit no-op
    assert validate.reason_dropped('maintenance_reason', None) == (
        'maintenance_reason is only kept while maintenance is on, and maintenance is not declared, so the node is left '
        'as it is: drop maintenance_reason, or set maintenance: true.')


# -- option values of another type than the spec's (option_type_errors) --------------------------------------------

TYPED_SPEC = dict(
    resource_class=dict(type='str'),
    name=dict(type='str', aliases=['node']),
    ca_cert=dict(type='path'),
    timeout=dict(type='int'),
    wave_pause=dict(type='float'),
    wait=dict(type='bool'),
    cloud=dict(type='raw'),
    extra=dict(type='dict'),
    traits=dict(type='list', elements='str'),
    clean_steps=dict(type='list', elements='dict'),
    rescue_password=dict(type='str', no_log=True),
    select=dict(type='dict', options=dict(resource_class=dict(type='str'), owner=dict(type='str'))),
    nodes=dict(type='list', elements='dict', options=dict(
        name=dict(type='str'), resource_class=dict(type='str'),
        ports=dict(type='list', elements='dict', options=dict(address=dict(type='str'))))),
)


def test_a_list_or_a_dictionary_for_a_string_is_refused_naming_the_option_the_types_and_the_fix():
    assert validate.option_type_errors({'resource_class': ['a', 'b']}, TYPED_SPEC) == [
        "resource_class must be a string, got a list (['a', 'b']): give one string, not a list (Ansible would send "
        "the text of the whole list to Ironic)."]
    assert validate.option_type_errors({'ca_cert': {'path': '/x'}}, TYPED_SPEC) == [
        "ca_cert must be a path, got a dictionary ({'path': '/x'}): give one path, not a dictionary (Ansible would "
        "send the text of the whole dictionary to Ironic)."]
    # An alias is named as the task wrote it.
    assert validate.option_type_errors({'node': ['a']}, TYPED_SPEC)[0].startswith("node must be a string, got a list")


def test_the_full_path_names_suboptions_and_elements_at_any_depth():
    errors = validate.option_type_errors({
        'select': {'resource_class': ['a'], 'owner': 'team'},
        'traits': ['CUSTOM_A', ['CUSTOM_B']],
        'nodes': [{'name': 'a'}, 'b', {'name': 'c', 'resource_class': {'x': 1},
                                       'ports': [{'address': ['52:54:00:12:34:56']}]}],
    }, TYPED_SPEC)
    assert sorted(error.split(' must ')[0] for error in errors) == [
        'nodes[2].ports[0].address', 'nodes[2].resource_class', 'select.resource_class', 'traits[1]']


def test_ansibles_documented_conversions_and_types_without_a_rule_pass():
    assert validate.option_type_errors({
        'resource_class': 123, 'name': 'n', 'timeout': '8', 'wait': 'yes', 'wave_pause': '1.5', 'cloud': ['x'],
        'extra': {'a': [1]}, 'traits': 'CUSTOM_A,CUSTOM_B', 'clean_steps': [{'args': {'x': [1]}}], 'select': None,
        'nodes': None, 'unknown': [1]}, TYPED_SPEC) == []


def test_a_list_for_a_number_or_a_boolean_names_the_fix_without_claiming_a_conversion():
    assert validate.option_type_errors({'timeout': [60], 'wait': {'a': 1}}, TYPED_SPEC) == [
        'timeout must be a whole number, got a list ([60]): give one whole number, not a list.',
        "wait must be true or false, got a dictionary ({'a': 1}): give true or false, not a dictionary."]


def test_a_secret_value_is_never_quoted():
    errors = validate.option_type_errors({'rescue_password': [SECRET]}, TYPED_SPEC)
    assert errors == ['rescue_password must be a string, got a list: give one string, not a list (Ansible would send '
                      'the text of the whole list to Ironic).']
    spec = dict(driver_info=dict(type='dict', options=dict(redfish_password=dict(type='str'))))
    assert SECRET not in validate.option_type_errors({'driver_info': {'redfish_password': [SECRET]}}, spec)[0]
    # A long value is cut short.
    assert validate.wrong_type_error('x', list(range(100)), 'str').startswith(
        'x must be a string, got a list ([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1... (390 characters)): ')
