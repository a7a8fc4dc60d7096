# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one secret rule: which names are secret, how values, texts and node views are masked, and which
argument values Ansible scrubs."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.baremetal.lifecycle.plugins.module_utils import _driver_info as driver_info
from ansible_collections.baremetal.lifecycle.plugins.module_utils import _secrets as secrets

from .test__driver_info import SECRETS, TYPES, VALID

MASK = secrets.MASK

# oslo.utils strutils._SANITIZE_KEYS: the key fragments the Ironic API masks.
STRUTILS_SANITIZE_KEYS = (
    'adminpass', 'admin_pass', 'password', 'admin_password', 'auth_token',
    'new_pass', 'auth_password', 'secret_uuid', 'secret', 'sys_pswd', 'token',
    'configdrive', 'chappassword', 'encrypted_key', 'private_key', 'fernetkey',
    'sslkey', 'passphrase', 'cephclusterfsid', 'octaviaheartbeatkey',
    'rabbitcookie', 'cephmanilaclientkey', 'pacemakerremoteauthkey',
    'designaterndckey', 'cephadminkey', 'heatauthencryptionkey',
    'cephclientkey', 'keystonecredential', 'barbicansimplecryptokek',
    'cephrgwkey', 'swifthashsuffix', 'migrationsshkey', 'cephmdskey',
    'cephmonkey', 'chapsecret',
)


@pytest.mark.parametrize('driver', TYPES)
def test_the_name_rule_finds_exactly_the_secrets_of_every_hardware_type(driver):
    for key in driver_info.driver_info_schema(driver)['properties']:
        assert (key in SECRETS[driver]) == secrets.is_secret_name(key), key


@pytest.mark.parametrize('key', [
    'ipmi_username', 'ipmi_address', 'redfish_address', 'deploy_kernel',
    'image_no_proxy', 'snmp_auth_user', 'redfish_tls_ciphers',
    'agent_verify_ca'])
def test_not_secret(key):
    assert not secrets.is_secret_name(key)


@pytest.mark.parametrize('key', [
    'vendor_password', 'bmc_token', 'api_secret', 'ssh_key', 'X_PASSWORD',
    'auth_passphrase', 'drac_password', 'snmp_auth_key', 'snmp_priv_key'])
def test_secret_name_pattern(key):
    assert secrets.is_secret_name(key)


@pytest.mark.parametrize('fragment', STRUTILS_SANITIZE_KEYS)
def test_pattern_covers_what_ironic_masks(fragment):
    for key in (fragment, 'x_' + fragment, fragment + '_y',
                fragment.upper()):
        assert secrets.is_secret_name(key)


@pytest.mark.parametrize('driver', TYPES)
def test_mask_secrets(driver):
    info = dict(VALID[driver])
    original = dict(info)
    masked = secrets.masked(info)
    assert info == original
    assert set(masked) == set(info)
    for key, value in info.items():
        if key in SECRETS[driver]:
            assert masked[key] == MASK
        else:
            assert masked[key] == value


def test_mask_secrets_unknown_driver_and_nested():
    info = {'ilo_password': 'a', 'vendor_token': 'b', 'address': 'c',
            'nested': {'inner_password': 'd', 'user': 'e'},
            'ipmi_password': None}
    assert secrets.masked(info) == {
        'ilo_password': MASK, 'vendor_token': MASK, 'address': 'c',
        'nested': {'inner_password': MASK, 'user': 'e'},
        'ipmi_password': None}


def test_mask_secrets_of_none():
    assert secrets.masked(None) is None


_KEYS = st.one_of(
    st.sampled_from(sorted(set().union(*SECRETS.values()))),
    st.sampled_from(['vendor_password', 'x_token', 'api_secret', 'my_key',
                     'passphrase', 'ipmi_address', 'deploy_kernel']),
    st.text(min_size=1, max_size=20),
)
_SCALARS = st.one_of(st.text(), st.integers(), st.booleans(), st.floats(),
                     st.none())
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(_KEYS, inner, max_size=3)),
    max_leaves=8)


def _assert_no_secret_leaks(original, masked):
    assert set(masked) == set(original)
    for key, value in original.items():
        if value is None:
            assert masked[key] is None
        elif secrets.is_secret_name(key):
            # A config drive or its user_data shows its size only: '******** (12 bytes)'; any other secret
            # keeps its shape with every value in it masked.
            assert re.match(r'^\*{8} \(\d+ bytes\)$', str(masked[key])) or _leaves(masked[key]) <= set([MASK, None])
        else:
            _assert_nested_no_leaks(value, masked[key])


def _leaves(value):
    if isinstance(value, dict):
        return set().union(*[_leaves(item) for item in value.values()]) if value else set()
    if isinstance(value, list):
        return set().union(*[_leaves(item) for item in value]) if value else set()
    return set([value])


def _assert_nested_no_leaks(value, masked):
    if isinstance(value, dict):
        _assert_no_secret_leaks(value, masked)
    elif isinstance(value, list):
        for item, masked_item in zip(value, masked):
            _assert_nested_no_leaks(item, masked_item)


@settings(max_examples=300, deadline=None)
@given(info=st.dictionaries(_KEYS, _VALUES, max_size=10))
def test_mask_secrets_never_leaks(info):
    snapshot = repr(info)
    masked = secrets.masked(info)
    assert repr(info) == snapshot
    _assert_no_secret_leaks(info, masked)


