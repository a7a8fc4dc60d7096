# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one secret rule: which names are secret, how values, texts and node views are masked, and which
argument values Ansible scrubs."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import datetime
import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ansible.module_utils.common.parameters import remove_values

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import driver_info
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets

from ..node.test_driver_info import SECRETS, TYPES, VALID

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
    'agent_verify_ca', 'pkg', 'background', 'kgs'])
def test_not_secret(key):
    assert not secrets.is_secret_name(key)


@pytest.mark.parametrize('key', [
    'vendor_password', 'bmc_token', 'api_secret', 'ssh_key', 'X_PASSWORD',
    'auth_passphrase', 'drac_password', 'snmp_auth_key', 'snmp_priv_key',
    # The snmp driver's communities (Ironic shows them in clear) and a Kg key under any name.
    'snmp_community', 'snmp_community_read', 'snmp_community_write', 'ipmi_kg', 'IPMI_KG', 'bmc_kg', 'ipmiKg',
    # FreeIPMI's Kg key option, an HTTP authorization header, the signature of a signed URL.
    'k-g', 'k_g', 'Authorization', 'Proxy-Authorization', 'temp_url_sig', 'X-Amz-Signature', 'Signature', 'sig'])
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


def test_the_password_of_a_url_an_option_holds_is_a_secret_value():
    params = {'virtual_media': [{'device_type': 'cdrom', 'image_url': 'http://reader:Zq-p@ss@127.0.0.1:8080/boot.iso'}],
              'instance_info': {'image_source': 'http://127.0.0.1:9/i.img'}}
    assert secrets.no_log_values(params) == {'Zq-p@ss'}
    # Without a scheme too: Ironic takes a redfish_address without one (https assumed), user information and all.
    params = {'driver_info': {'redfish_address': 'admin:Zq-p@ss@10.0.0.5:443', 'redfish_username': 'admin'}}
    assert secrets.no_log_values(params) == {'Zq-p@ss'}


def test_the_secret_an_operators_text_names_is_a_secret_value_and_the_text_around_it_is_not():
    # A reason or a description holds what an operator wrote: what masked_text hides of it is scrubbed from every
    # output by Ansible, the echo of the arguments (-vvv) too.
    params = {'reason': 'BMC reset, ipmi_password=Zq9-old', 'description': "{'value': 'Bp-77x', 'name': 'AdminPassword'}",
              'nodes': [{'node': 'rack-secrets-01', 'reason': 'root password: "Pw 3"'}]}
    values = secrets.no_log_values(params)
    assert {'Zq9-old', 'Bp-77x', 'Pw 3'} <= values
    assert not [value for value in values if 'rack' in value or 'BMC' in value or 'root' in value]
    for text in ('BMC reset, ipmi_password=Zq9-old', "{'value': 'Bp-77x', 'name': 'AdminPassword'}"):
        assert not [value for value in values if value in secrets.masked_text(text)]


def test_secret_values_takes_a_config_drive_text_whole_and_survives_raw_arguments():
    assert 'H4sIAAAA' in secrets.no_log_values({'config_drive': 'H4sIAAAA'})
    assert secrets.no_log_values({'driver_info': 'not a dict', 'nodes': 5, 'auth': None}) == set()


def test_a_setting_named_like_a_secret_has_a_secret_value():
    settings = {'bios_settings': [{'name': 'AdminPassword', 'value': 'bios-pw'}, {'name': 'BootMode', 'value': 'Uefi'}]}
    assert secrets.masked(settings) == {
        'bios_settings': [{'name': 'AdminPassword', 'value': MASK}, {'name': 'BootMode', 'value': 'Uefi'}]}
    assert secrets.no_log_values(settings) == {'bios-pw'}


def test_a_value_set_at_a_secret_path_is_secret():
    actions = {'actions': [{'op': 'set-attribute', 'args': {'path': '/driver_info/ipmi_password', 'value': 'ipmi-pw'}},
                           {'op': 'set-attribute', 'args': {'path': '/properties/rack', 'value': 'r1'}}]}
    assert secrets.masked(actions)['actions'][0]['args'] == {'path': '/driver_info/ipmi_password', 'value': MASK}
    assert secrets.masked(actions)['actions'][1]['args']['value'] == 'r1'
    assert secrets.no_log_values(actions) == {'ipmi-pw'}


def test_the_texts_in_the_arguments_of_a_sensitive_inspection_rule_are_secret():
    rule = {'sensitive': True, 'conditions': [{'op': 'eq', 'args': {'values': ['{inventory[bmc_address]}', 2]}}],
            'actions': [{'op': 'set-attribute', 'args': {'path': '/extra/note', 'value': 'hidden-text'}},
                        {'op': 'log', 'args': {'msg': '{item}'}, 'loop': ['loop-item', 'ab']}]}
    found = secrets.no_log_values(rule)
    assert {'{inventory[bmc_address]}', '/extra/note', 'hidden-text', 'loop-item'} <= found
    assert not {'2', 'ab', 'eq', 'set-attribute', 'log'} & found  # short texts and numbers would mask every output
    assert secrets.no_log_values({'rules': [rule]}) == found
    assert secrets.no_log_values(dict(rule, sensitive=False)) == set()


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


