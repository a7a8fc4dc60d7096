# -*- coding: utf-8 -*-
"""The checks of a declared node before anything is sent (node/record_checks.py): ports, driver_info, flags."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import record_checks
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import NodeError, declared_record
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record_checks import check_declaration

from .record_params import params, port


@pytest.mark.parametrize('address, problem', [
    ('52:54:00:zz:00:01', 'is not a MAC address'),
    ('52-54-00-00-00-01', 'is not a MAC address'),
    ('52:54:00:00:01', 'is not a MAC address'),
])
def test_a_malformed_mac_address_names_the_port_and_the_format(address, problem):
    with pytest.raises(NodeError) as error:
        check_declaration(declared_record(params(ports=[port('52:54:00:00:00:09'), port(address)])))
    assert 'ports[1].address' in str(error.value) and problem in str(error.value)
    assert '52:54:00:12:34:56' in str(error.value)


def test_a_mac_address_listed_twice_is_refused():
    with pytest.raises(NodeError, match=r'ports\[1\].address 52:54:00:00:00:01 is listed twice'):
        check_declaration(declared_record(params(ports=[port('52:54:00:00:00:01'), port('52:54:00:00:00:01')])))


def test_a_key_ironic_cannot_patch_is_refused_before_anything_is_sent():
    with pytest.raises(NodeError, match=r"properties key 'a/b' cannot be managed"):
        check_declaration(declared_record(params(properties={'a/b': 1})))


def test_a_misspelled_driver_info_key_suggests_the_closest_one():
    with pytest.raises(NodeError) as error:
        check_declaration(declared_record(params(driver='ipmi', driver_info={'ipmi_adress': '127.0.0.1'})))
    assert "did you mean 'ipmi_address'?" in str(error.value)
    assert 'validate_driver_info: false' in str(error.value)


def test_an_unknown_driver_says_how_to_use_it_anyway():
    with pytest.raises(NodeError) as error:
        check_declaration(declared_record(params(driver='redfsh')))
    assert "did you mean 'redfish'?" in str(error.value)
    assert 'Set validate_driver_info: false to use a hardware type' in str(error.value)


def test_validate_driver_info_false_lets_vendor_keys_through():
    check_declaration(declared_record(params(driver='redfish', driver_info={'vendor_quirk': 1})),
                      validate_driver_info=False)


def test_required_keys_are_checked_on_creation_and_on_removal():
    declared = declared_record(params(driver='redfish', driver_info={'redfish_username': 'admin'}))
    with pytest.raises(NodeError, match=r"'redfish_address' is required for hardware type 'redfish': add it"):
        record_checks.check_driver_info(declared, 'redfish', None)
    # an existing node keeps its required key unless the task removes it
    record_checks.check_driver_info(declared, 'redfish', {'redfish_address': 'http://127.0.0.1:8000'})
    removal = declared_record(params(driver_info={'redfish_address': None}))
    with pytest.raises(NodeError, match=r"'redfish_address' is required"):
        record_checks.check_driver_info(removal, 'redfish', {'redfish_address': 'http://127.0.0.1:8000'})


def test_changing_the_driver_names_the_keys_left_from_the_old_one():
    declared = declared_record(params(driver='redfish', driver_info={'redfish_address': 'http://127.0.0.1:8000'}))
    with pytest.raises(NodeError) as error:
        record_checks.check_driver_info(declared, 'redfish', {'ilo_address': '127.0.0.1'})
    assert 'ilo_address' in str(error.value) and 'set them to null' in str(error.value)


def test_declaring_the_driver_a_node_already_has_leaves_the_keys_it_keeps_alone():
    # a key written with validate_driver_info: false (a vendor key, a password for a BMC of another type) is the
    # node's own: a declaration that repeats its driver and says nothing of driver_info is no reason to fail
    declared = declared_record(params(driver='fake-hardware'))
    record_checks.check_driver_info(declared, 'fake-hardware', {'redfish_password': '******'}, 'fake-hardware')
    record_checks.check_driver_info(declared_record(params(driver='redfish', driver_info={
        'redfish_address': 'http://127.0.0.1:8000'})), 'redfish', {'vendor_quirk': 1}, 'redfish')
    with pytest.raises(NodeError, match=r'driver_info keeps redfish_password from the current driver'):
        record_checks.check_driver_info(declared, 'fake-hardware', {'redfish_password': '******'}, 'redfish')


@pytest.mark.parametrize('node, declared, problem', [
    ({'provision_state': 'active'}, {'protected_reason': 'x'}, 'protected_reason is only kept while protected'),
    ({'provision_state': 'manageable', 'retired': False}, {'retired_reason': 'x'}, 'set retired: true as well'),
])
def test_flags_ironic_would_refuse_are_refused_before_anything_is_sent(node, declared, problem):
    with pytest.raises(NodeError) as error:
        record_checks.check_flags(node, declared)
    assert problem in str(error.value)


@pytest.mark.parametrize('node, declared', [
    ({'provision_state': 'active'}, {'protected': True, 'protected_reason': 'db'}),
    ({'provision_state': 'manageable', 'protected': True}, {'protected_reason': 'kept while protected'}),
    ({'provision_state': 'manageable'}, {'retired': True, 'retired_reason': 'old'}),
    ({'provision_state': 'available', 'retired': True}, {'retired': True}),
    ({'provision_state': 'enroll'}, {'protected': False, 'retired': False}),
])
def test_flags_ironic_takes_pass(node, declared):
    record_checks.check_flags(node, declared)


@pytest.mark.parametrize('value, given', [
    ('eight', "a string 'eight'"), ('8GB', "a string '8GB'"), (8.0, 'a number 8.0'), (['8'], "a list ['8']"),
    (True, 'a boolean True'), ('-8', "a string '-8'"), ('٨', "a string '٨'"),
])
def test_an_integer_property_that_is_not_a_whole_number_is_refused_naming_it(value, given):
    with pytest.raises(NodeError) as error:
        check_declaration(declared_record(params(properties={'cpus': value, 'cpu_arch': 'x86_64'})))
    assert str(error.value) == ('properties.cpus must be a whole number (Ironic documents cpus as an integer), got %s: '
                                'write it as a number, such as cpus: 8.' % given)


def test_integer_properties_that_are_numbers_digits_or_removed_pass():
    check_declaration(declared_record(params(properties={'cpus': 8, 'memory_mb': '4096', 'local_gb': None,
                                                         'cpu_arch': 'x86_64', 'vendor': ['x']})))


@pytest.mark.parametrize('value, given', [('', 'an empty string was given'), ('x' * 9, '9 characters were given')])
def test_a_string_out_of_its_rows_lengths_is_refused_naming_them_and_the_fix(monkeypatch, value, given):
    monkeypatch.setattr(record_checks.record_fields, 'FIELD_LENGTHS', {'owner': (1, 8)})
    with pytest.raises(NodeError) as raised:
        check_declaration(declared_record(params(owner=value)))
    assert str(raised.value) == ("owner must be 1 to 8 characters long, and %s: Ironic refuses it. Give a value of "
                                 "that length, or leave owner out to keep the node's." % given)


def test_a_string_within_its_rows_lengths_and_a_field_left_out_pass(monkeypatch):
    monkeypatch.setattr(record_checks.record_fields, 'FIELD_LENGTHS', {'owner': (1, 8)})
    check_declaration(declared_record(params(owner='x' * 8)))
    check_declaration(declared_record(params(lessee='')))
