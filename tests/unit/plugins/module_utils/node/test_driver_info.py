# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function
__metaclass__ = type


import os
import subprocess
import sys
import textwrap

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import driver_info as hw
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import MissingLibrary

from .driver_types import TYPES

MASK = '********'

# A realistic, complete driver_info per hardware type.
VALID = {
    'ipmi': {
        'ipmi_address': '10.0.0.5', 'ipmi_username': 'admin',
        'ipmi_password': 'ipmi-pw', 'ipmi_port': 623,
        'ipmi_priv_level': 'OPERATOR', 'ipmi_protocol_version': '2.0',
        'ipmi_cipher_suite': '17', 'ipmi_hex_kg_key': 'a1b2',
        'ipmi_bridging': 'single', 'ipmi_target_channel': 7,
        'ipmi_target_address': '0x72', 'ipmi_force_boot_device': True,
        'ipmi_disable_boot_timeout': 'false', 'ipmi_terminal_port': 8023,
        'deploy_kernel': 'http://images/ipa.kernel',
        'deploy_ramdisk': 'http://images/ipa.initramfs',
        'rescue_kernel': 'http://images/ipa.kernel',
        'rescue_ramdisk': 'http://images/ipa.initramfs',
        'kernel_append_params': '%default% console=ttyS0',
        'force_persistent_boot_device': 'Never',
        'image_download_source': 'http', 'fast_track': 'yes',
        'provisioning_network': 'provisioning',
        'fail_on_binding_failure': False,
    },
    'redfish': {
        'redfish_address': 'https://bmc.example.com',
        'redfish_system_id': '/redfish/v1/Systems/1',
        'redfish_username': 'root', 'redfish_password': 'redfish-pw',
        'redfish_verify_ca': '/etc/pki/bmc-ca.pem',
        'redfish_auth_type': 'session',
        'redfish_tls_minimum_version': '1.2',
        'firmware_update_unresponsive_bmc_wait': 300,
        'deploy_iso': 'http://images/ipa.iso', 'bootloader': 'glance-uuid',
        'external_http_url': 'http://10.1.0.1:8080',
        'config_via_removable': True, 'vmedia_transport_protocol': 'https',
        'agent_verify_ca': False,
    },
    'idrac': {
        'redfish_address': 'idrac.example.com', 'redfish_username': 'root',
        'redfish_password': 'calvin', 'redfish_verify_ca': False,
        'deploy_kernel': 'glance-kernel', 'deploy_ramdisk': 'glance-ramdisk',
        'ipmi_address': 'idrac.example.com', 'ipmi_terminal_port': 8024,
    },
    'ilo': {
        'ilo_address': '10.0.0.9', 'ilo_username': 'Administrator',
        'ilo_password': 'ilo-pw', 'client_port': 443, 'client_timeout': '60',
        'ilo_verify_ca': True, 'console_port': 5000,
        'snmp_auth_user': 'snmp', 'snmp_auth_prot_password': 'prot-pw',
        'snmp_auth_priv_password': 'priv-pw', 'snmp_auth_protocol': 'SHA',
        'snmp_auth_priv_protocol': 'aes', 'ilo_add_certificates': 'true',
        'ilo_change_password': 'new-ilo-pw', 'deploy_iso': 'glance-iso',
        'rescue_iso': 'glance-rescue-iso',
    },
    'fake-hardware': {
        'deploy_kernel': 'k', 'deploy_ramdisk': 'r', 'fast_track': True,
    },
    'manual-management': {
        'deploy_kernel': 'k', 'deploy_ramdisk': 'r',
        'ansible_username': 'ansible', 'ansible_key_file': '/keys/id_rsa',
    },
}

SECRETS = {
    'ipmi': {'ipmi_password', 'ipmi_hex_kg_key', 'ansible_key_file'},
    'redfish': {'redfish_password', 'ipmi_password', 'ipmi_hex_kg_key',
                'ansible_key_file'},
    'idrac': {'redfish_password', 'ipmi_password', 'ipmi_hex_kg_key',
              'ansible_key_file'},
    'ilo': {'ilo_password', 'ilo_change_password', 'snmp_auth_prot_password',
            'snmp_auth_priv_password', 'ansible_key_file'},
    'fake-hardware': {'ansible_key_file'},
    'manual-management': {'ansible_key_file'},
}