@pytest.mark.parametrize('field', ['maintenance_reason', 'retired_reason', 'protected_reason', 'description'])
def test_public_node_masks_secrets_an_operator_wrote_in_any_reason_or_description(field):
    # An operator's words, in any of the node's texts: the same rule as a maintenance_reason (they were shown whole).
    node = {'uuid': 'u', field: "BMC replaced, old ipmi_password=pw-9; console http://admin:pw-8@127.0.0.1/"}
    assert secrets.public_node(node, ('uuid', field)) == {
        'uuid': 'u', field: "BMC replaced, old ipmi_password=********; console http://admin:********@127.0.0.1/"}


# -- free text: every shape a secret-named key and its value take ------------------------------------------------

# Secret names as texts quote them: driver_info keys, what Ironic masks, a header, an environment variable, a BIOS
# setting. Keys with a space are only written quoted.
_TEXT_KEYS = sorted(set().union(*SECRETS.values()) | set(STRUTILS_SANITIZE_KEYS) | set([
    'password', 'X-Auth-Token', 'OS_PASSWORD', 'SetupToken', 'ipmi_hex_kg_key', 'rescue_password', 'auth.password',
    'Authorization', 'Proxy-Authorization', 'temp_url_sig', 'X-Amz-Signature', 'Signature', 'k-g']))
_QUOTED_ONLY_KEYS = ['Admin Password', 'BMC Password', 'vendor token']
# Unquoted before a colon, a word names a secret when its last part does: a label or a field path before prose
# (node rack-secrets-01: ..., bios_settings.AdminPassword: ...) is not a key. secret_uuid and ansible_key_file (a
# path) are secret by name only: their last parts name no secret.
_COLON_KEYS = [key for key in _TEXT_KEYS if '.' not in key and key not in ('secret_uuid', 'ansible_key_file')]
# A value begins and ends with a marker: a value cut short leaves its end marker in the text.
_HEAD, _TAIL = 'Vq7HeadMark', 'Vq7TailMark'
_PRINTABLE = [chr(code) for code in range(32, 127)]
# What a bare value may hold: no space, comma, semicolon, ampersand, closing bracket, quote or backslash.
_BARE = st.text(st.sampled_from([char for char in _PRINTABLE if char not in ' ,;&)]}\'"\\']), max_size=12)
_ANY = st.lists(st.sampled_from(_PRINTABLE + ['\t', '\\\\', "\\'", '\\"']), max_size=12).map(''.join)
_PROSE_WORDS = st.sampled_from([
    'Failed to', 'power on', 'node', 'ipmitool', '-I lanplus', '-H 127.0.0.1', '-U admin', 'returned 1', ':', '=',
    ', ', '; ', "'", '"', '\\', '{', '}', '[', ']', '(', ')', 'ipmi_address', 'redfish_username: admin',
    "'deploy_kernel': 'file:///k'", '{"interface": "deploy"}', 'name=value', 'http://127.0.0.1:8000/redfish/v1',
    '--verbose', '-v', 'value: 1', "'name': 'BootMode'", '\n', ' ', 'Ã©tÃ©', 'ç¯€é»ž'])


def _no_secret_in(text):
    return '@' not in text and not any(secrets.is_secret_name(word) for word in re.findall(r'[\w-]+', text)) \
        and not (re.search(r'ipmi|bmc-', text) and re.search(r'-[Pkyp]', text))  # a BMC tool's -P x


_PROSE = st.lists(st.one_of(_PROSE_WORDS, st.text(max_size=8)), max_size=6).map(''.join).filter(_no_secret_in)


def _python_quoted(value, quote="'"):
    return quote + value.replace('\\', '\\\\').replace(quote, '\\' + quote) + quote


# How a value is written: (name, the value alphabet it allows, the writer).
_VALUE_QUOTINGS = [
    ('bare', _BARE, lambda value: value),
    ("single-quoted, backslash escapes", _ANY, _python_quoted),
    ('double-quoted (JSON)', _ANY, json.dumps),
    ("single-quoted, doubled (YAML)", _ANY, lambda value: "'%s'" % value.replace("'", "''")),
    ('escaped double quotes (JSON in JSON)', _ANY, lambda value: json.dumps(json.dumps(value))[1:-1]),
    ("escaped single quotes (repr in repr)", _ANY, lambda value: _python_quoted(_python_quoted(value))[1:-1]),
    ('escaped-escaped double quotes', _BARE, lambda value: '\\\\"%s\\\\"' % value),
]
_KEY_QUOTES = ['', "'", '"', "\\'", '\\"', '\\\\"']
_SEPARATORS = [':', '=', ': ', ' = ', ' : ', ':\t', '=>']


@st.composite
def _key_value_items(draw):
    """A secret-named key, a separator and a value, written in one of the shapes of free text."""
    name, alphabet, write = draw(st.sampled_from(_VALUE_QUOTINGS))
    value = _HEAD + draw(alphabet) + _TAIL
    quote = draw(st.sampled_from(_KEY_QUOTES))
    separator = draw(st.sampled_from(_SEPARATORS))
    keys = _TEXT_KEYS + (_QUOTED_ONLY_KEYS if quote else [])
    if not quote and '=' not in separator:
        keys = _COLON_KEYS  # a bare word before a colon is a key when it reads as one (see below)
    key = draw(st.sampled_from(keys))
    shape = draw(st.sampled_from(['key', 'flag'] if not quote else ['key']))
    if shape == 'flag':
        return '%s%s%s%s' % (draw(st.sampled_from(['--', '-'])), key, draw(st.sampled_from([' ', '='])), write(value)), name
    return '%s%s%s%s%s' % (quote, key, quote, separator, write(value)), name