def test_mask_secrets_recurses_into_lists_and_shows_config_drives_by_size():
    info = {'vendor': [{'api_token': 'T', 'port': 1}], 'configdrive': {'user_data': 'abc'}, 'user_data': 'hello'}
    assert secrets.masked(info) == {
        'vendor': [{'api_token': MASK, 'port': 1}],
        'configdrive': MASK + ' (20 bytes)',
        'user_data': MASK + ' (5 bytes)',
    }


def test_public_node_masks_every_dictionary_field():
    node = {'uuid': 'u', 'driver': 'ipmi', 'driver_info': {'ipmi_hex_kg_key': 'K', 'ipmi_address': '127.0.0.1'},
            'extra': {'vendor': {'bmc_secret': 'S'}}, 'properties': {'cpu_arch': 'x86_64'}}
    assert secrets.public_node(node, ('uuid', 'driver_info', 'extra', 'properties')) == {
        'uuid': 'u', 'driver_info': {'ipmi_hex_kg_key': MASK, 'ipmi_address': '127.0.0.1'},
        'extra': {'vendor': {'bmc_secret': MASK}}, 'properties': {'cpu_arch': 'x86_64'}}


def test_secret_values_finds_every_secret_of_module_arguments():
    params = {
        'driver_info': {'redfish_password': 'P', 'vendor': {'bmc_token': 'T'}, 'ipmi_hex_kg_key': 'K',
                        'ipmi_port': 623, 'secret_list': ['L1', {'a': 'L2'}], 'fast_track': True},
        'instance_info': {'image_pull_secret': 'S', 'image_source': 'http://127.0.0.1:9/i.img'},
        'config_drive': {'meta_data': {'hostname': 'h1'}, 'user_data': '#cloud-config\npassword: U'},
        'clean_steps': [{'interface': 'management', 'step': 's', 'args': {'admin_password': 'A'}}],
        'rescue_password': 'R',
        'update_secrets': 'on_create',
        'key': '/etc/tls/client.key',
        'nodes': [{'name': 'n1', 'driver_info': {'ilo_password': 'I'}}],
        '_ansible_keep_remote_files': False,
    }
    spec = {'update_secrets': {'no_log': False}, 'client_key': {'aliases': ['key'], 'no_log': False}}
    values = secrets.no_log_values(params, spec)
    for secret in ('P', 'T', 'K', 'L1', 'L2', 'S', 'A', 'R', 'I', '#cloud-config\npassword: U',
                   '#cloud-config\\npassword: U'):
        assert secret in values
    for public in ('on_create', '/etc/tls/client.key', 'h1', 'n1', '623', 'True', 'http://127.0.0.1:9/i.img'):
        assert public not in values


def test_secret_values_takes_a_config_drive_text_whole_and_survives_raw_arguments():
    assert 'H4sIAAAA' in secrets.no_log_values({'config_drive': 'H4sIAAAA'})
    assert secrets.no_log_values({'driver_info': 'not a dict', 'nodes': 5, 'auth': None}) == set()


def test_a_setting_named_like_a_secret_has_a_secret_value():
    settings = {'bios_settings': [{'name': 'AdminPassword', 'value': 'bios-pw'}, {'name': 'BootMode', 'value': 'Uefi'}]}
    assert secrets.masked(settings) == {
        'bios_settings': [{'name': 'AdminPassword', 'value': MASK}, {'name': 'BootMode', 'value': 'Uefi'}]}
    assert secrets.no_log_values(settings) == {'bios-pw'}


def test_mask_text_masks_secret_values_quoted_in_ironics_free_text():
    last_error = ("node does not support this clean step: {'interface': 'deploy', 'step': 'x', "
                  "'args': {'admin_password': 'pw-1', \"api_token\": \"tk \\\" 2\"}}; ipmitool -P x password=pw-3 -U admin")
    masked = secrets.masked_text(last_error)
    for secret in ('pw-1', 'tk ', 'pw-3'):
        assert secret not in masked
    assert "'interface': 'deploy'" in masked and "'admin_password': '********'" in masked
    assert 'password=******** -U admin' in masked
    assert secrets.masked_text(None) is None
    assert secrets.masked_text('Timeout reached while cleaning the node.') == 'Timeout reached while cleaning the node.'


def test_public_node_masks_secrets_quoted_in_last_error():
    node = {'uuid': 'u', 'last_error': "bad step {'args': {'password': 'pw'}}", 'maintenance_reason': 'fan'}
    assert secrets.public_node(node, ('uuid', 'last_error', 'maintenance_reason')) == {
        'uuid': 'u', 'last_error': "bad step {'args': {'password': '********'}}", 'maintenance_reason': 'fan'}


def test_a_setting_whose_registry_says_password_has_a_secret_value_whatever_its_name():
    # Ironic's BIOS settings with ?detail=true carry their registry's attributes in each setting.
    settings = [{'name': 'BootPin', 'value': '4242', 'attribute_type': 'Password', 'read_only': False},
                {'name': 'BootMode', 'value': 'Uefi', 'attribute_type': 'Enumeration'}]
    assert secrets.masked(settings) == [
        {'name': 'BootPin', 'value': MASK, 'attribute_type': 'Password', 'read_only': False},
        {'name': 'BootMode', 'value': 'Uefi', 'attribute_type': 'Enumeration'}]