REQUIRED = {
    'ipmi': ['ipmi_address'],
    'redfish': ['redfish_address'],
    'idrac': ['redfish_address'],
    'ilo': ['ilo_address', 'ilo_username', 'ilo_password'],
    'fake-hardware': [],
    'manual-management': [],
}


@pytest.mark.parametrize('driver', TYPES)
def test_schema_is_valid_draft7(driver):
    schema = hw.driver_info_schema(driver)
    jsonschema.Draft7Validator.check_schema(schema)
    assert schema['additionalProperties'] is False
    assert schema['required'] == REQUIRED[driver]
    for key, prop in schema['properties'].items():
        assert prop['description'], key
        assert 'type' in prop or 'enum' in prop, key


def test_schema_is_a_copy():
    hw.driver_info_schema('ipmi')['properties'].clear()
    assert 'ipmi_address' in hw.driver_info_schema('ipmi')['properties']


def test_schema_of_unknown_driver():
    with pytest.raises(ValueError, match="did you mean 'ipmi'"):
        hw.driver_info_schema('ipmy')


@pytest.mark.parametrize('driver', TYPES)
def test_valid_full_dict(driver):
    assert hw.validate_driver_info(driver, VALID[driver]) == []


@pytest.mark.parametrize('driver', TYPES)
def test_common_deploy_keys_accepted_everywhere(driver):
    info = dict(VALID[driver], deploy_kernel='k', deploy_ramdisk='r',
                rescue_kernel='k', rescue_ramdisk='r',
                kernel_append_params='nofb', image_https_proxy='http://p:3128',
                deploy_forces_oob_reboot='True', cleaning_runbook='rb')
    assert hw.validate_driver_info(driver, info) == []


def test_ipmi_misspelling_suggestion():
    errors = hw.validate_driver_info(
        'ipmi', {'ipmi_address': 'h', 'ipmi_adress': '10.0.0.5'})
    assert errors == [
        "driver_info key 'ipmi_adress' is not known for hardware type "
        "'ipmi' (did you mean 'ipmi_address'?). Set validate_driver_info: "
        "false to pass vendor-specific keys."]


def test_unknown_key_without_suggestion():
    errors = hw.validate_driver_info('ipmi', {'ipmi_address': 'h',
                                              'zzzz': 1})
    assert errors == [
        "driver_info key 'zzzz' is not known for hardware type 'ipmi'. "
        "Set validate_driver_info: false to pass vendor-specific keys."]


def test_key_of_another_hardware_type_is_unknown():
    errors = hw.validate_driver_info(
        'ipmi', {'ipmi_address': 'h', 'redfish_address': 'https://bmc'})
    assert len(errors) == 1
    assert "'redfish_address' is not known for hardware type 'ipmi'" \
        in errors[0]


def test_several_unknown_keys_each_get_a_message():
    errors = hw.validate_driver_info(
        'redfish', {'redfish_address': 'a', 'redfish_pasword': 'x',
                    'redfish_usrname': 'y'})
    assert errors == [
        "driver_info key 'redfish_pasword' is not known for hardware type "
        "'redfish' (did you mean 'redfish_password'?). Set "
        "validate_driver_info: false to pass vendor-specific keys.",
        "driver_info key 'redfish_usrname' is not known for hardware type "
        "'redfish' (did you mean 'redfish_username'?). Set "
        "validate_driver_info: false to pass vendor-specific keys.",
    ]


def test_unknown_driver_suggestion():
    assert hw.validate_driver_info('redfsh', {'redfish_address': 'a'}) == [
        "unknown driver 'redfsh' (did you mean 'redfish'?). Known hardware "
        "types: ipmi, redfish, idrac, ilo, fake-hardware, manual-management"]