@st.composite
def _documents(draw):
    """A secret-named key inside a document printed whole: Python repr, JSON, JSON or repr quoted again, YAML;
    its value a text, a list or a dictionary; or a setting given as {name, value}."""
    value = _HEAD + draw(_ANY) + _TAIL
    key = draw(st.sampled_from(_TEXT_KEYS + _QUOTED_ONLY_KEYS))
    # A config drive dictionary is judged key by key: its user_data is secret, its meta_data is not.
    inner = 'user_data' if re.match(r'(?i)^config_?drive$', key) else 'inner'
    held = draw(st.sampled_from([value, [value, 'other'], {inner: value, 'n': 1}]))
    setting = draw(st.sampled_from(['AdminPassword', 'SetupToken']))
    document = draw(st.sampled_from([
        {'interface': 'deploy', 'args': {key: held, 'port': 623}},
        [{'name': 'BootMode', 'value': 'Uefi'}, {'name': setting, 'value': value}],
        # The value before the name, other keys between: a dictionary names its setting in any order.
        [{'value': 'Uefi', 'name': 'BootMode'}, {'value': value, 'attribute_type': 'String', 'name': setting}],
    ]))
    printed = draw(st.sampled_from([
        repr, json.dumps, lambda doc: json.dumps(json.dumps(doc)), lambda doc: json.dumps(repr(doc)),
        lambda doc: repr(repr(doc)), lambda doc: repr(json.dumps(doc)),
        lambda doc: json.dumps(doc, indent=2)]))
    return printed(document), value


_URL_PASSWORD_CHARS = st.text(st.sampled_from(list("abcXYZ019-._~!$&'()*+,;=:%@")), max_size=10)


@st.composite
def _urls(draw):
    password = _HEAD + draw(_URL_PASSWORD_CHARS) + _TAIL
    user = draw(st.sampled_from(['', 'admin', 'root.user']))
    # With a scheme, or without one: an authority (admin:pw@host, as a redfish_address may be written) or a
    # network-path reference (//admin:pw@host).
    scheme = draw(st.sampled_from(['http://', 'https://', 'redfish+https://', '', '//']))
    return '%s%s:%s@127.0.0.1:%d/redfish' % (scheme, user, password, draw(st.integers(1, 65535)))


@st.composite
def _command_lines(draw):
    """A BMC tool's command line with a secret short option among others, written as a line or as an argument list."""
    command, letters = draw(st.sampled_from([
        ('ipmitool', 'Pky'), ('/usr/bin/ipmitool', 'Pky'), ('ipmipower', 'pk'), ('ipmi-sensors', 'pk'), ('bmc-info', 'pk')]))
    others = draw(st.lists(st.sampled_from(['-I', 'lanplus', '-H', '127.0.0.1', '-U', 'admin', '-L', 'ADMINISTRATOR',
                                            '-E', '-v', 'power', 'status', '-f', '/tmp/pw']), max_size=4))
    value = _HEAD + draw(_BARE) + _TAIL
    arguments = [command] + others + ['-' + draw(st.sampled_from(letters)), value] + others
    return draw(st.sampled_from([' '.join, repr, json.dumps]))(arguments)


def _assert_masked(text, before):
    masked = secrets.masked_text(text)
    assert _HEAD not in masked and _TAIL not in masked, (text, masked)
    assert masked.startswith(before), (text, masked)  # what comes before the secret is left as it was
    assert secrets.masked_text(masked) == masked  # masking twice changes nothing more
    assert secrets.masked({'last_error': text})['last_error'] == masked


@settings(max_examples=600, deadline=None)
@given(before=_PROSE, item=_key_value_items(), after=_PROSE)
def test_no_value_of_a_secret_named_key_survives_in_free_text_whatever_its_shape(before, item, after):
    text, _quoting = item
    _assert_masked('%s %s %s' % (before, text, after), before + ' ')


@settings(max_examples=300, deadline=None)
@given(before=_PROSE, document=_documents(), after=_PROSE)
def test_no_secret_survives_in_a_document_quoted_in_free_text(before, document, after):
    printed, _value = document
    # Prose that leaves a quote or a bracket open ("{value: 1'") holds the document in it, which is read as part of
    # what the prose opened: what comes before is then judged with it (masking too much only hides).
    opens = any(character in before for character in '\'"{[')
    _assert_masked('%s %s %s' % (before, printed, after), '' if opens else before + ' ')


@settings(max_examples=200, deadline=None)
@given(before=_PROSE, url=_urls(), after=_PROSE)
def test_no_password_of_a_url_survives(before, url, after):
    _assert_masked('%s %s %s' % (before, url, after), before + ' ')
    assert secrets.masked('see %s' % url) == secrets.masked_text('see %s' % url)


@settings(max_examples=200, deadline=None)
@given(before=_PROSE, line=_command_lines(), after=_PROSE)
def test_no_secret_short_option_of_a_bmc_tool_survives(before, line, after):
    _assert_masked('%s\n%s\n%s' % (before, line, after), before + '\n')


@settings(max_examples=500, deadline=None)
@given(text=st.one_of(_PROSE, st.text().filter(_no_secret_in)))
def test_a_text_without_a_secret_is_left_as_it_was(text):
    assert secrets.masked_text(text) == text
    assert secrets.masked(text) == text


@pytest.mark.parametrize('text, shown', [
    # The line of issue 27: an unquoted key, as a log line or a command echo writes it.
    ("Failed to power on node n1: command ipmi_password: 'x' returned 1",
     "Failed to power on node n1: command ipmi_password: '********' returned 1"),
    ('ipmi_password: x returned 1', 'ipmi_password: ******** returned 1'),
    ('ipmi_password = "a \\" b" then', 'ipmi_password = "********" then'),
    ('ipmitool --password hunter2 --user admin', 'ipmitool --password ******** --user admin'),
    ("ipmitool --password='hunter 2' -v", "ipmitool --password='********' -v"),
    ('keytool -storepass hunter2 -v', 'keytool -storepass ******** -v'),
    ('{"args": {\\"redfish_password\\": \\"a\\\\\\"b\\", \\"port\\": 1}}',
     '{"args": {\\"redfish_password\\": \\"********\\", \\"port\\": 1}}'),
    ("redfish_password: 'it''s' # YAML", "redfish_password: '********' # YAML"),
    ("token: {'id': 'abc', 'roles': [1, 2]} expired", 'token: ******** expired'),
    ("bios [{'name': 'AdminPassword', 'value': 'pw1'}, {'name': 'BootMode', 'value': 'Uefi'}]",
     "bios [{'name': 'AdminPassword', 'value': '********'}, {'name': 'BootMode', 'value': 'Uefi'}]"),
    ('X-Auth-Token: gAAAAB1 sent', 'X-Auth-Token: ******** sent'),
    ("'BMC Password': 'x y'", "'BMC Password': '********'"),
    ('http://admin:p@ss@127.0.0.1:9/x and http://:tok@127.0.0.1/',
     'http://admin:********@127.0.0.1:9/x and http://:********@127.0.0.1/'),
    ("redfish_address 'admin:p@ss@10.0.0.5:443' and //root:tok@10.0.0.6/redfish/v1",
     "redfish_address 'admin:********@10.0.0.5:443' and //root:********@10.0.0.6/redfish/v1"),
    ('an unended "password": "abc', 'an unended "password": "********'),
    ('{"config_drive": {"meta_data": {"hostname": "n7"}, "user_data": "#cloud-config"}}',
     '{"config_drive": {"meta_data": {"hostname": "n7"}, "user_data": "********"}}'),
    # A setting's value before its name (a clean step written so, quoted back in last_error), keys between.
    ("step: {'settings': [{'value': 'pw1', 'name': 'AdminPassword'}, {'value': 'Uefi', 'name': 'BootMode'}]}",
     "step: {'settings': [{'value': '********', 'name': 'AdminPassword'}, {'value': 'Uefi', 'name': 'BootMode'}]}"),
    ('{"value": "pw1", "read_only": false, "name": "SetupPwd"}', '{"value": "********", "read_only": false, "name": "SetupPwd"}'),
    ("{name: AdminPassword, value: pw1} and name: AdminPassword, value: pw2",
     "{name: AdminPassword, value: ********} and name: AdminPassword, value: ********"),
    ("{value: pw1, name: AdminPassword}", "{value: ********, name: AdminPassword}"),
    # A dictionary is judged by its own keys, not those of a dictionary nested in it (nor of text after an unclosed {).
    ("{value: 1 [{'name': 'BootMode', 'value': 'Uefi'}, {'name': 'AdminPassword', 'value': 'pw1'}]",
     "{value: 1 [{'name': 'BootMode', 'value': 'Uefi'}, {'name': 'AdminPassword', 'value': '********'}]"),
    ("{'value': 'v1', 'args': {'name': 'AdminPassword'}}", "{'value': 'v1', 'args': {'name': 'AdminPassword'}}"),
    # Brackets inside a quoted text are not the document's: the name after them is still read.
    ("{'value': 'pw[1', 'note': 'a}b', 'name': 'AdminPassword'}", "{'value': '********', 'note': 'a}b', 'name': 'AdminPassword'}"),
    # Its registry's type, or the secret path an inspection rule's action sets.
    ("{'name': 'BootPin', 'attribute_type': 'Password', 'value': '4242'}",
     "{'name': 'BootPin', 'attribute_type': 'Password', 'value': '********'}"),
    ("{'args': {'value': 'pw1', 'path': '/driver_info/ipmi_password'}}",
     "{'args': {'value': '********', 'path': '/driver_info/ipmi_password'}}"),
    ("snmp_community=pub1 ipmi_kg: 'k1'", "snmp_community=******** ipmi_kg: '********'"),
    # A BMC tool's command line, as Ironic's ipmitool driver quotes it (-y: the Kg key in hex), or as an argument list.
    ('Command: ipmitool -I lanplus -H 127.0.0.1 -L ADMINISTRATOR -U admin -y 0102abcd -f /tmp/pw sol activate',
     'Command: ipmitool -I lanplus -H 127.0.0.1 -L ADMINISTRATOR -U admin -y ******** -f /tmp/pw sol activate'),
    ('ipmitool -I lanplus -H 127.0.0.1 -U admin -P s3cret -k kg1 chassis power status',
     'ipmitool -I lanplus -H 127.0.0.1 -U admin -P ******** -k ******** chassis power status'),
    ("['ipmitool', '-I', 'lanplus', '-P', 's3cret', '-U', 'admin'] and [\"ipmitool\", \"--password\", \"pw2\"]",
     "['ipmitool', '-I', 'lanplus', '-P', '********', '-U', 'admin'] and [\"ipmitool\", \"--password\", \"********\"]"),
    ('/usr/sbin/ipmipower -h 10.0.0.5 -u admin -p s3cret -k kg1 --stat; ipmi-sensors --k-g=kg2',
     '/usr/sbin/ipmipower -h 10.0.0.5 -u admin -p ******** -k ******** --stat; ipmi-sensors --k-g=********'),
    # What Ironic 39's ipmitool driver really writes when ipmitool fails (tests/integration/test_ipmi.py, against the
    # IPMI BMC emulator): its log quotes the command, -p the port, -y the Kg key, -f the file of the password; the API
    # (last_error, history, an error answer) names only the command, and is left as it is.
    ('IPMI Error while attempting "ipmitool -I lanplus -H 127.0.0.1 -L ADMINISTRATOR -p 49193 -U admin -y 0f1e2d3c4b5a '
     '-R 1 -N 1 -f /tmp/tmp8quhrit4 power status" for node af83e8df. Error: Unexpected error while running command.\n'
     "Command: ipmitool -I lanplus -H 127.0.0.1 -L ADMINISTRATOR -p 49193 -U admin -y 0f1e2d3c4b5a -R 1 -N 1 -f "
     "/tmp/tmp8quhrit4 power status\nExit code: 1\nStdout: ''\nStderr: 'Error: Unable to establish IPMI v2 / RMCP+ "
     "session\\n'",
     'IPMI Error while attempting "ipmitool -I lanplus -H 127.0.0.1 -L ADMINISTRATOR -p 49193 -U admin -y ******** '
     '-R 1 -N 1 -f /tmp/tmp8quhrit4 power status" for node af83e8df. Error: Unexpected error while running command.\n'
     "Command: ipmitool -I lanplus -H 127.0.0.1 -L ADMINISTRATOR -p 49193 -U admin -y ******** -R 1 -N 1 -f "
     "/tmp/tmp8quhrit4 power status\nExit code: 1\nStdout: ''\nStderr: 'Error: Unable to establish IPMI v2 / RMCP+ "
     "session\\n'"),
    ('Failed to get power state for node af83e8df. Error: IPMI call failed: power status.',
     'Failed to get power state for node af83e8df. Error: IPMI call failed: power status.'),
    ("Failed to change power state to 'power on' by 'rebooting': IPMI call failed: chassis bootparam get 5.",
     "Failed to change power state to 'power on' by 'rebooting': IPMI call failed: chassis bootparam get 5."),
    # getopt takes a short option's value attached to its letter too.
    ("ipmitool -I lanplus -U admin -Ps3cret -y0102 -v power status; ['ipmitool', '-kkg1']; ipmi-power -pp4 --on",
     "ipmitool -I lanplus -U admin -P******** -y******** -v power status; ['ipmitool', '-k********']; "
     "ipmi-power -p******** --on"),
    # An HTTP authorization: its scheme and credentials are one value.
    ('Authorization: Bearer abc.def sent', 'Authorization: ******** sent'),
    ('Proxy-Authorization: Basic dXNlcjpwdw==', 'Proxy-Authorization: ********'),
    ("{'X-Auth-Token': 'x', 'Authorization': 'Bearer y.z'} {Authorization: Negotiate YII=, Accept: json}",
     "{'X-Auth-Token': '********', 'Authorization': '********'} {Authorization: ********, Accept: json}"),
    # A Digest authorization's response is a hash of the password: its parameters are masked to the end of the line.
    ('Authorization: Digest username="admin", realm="BMC", nonce="n1", uri="/redfish/v1", response="6629fae4"\n'
     'HTTP 401', 'Authorization: ********\nHTTP 401'),
    # An XML body quoted back (Redfish, WS-Man).
    ('<Password>x y</Password><password>p</password><wsman:UserPassword>p&amp;w</wsman:UserPassword><UserName>u</UserName>',
     '<Password>********</Password><password>********</password><wsman:UserPassword>********</wsman:UserPassword>'
     '<UserName>u</UserName>'),
    # A signed URL: its signature, credential and token masked, the rest of it readable.
    ('image http://127.0.0.1:8080/v1/AUTH_a/c/o?temp_url_sig=9f8e&temp_url_expires=1700000000 unreachable',
     'image http://127.0.0.1:8080/v1/AUTH_a/c/o?temp_url_sig=********&temp_url_expires=1700000000 unreachable'),
    ('https://b.s3.example.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA%2F2024&X-Amz-Expires=3600'
     '&X-Amz-Security-Token=FQo&X-Amz-Signature=ab12',
     'https://b.s3.example.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=********&X-Amz-Expires=3600'
     '&X-Amz-Security-Token=********&X-Amz-Signature=********'),
    ('https://b.s3.example.com/k?AWSAccessKeyId=AKIA&Expires=1700000000&Signature=ab%2B12',
     'https://b.s3.example.com/k?AWSAccessKeyId=********&Expires=1700000000&Signature=********'),
    # A quoted phrase that holds a key and its value is read inside, though a separator follows it.
    ("' OS_PASSWORD:pw1 ':Failed to", "' OS_PASSWORD:******** ':Failed to"),
    ('"password=pw2": y', '"password=********": y'),
])
def test_each_shape_of_a_secret_in_free_text_is_masked(text, shown):
    assert secrets.masked_text(text) == shown
    assert secrets.masked_text(shown) == shown