def test_unknown_driver_without_suggestion():
    assert hw.validate_driver_info('xclarity', {}) == [
        "unknown driver 'xclarity'. Known hardware types: ipmi, redfish, "
        "idrac, ilo, fake-hardware, manual-management"]


@pytest.mark.parametrize('driver', TYPES)
def test_missing_required(driver):
    assert hw.validate_driver_info(driver, {}) == [
        "driver_info key %r is required for hardware type %r" % (key, driver)
        for key in REQUIRED[driver]]


def test_missing_required_when_driver_info_is_none():
    assert hw.validate_driver_info('ipmi', None) == [
        "driver_info key 'ipmi_address' is required for hardware type 'ipmi'"]


def test_driver_info_must_be_a_dict():
    assert hw.validate_driver_info('ipmi', ['ipmi_address']) == [
        'driver_info must be a dictionary, got list']


@pytest.mark.parametrize('driver', TYPES)
def test_check_required_false(driver):
    assert hw.validate_driver_info(driver, {}, check_required=False) == []


def test_check_required_false_still_validates_the_rest():
    errors = hw.validate_driver_info(
        'ilo', {'ilo_pasword': 'x', 'client_port': 'https'},
        check_required=False)
    assert errors == [
        "driver_info key 'ilo_pasword' is not known for hardware type 'ilo' "
        "(did you mean 'ilo_password'?). Set validate_driver_info: false to pass "
        "vendor-specific keys.",
        "driver_info key 'client_port' must be an integer, got 'https' (str)",
    ]


def test_null_values_are_skipped():
    info = {'ipmi_address': 'h', 'ipmi_port': None, 'ipmi_adress': None,
            'vendor_key': None}
    assert hw.validate_driver_info('ipmi', info) == []


def test_null_required_value_is_missing():
    assert hw.validate_driver_info('ipmi', {'ipmi_address': None}) == [
        "driver_info key 'ipmi_address' is required for hardware type 'ipmi'"]
    assert hw.validate_driver_info('ipmi', {'ipmi_address': None},
                                   check_required=False) == []


def test_wrong_type_integer():
    errors = hw.validate_driver_info('ipmi', {'ipmi_address': 'h',
                                              'ipmi_port': 'abc'})
    assert errors == [
        "driver_info key 'ipmi_port' must be an integer, got 'abc' (str)"]


@pytest.mark.parametrize('value', [623, '623'])
def test_integer_accepts_int_and_digit_string(value):
    assert hw.validate_driver_info(
        'ipmi', {'ipmi_address': 'h', 'ipmi_port': value}) == []


@pytest.mark.parametrize('value, shown', [
    (True, 'True (bool)'), (6.5, '6.5 (float)'), ([623], '[623] (list)'),
    ('-1', "'-1' (str)")])
def test_integer_rejects(value, shown):
    assert hw.validate_driver_info(
        'ipmi', {'ipmi_address': 'h', 'ipmi_port': value}) == [
        "driver_info key 'ipmi_port' must be an integer, got %s" % shown]


@pytest.mark.parametrize('value', [True, 'no', 'Yes', 'FALSE', '1', 'on'])
def test_boolean_accepts_bool_strings(value):
    assert hw.validate_driver_info(
        'ipmi', {'ipmi_address': 'h', 'ipmi_force_boot_device': value}) == []


def test_boolean_rejects():
    errors = hw.validate_driver_info(
        'ipmi', {'ipmi_address': 'h', 'ipmi_force_boot_device': 'maybe',
                 'fast_track': 2})
    assert errors == [
        "driver_info key 'fast_track' must be a boolean, got 2 (int)",
        "driver_info key 'ipmi_force_boot_device' must be a boolean, "
        "got 'maybe' (str)",
    ]


def test_truth_tested_flags_need_real_booleans():
    # Ironic reads config_via_removable for truth: "false" would enable it.
    errors = hw.validate_driver_info(
        'redfish', {'redfish_address': 'a', 'config_via_removable': 'false'})
    assert errors == [
        "driver_info key 'config_via_removable' must be a boolean, "
        "got 'false' (str)"]