@pytest.mark.parametrize('text', [
    # This collection's own messages: a node's label or a field path before prose is no key, whatever its name.
    "node rack-secrets-01: Ironic could not 'power on' it; power state is 'unknown'.",
    "node keystone-7: 'deploy' from 'manageable' ended in 'clean failed'",
    'bios_settings.AdminPassword: the setting is read-only; remove it from bios_settings.',
    "driver_info key 'ipmi_password' must be a string, got ******** (int)",
    'the password is wrong; the token expired: log in again',
])
def test_a_label_a_field_path_or_prose_naming_a_secret_is_left_as_it_was(text):
    assert secrets.masked_text(text) == text


def test_a_short_option_is_secret_only_on_the_line_of_a_bmc_tool_that_reads_a_secret_from_it():
    # ipmitool's -p is a port and -E takes no value; another command's -P or -p (scp, ssh) is a port; bmc-watchdog's -p
    # is a timer: only the secret options of the command whose line it is.
    text = ('ipmitool -I lanplus -p 623 -U admin -E -P pw1 power status\nscp -P 2222 a b\nssh -p 22 host\n'
            'bmc-watchdog -p 3 -s\nscp -P2222 a b\nipmitool -p623 -Lx -Uadmin')
    assert secrets.masked_text(text) == text.replace('pw1', MASK)


def test_the_secrets_of_a_signed_url_are_masked_in_every_text_and_scrubbed_from_the_arguments():
    # instance_info's image_source is no free text: a URL's secrets are masked in every value, as its password is.
    url = 'http://127.0.0.1:8080/v1/AUTH_a/c/o.img?temp_url_sig=9f8e&temp_url_expires=1700000000&filename=o.img'
    shown = url.replace('9f8e', MASK)
    node = {'instance_info': {'image_source': url, 'image_checksum': 'c'}, 'clean_step': {'args': {'url': url}}}
    assert secrets.masked(node) == {'instance_info': {'image_source': shown, 'image_checksum': 'c'},
                                    'clean_step': {'args': {'url': shown}}}
    assert secrets.no_log_values({'instance_info': {'image_source': url}}) == {'9f8e'}


# -- the rules other files ask for ------------------------------------------------------------------------------

def test_a_key_ironic_never_shows_back_is_a_secret_named_key_of_driver_info_or_instance_info_or_one_it_masks():
    assert secrets.is_secret_key('driver_info', 'redfish_password')
    assert secrets.is_secret_key('instance_info', 'image_pull_secret', 'x')
    assert secrets.is_secret_key('driver_info', 'vendor_opaque', secrets.IRONIC_MASK)
    assert not secrets.is_secret_key('driver_info', 'redfish_address', 'http://127.0.0.1:8000')
    assert not secrets.is_secret_key('extra', 'api_secret', 'shown')  # Ironic shows extra as it was given


@pytest.mark.parametrize('path, secret', [
    ([0, 'driver_info', 'ipmi_password'], True),
    ([0, 'driver_info', 'ipmi_password', 0], True),
    ([2, 'extra', 'vendor', 'api_secret'], True),
    ([0, 'bios_settings', 'SetupPwd'], True),
    ([0, 'driver_info', 'ipmi_port'], False),
    ([0, 'name'], False),
    ([], False),
])
def test_a_value_under_a_secret_named_key_anywhere_on_its_path_is_secret(path, secret):
    assert secrets.is_secret_path(path) == secret


def test_a_setting_is_shown_and_quoted_masked_when_its_name_or_its_registry_says_so():
    assert secrets.shown_value('AdminPassword', 'pw') == MASK
    assert secrets.shown_value('Label', 'pw', {'attribute_type': 'Password'}) == MASK
    assert secrets.shown_value('AdminPassword', None) is None
    assert secrets.shown_value('BootMode', 'Uefi') == 'Uefi'
    assert secrets.quoted_value('ipmi_password', 5) == MASK
    assert secrets.quoted_value('ipmi_port', 'six') == "'six'"


def test_a_setting_whose_registry_says_password_has_a_secret_value_whatever_its_name():
    # Ironic's BIOS settings with ?detail=true carry their registry's attributes in each setting.
    settings = [{'name': 'BootPin', 'value': '4242', 'attribute_type': 'Password', 'read_only': False},
                {'name': 'BootMode', 'value': 'Uefi', 'attribute_type': 'Enumeration'}]
    assert secrets.masked(settings) == [
        {'name': 'BootPin', 'value': MASK, 'attribute_type': 'Password', 'read_only': False},
        {'name': 'BootMode', 'value': 'Uefi', 'attribute_type': 'Enumeration'}]


@pytest.mark.parametrize('text', [
    'BMC rotated, old password=Zq-old-1; ticket OPS-1', 'image at http://admin:Zq-old-1@127.0.0.1:9/a.img',
    "ipmitool -P Zq-old-1 chassis status"])
def test_a_reason_that_holds_a_secret_is_refused_naming_the_field_never_the_value(text):
    error = secrets.stored_text_error('maintenance_reason', text)
    assert error.startswith('maintenance_reason holds what reads as a secret') and 'Zq-old-1' not in error
    assert 'Ironic stores maintenance_reason as typed' in error


@pytest.mark.parametrize('text', [None, '', 'Replacing disk 2, ticket OPS-1234', 'password rotation due, see OPS-9'])
def test_a_reason_without_a_secret_is_accepted(text):
    assert secrets.stored_text_error('maintenance_reason', text) is None