def test_boolean_or_path():
    for value in (True, '/etc/ca.pem'):
        assert hw.validate_driver_info(
            'redfish', {'redfish_address': 'a',
                        'redfish_verify_ca': value}) == []
    assert hw.validate_driver_info(
        'redfish', {'redfish_address': 'a', 'redfish_verify_ca': 1}) == [
        "driver_info key 'redfish_verify_ca' must be a boolean or a string, "
        "got 1 (int)"]


def test_string_rejects_other_types():
    assert hw.validate_driver_info('ipmi', {'ipmi_address': ['a', 'b']}) == [
        "driver_info key 'ipmi_address' must be a string, got ['a', 'b'] "
        "(list)"]


def test_enum():
    assert hw.validate_driver_info(
        'ipmi', {'ipmi_address': 'h', 'ipmi_priv_level': 'admin'}) == [
        "driver_info key 'ipmi_priv_level' must be one of 'ADMINISTRATOR', "
        "'CALLBACK', 'OPERATOR', 'USER', got 'admin' (str)"]


def test_enum_catches_unquoted_yaml_numbers():
    # Ironic compares strings; YAML reads an unquoted 1.2 as a float.
    assert hw.validate_driver_info(
        'redfish', {'redfish_address': 'a',
                    'redfish_tls_minimum_version': 1.2}) == [
        "driver_info key 'redfish_tls_minimum_version' must be one of '1.1', "
        "'1.2', '1.3', got 1.2 (float)"]


def test_ipmi_protocol_version_float_is_fine():
    # Ironic str()s this one, so YAML's 2.0 float works.
    assert hw.validate_driver_info(
        'ipmi', {'ipmi_address': 'h', 'ipmi_protocol_version': 2.0}) == []


def test_redfish_system_id_is_optional():
    assert hw.validate_driver_info('redfish', {'redfish_address': 'a'}) == []
    assert hw.validate_driver_info('idrac', {'redfish_address': 'a'}) == []


def test_ipmi_console_keys_on_redfish_and_idrac():
    for driver in ('redfish', 'idrac'):
        info = {'redfish_address': 'a', 'ipmi_address': 'b',
                'ipmi_password': 'p', 'ipmi_terminal_port': 9000}
        assert hw.validate_driver_info(driver, info) == []


def test_virtual_media_keys_not_for_ipmi():
    errors = hw.validate_driver_info(
        'ipmi', {'ipmi_address': 'h', 'deploy_iso': 'x'})
    assert len(errors) == 1
    assert "'deploy_iso' is not known for hardware type 'ipmi'" in errors[0]


def test_deprecated_and_insecure_keys_are_rejected():
    errors = hw.validate_driver_info(
        'redfish', {'redfish_address': 'a', 'redfish_deploy_iso': 'x',
                    'pxe_template': '/tmp/x'})
    assert [e.split(' is not known')[0] for e in errors] == [
        "driver_info key 'pxe_template'",
        "driver_info key 'redfish_deploy_iso'"]
    assert "did you mean 'deploy_iso'?" in errors[1]


def test_fake_and_manual_accept_only_common_keys():
    for driver in ('fake-hardware', 'manual-management'):
        errors = hw.validate_driver_info(driver, {'ipmi_address': 'x'})
        assert len(errors) == 1
        assert 'is not known' in errors[0]


def _all_messages(driver, info):
    return '\n'.join(hw.validate_driver_info(driver, info) +
                     hw.validate_driver_info(driver, info,
                                             check_required=False))


@pytest.mark.parametrize('driver', TYPES)
def test_secret_values_never_in_errors(driver):
    sentinel = 'S3CR3T-VALUE'
    bad_values = [[sentinel], {'v': sentinel}, 12345678, (sentinel,)]
    keys = sorted(SECRETS[driver]) + ['vendor_password', 'ipmi_pasword']
    for value in bad_values:
        info = dict((key, value) for key in keys)
        messages = _all_messages(driver, info)
        assert messages
        assert sentinel not in messages
        assert '12345678' not in messages