# scrubbed: Ansible's remove_values in one pass. Compared with Ansible's own on generated results, with secrets that
# are substrings of each other and of other texts. No secret holds '*': the mask is made of it, and Ansible's
# replacements one after the other could then make a secret appear where none was, which neither function hides.
SCRUB_SEEDS = range(40)


def _random_text(rng, alphabet, secrets_list, size):
    """A text of random pieces: letters of alphabet, whole secrets, and parts of secrets."""
    pieces = []
    for _index in range(rng.randint(0, size)):
        choice = rng.random()
        if choice < 0.3 and secrets_list:
            pieces.append(rng.choice(secrets_list))
        elif choice < 0.45 and secrets_list:
            secret = rng.choice(secrets_list)
            start = rng.randint(0, len(secret) - 1)
            pieces.append(secret[start:rng.randint(start + 1, len(secret))])
        else:
            pieces.append(''.join(rng.choice(alphabet) for _index in range(rng.randint(1, 6))))
    return ''.join(pieces)


def _random_secrets(rng, alphabet):
    """Secrets of several lengths, some of them substrings (prefix, suffix, middle) of others, some numbers."""
    result = set()
    for _index in range(rng.randint(1, 12)):
        result.add(''.join(rng.choice(alphabet) for _index in range(rng.randint(1, 9))))
    for secret in sorted(result):  # in a set's order, the draws would depend on PYTHONHASHSEED
        if len(secret) > 2 and rng.random() < 0.5:
            start = rng.randint(0, len(secret) - 2)
            result.add(secret[start:rng.randint(start + 1, len(secret))])
    result.add(str(rng.randint(10, 999)))
    return result


def _random_value(rng, alphabet, secrets_list, depth=0):
    kind = rng.random() if depth < 4 else rng.random() * 0.55
    if kind < 0.35:
        return _random_text(rng, alphabet, secrets_list, 6)
    if kind < 0.40:
        return _random_text(rng, alphabet, secrets_list, 4).encode('utf-8')
    if kind < 0.45:
        return rng.choice([rng.randint(-10 ** 6, 10 ** 6), rng.random() * 1000, True, False, None])
    if kind < 0.55:
        return rng.choice(secrets_list)
    if kind < 0.75:
        return dict((_random_text(rng, alphabet, secrets_list, 2),
                     _random_value(rng, alphabet, secrets_list, depth + 1)) for _index in range(rng.randint(0, 5)))
    if kind < 0.90:
        return [_random_value(rng, alphabet, secrets_list, depth + 1) for _index in range(rng.randint(0, 5))]
    if kind < 0.95:
        return tuple(_random_value(rng, alphabet, secrets_list, depth + 1) for _index in range(rng.randint(0, 3)))
    return set(_random_text(rng, alphabet, secrets_list, 3) for _index in range(rng.randint(0, 3)))


def _occurrences(text, no_log_strings):
    return [(start, start + len(secret)) for secret in no_log_strings
            for start in range(len(text)) if text.startswith(secret, start)]


def _overlap(text, no_log_strings):
    """Whether two occurrences of secrets in text overlap without one holding the other: where the order in which
    secrets are replaced decides what is masked."""
    found = _occurrences(text, no_log_strings)
    return any(a_start < b_start < a_end < b_end for a_start, a_end in found for b_start, b_end in found)


def _texts_of(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from _texts_of(item)
    elif isinstance(value, (list, tuple, set)):
        for item in value:
            yield from _texts_of(item)
    elif isinstance(value, bytes):
        yield value.decode('utf-8', 'surrogateescape')
    elif isinstance(value, str):
        yield value


def _leaves_no_secret(value, no_log_strings):
    return not any(secret in text for text in _texts_of(value) if text != secrets.NO_LOG_PLACEHOLDER
                   for secret in no_log_strings)


@pytest.mark.parametrize('alphabet', ['abcdefghij0123456789-', 'ab1', 'xyz\u00e9\\"\' {}:,\n'])
@pytest.mark.parametrize('seed', SCRUB_SEEDS)
def test_scrubbed_is_ansibles_remove_values_and_leaves_no_secret(seed, alphabet):
    rng = random.Random('%s-%s' % (seed, alphabet))
    no_log_strings = _random_secrets(rng, alphabet)
    secrets_list = sorted(no_log_strings)
    value = {'nodes': [_random_value(rng, alphabet, secrets_list) for _index in range(8)], 'changed': True,
             'msg': _random_text(rng, alphabet, secrets_list, 20), 'count': int(secrets_list[0][:3].isdigit())}
    ours = secrets.scrubbed(value, no_log_strings)
    # Text by text: the same as Ansible's, but where occurrences of two secrets overlap (the order in which the
    # secrets are replaced decides there, and Ansible's order among secrets of one length is its set's).
    same = 0
    overlapping = []
    for text in _texts_of(value):
        mine, theirs = secrets.scrubbed(text, no_log_strings), remove_values(text, no_log_strings)
        if _overlap(text, no_log_strings):
            overlapping.append(text)
        else:
            assert mine == theirs, (text, mine, theirs)
            same += mine != text
        assert _leaves_no_secret(mine, no_log_strings), (text, mine)
    assert same > 0  # not vacuous: texts that held secrets were compared
    if not overlapping:
        assert ours == remove_values(value, no_log_strings)
    assert _leaves_no_secret(ours, no_log_strings)


def test_scrubbed_keeps_what_ansible_keeps_and_replaces_numbers_and_bytes_as_it_does():
    value = {'pw': 'pw', 'xpwx': 'a pw, then pw', 'n': 1234, 'f': 12.5, 'b': b'my pw', 'exact': b'pw', 't': True,
             'none': None, 'tuple': ('pw', 'ok'), 'set': {'pw', 'ok'}, 'date': datetime.date(2026, 11, 28),
             'nested': [{'deep': ['x pw x', 7]}]}
    no_log_strings = {'pw', '23', '2.5'}
    assert secrets.scrubbed(value, no_log_strings) == remove_values(value, no_log_strings) == {
        'pw': secrets.NO_LOG_PLACEHOLDER, 'xpwx': 'a ********, then ********', 'n': secrets.NO_LOG_PLACEHOLDER,
        'f': secrets.NO_LOG_PLACEHOLDER, 'b': b'my ********', 'exact': secrets.NO_LOG_PLACEHOLDER, 't': True,
        'none': None, 'tuple': [secrets.NO_LOG_PLACEHOLDER, 'ok'], 'set': {secrets.NO_LOG_PLACEHOLDER, 'ok'},
        'date': datetime.date(2026, 11, 28), 'nested': [{'deep': ['x ******** x', 7]}]}
    # The longest secret first: a secret inside another is not masked apart.
    assert secrets.scrubbed('a-secret-b', {'secret', 'a-secret'}) == '********-b'
    # Dictionary keys stay, as Ansible keeps them.
    assert secrets.scrubbed({'pw': 1}, {'pw'}) == {'pw': 1}


def test_scrubbed_replaces_the_numbers_of_plain_data_that_hold_a_secret():
    value = {'n': 1234, 'texts': ['a 23 b', 5, 230, 2.3, -23.5, 1e+23, True], 'none': None}
    hidden = secrets.NO_LOG_PLACEHOLDER
    assert secrets.scrubbed(value, {'23'}) == remove_values(value, {'23'}) == {
        'n': hidden, 'none': None, 'texts': ['a ******** b', 5, hidden, 2.3, hidden, hidden, True]}
    assert secrets.scrubbed({'n': 1234, 'text': 'a pw'}, {'pw'}) == {'n': 1234, 'text': 'a ********'}


def test_scrubbed_copies_only_what_it_must():
    plain = {'nodes': [{'name': 'n1', 'cpus': 8}], 'changed': False}
    assert secrets.scrubbed(plain, {'secret'}) is plain  # nothing to replace: no copy
    echo = {'nodes': [{'name': 'n1', 'cpus': 8}], 'invocation': {'args': [{'pw': 'secret'}, {'pw': 'other'}]}}
    shown = secrets.scrubbed(echo, {'secret'})
    assert shown == {'nodes': [{'name': 'n1', 'cpus': 8}],
                     'invocation': {'args': [{'pw': secrets.NO_LOG_PLACEHOLDER}, {'pw': 'other'}]}}
    assert echo['invocation']['args'][0]['pw'] == 'secret'  # the value itself is never changed
    assert shown['nodes'] is echo['nodes'] and shown['invocation']['args'][1] is echo['invocation']['args'][1]
    assert secrets.scrubbed(plain, set()) == plain and secrets.scrubbed(plain, set()) is not plain  # as Ansible's
    assert secrets.scrubbed(('a',), {'secret'}) == ['a']


def test_scrubbed_hands_a_value_of_a_type_it_does_not_know_to_other():
    class Summary(object):
        pass

    summary = Summary()
    assert secrets.scrubbed({'warnings': [summary]}, {'pw'}, lambda value: ('other', value)) == {
        'warnings': [('other', summary)]}
    with pytest.raises(TypeError, match='Value of unknown type'):
        secrets.scrubbed([summary], {'pw'})


def test_scrubbed_finds_secrets_of_every_length_among_thousands_in_texts_that_hold_them_and_their_prefixes():
    rng = random.Random(7)
    passwords = ['%s-%d' % (''.join(rng.choice('abcdef0123') for _index in range(rng.randint(4, 20))), index)
                 for index in range(3000)]
    no_log_strings = set(passwords)
    texts = ['node %d: %s and %s' % (index, password, password[:-1]) for index, password in enumerate(passwords)]
    shown = secrets.scrubbed(texts, no_log_strings)
    assert shown[:100] == remove_values(texts[:100], no_log_strings)
    assert shown[-1] == remove_values(texts[-1], no_log_strings) == 'node 2999: ******** and %s' % passwords[-1][:-1]


@pytest.mark.parametrize('info, recorded', [
    ({'agent_secret_token': 'agent-token-4f1b9c2e77d0', 'agent_last_heartbeat': '2026-11-28T22:04:45.387800',
      'agent_url': 'http://127.0.0.1:9999/'}, '2026-11-28T22:04:45.387800'),
    ({'agent_secret_token': 'agent-token-4f1b9c2e77d0'}, None),  # no heartbeat recorded: none, never a guess
    ({'agent_last_heartbeat': None}, None),
    ({'content': '** Redacted - Requires baremetal:node:get:driver_internal_info permission. **'}, None),
    (None, None),
])
def test_only_the_agents_last_heartbeat_is_taken_from_driver_internal_info(info, recorded):
    assert secrets.recorded_heartbeat(info) == recorded