def test_secret_value_masked_in_type_error():
    assert hw.validate_driver_info(
        'ipmi', {'ipmi_address': 'h', 'ipmi_password': 12345}) == [
        "driver_info key 'ipmi_password' must be a string, got ******** (int)"]


def test_without_jsonschema_a_driver_info_with_nothing_to_check_is_still_checked(monkeypatch):
    monkeypatch.setitem(sys.modules, 'jsonschema', None)  # import jsonschema raises ImportError
    assert hw.validate_driver_info('fake-hardware', None) == []
    assert hw.validate_driver_info('fake-hardware', {}) == []
    assert hw.validate_driver_info('ipmi', {'ipmi_address': None}, check_required=False) == []
    assert hw.validate_driver_info('redfish', {}) == ["driver_info key 'redfish_address' is required for hardware "
                                                      "type 'redfish'"]
    assert hw.validate_driver_info('ilo', {}) == hw.validate_driver_info('ilo', {'ilo_address': None}) == [
        "driver_info key %r is required for hardware type 'ilo'" % key
        for key in ('ilo_address', 'ilo_username', 'ilo_password')]
    assert hw.validate_driver_info('redfsh', {})[0].startswith("unknown driver 'redfsh' (did you mean 'redfish'?)")
    hw.require_validator(None)
    hw.require_validator({'ipmi_address': None})


def test_without_jsonschema_a_key_to_check_names_the_pip_command(monkeypatch):
    monkeypatch.setitem(sys.modules, 'jsonschema', None)
    for check in (lambda: hw.validate_driver_info('ipmi', {'ipmi_address': 'h'}),
                  lambda: hw.require_validator({'ipmi_address': 'h'})):
        with pytest.raises(MissingLibrary) as caught:
            check()
        message = str(caught.value)
        assert message.startswith('Validating driver_info needs the Python library jsonschema, ')
        assert '%s -m pip install -r ' % sys.executable in message
        assert 'requirements.txt' in message
        assert message.endswith('Or set validate_driver_info: false to skip the validation.')


@pytest.mark.parametrize('driver', TYPES)
def test_an_empty_driver_info_gets_the_messages_jsonschema_gives(driver):
    """Checked without jsonschema, an empty driver_info is judged as jsonschema judges it."""
    for check_required in (True, False):
        expected = []
        schema = hw.driver_info_schema(driver)
        if not check_required:
            schema['required'] = []
        for error in jsonschema.Draft7Validator(schema).iter_errors({}):
            expected.extend(message for message in hw._messages(driver, schema, error) if message not in expected)
        assert hw.validate_driver_info(driver, {}, check_required=check_required) == expected


def test_a_node_without_driver_info_is_checked_without_importing_jsonschema():
    """The checks baremetal_node makes of a fake-hardware node declared without driver_info, in a Python that has
    not imported jsonschema: they pass and import nothing (a user without the library, issue 27)."""
    script = textwrap.dedent('''
        import sys
        from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import record_checks as _node_record
        declared = {'driver': 'fake-hardware'}
        _node_record.check_declaration(declared)
        _node_record.check_driver_info(declared, 'fake-hardware', None)
        _node_record.check_driver_info({}, 'fake-hardware', {})
        from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import driver_info as _driver_info
        _driver_info.require_validator(declared.get('driver_info'))
        print(sorted(name for name in sys.modules if name.split('.')[0] == 'jsonschema'))
    ''')
    process = subprocess.run([sys.executable, '-c', script], env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)),
                             capture_output=True, text=True, check=False)
    assert process.returncode == 0, process.stderr
    assert process.stdout.strip() == '[]'


@settings(max_examples=200, deadline=None)
@given(driver=st.sampled_from(TYPES),
       secret=st.text(alphabet='QXZJ', min_size=12, max_size=20),
       wrap=st.sampled_from([list, tuple, lambda v: {'v': v}]))
def test_validation_never_leaks_secret_values(driver, secret, wrap):
    info = dict((key, wrap(secret)) for key in SECRETS[driver])
    info['vendor_secret'] = secret
    assert secret not in _all_messages(driver, info)
