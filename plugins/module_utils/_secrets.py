# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What is secret, and how it is hidden: the one rule of the collection.

A value is secret when its key is named like a secret (``redfish_password``, ``ipmi_hex_kg_key``,
``SetupToken``, ``user_data``), when it is the value of a setting whose name is (``{name: AdminPwd,
value: ...}``), or when a BIOS registry says its type is Password. Every node view, every text that
quotes Ironic (``last_error``, ``maintenance_reason``, error messages), every diff and every module
result leaves the collection through this module; every secret an argument holds goes to Ansible's
``no_log_values``. A new secret-bearing name is one change to ``_SECRET_NAME``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import json
import re
from collections.abc import Mapping

MASK = '********'

# What Ironic answers instead of a secret value (oslo strutils.mask_dict_password).
IRONIC_MASK = '******'

# Key names that hold secrets: every name that oslo.utils strutils.mask_dict_password (used by the Ironic
# API) masks, plus any name containing "key", such as ipmi_hex_kg_key that Ironic leaves visible, and the
# config drive and its user_data and vendor_data, which may carry passwords. Masking too much only hides a
# value; too little leaks one.
_SECRET_NAME = re.compile(
    r'pass|pswd|pwd|secret|token|credential|cookie|config_?drive|fsid|hashsuffix'
    r'|kek|key|user_data|vendor_data',
    re.IGNORECASE)

# Node fields where Ironic writes free text that may quote input; results carry Ironic's words in these too.
# event: a node history event's text, which quotes the errors it records; inventory_note: why Ironic has no inventory.
FREE_TEXT_FIELDS = ('last_error', 'maintenance_reason', 'error', 'msg', 'event', 'inventory_note')

# Shown by their size only: a whole config drive is neither read nor hashed.
_SIZED_NAME = re.compile(r'config_?drive|user_data', re.IGNORECASE)

# A config drive given as a dictionary is judged key by key: its meta_data and network_data (host name,
# addresses) are not secret, its user_data is.
_CONFIG_DRIVE_NAME = re.compile(r'^config_?drive$', re.IGNORECASE)


def is_secret_name(key):
    """Whether the value under this key (a driver_info key, a BIOS setting, any option) must never be shown."""
    return _is_secret_text(str(key))


@functools.lru_cache(maxsize=4096)  # a result of a thousand nodes asks about the same few dozen keys
def _is_secret_text(name):
    return bool(_SECRET_NAME.search(name))


def is_secret_setting(name, registry_entry=None):
    """A BIOS setting whose value must never be shown: its name says so, or the node's registry says Password."""
    return is_secret_name(name) or (registry_entry or {}).get('attribute_type') == 'Password'


def _is_secret_pair(record):
    """A setting given as {name: AdminPassword, value: ...} (BIOS settings, for example), or one that carries its
    registry's attributes and they say Password: its value is secret."""
    return isinstance(record, Mapping) and 'value' in record and is_secret_setting(record.get('name'), record)


_SCALARS = frozenset((bool, int, float))


def masked(value):
    """A copy of value (a dictionary, a list, a text) with every secret in it masked, at any depth.

    A secret key's value becomes MASK (a config drive or its user_data, MASK and its size); None values are
    kept: they ask to remove a key and reveal nothing. Free text (FREE_TEXT_FIELDS) has the values of the
    secret-named keys it quotes masked; every text, the password of a URL (http://user:password@host).
    """
    kind = type(value)
    if value is None or kind in _SCALARS:  # most of a result: told apart first, as cheaply as can be
        return value
    if kind is str:
        return _masked_url_passwords(value)
    if kind is dict or isinstance(value, Mapping):
        secret_pair = _is_secret_pair(value)
        copy = {}
        for key, item in value.items():
            if item is not None and (is_secret_name(key) or secret_pair and key == 'value'):
                copy[key] = _masked_value(key, item)
            elif key in FREE_TEXT_FIELDS:
                copy[key] = masked_text(item) if isinstance(item, str) else masked(item)
            else:
                copy[key] = masked(item)
        return copy
    if isinstance(value, (list, tuple)):
        return [masked(item) for item in value]
    if isinstance(value, str):
        return _masked_url_passwords(value)
    return value


def _masked_value(key, value):
    """A secret key's value: its size for a config drive; else MASK for each value in it, keeping its shape."""
    if isinstance(value, str) and value.startswith(MASK):
        return value  # masked already: a config drive's size stays the size of the drive
    if _SIZED_NAME.search(str(key)):
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
        return '%s (%d bytes)' % (MASK, len(text.encode('utf-8')))
    if isinstance(value, Mapping):
        return dict((item_key, None if item is None else _masked_value(None, item)) for item_key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [None if item is None else _masked_value(None, item) for item in value]
    return MASK


# A key and its quoted value inside Ironic's free text, as a Python or JSON dictionary prints it:
# "node does not support this clean step: {'interface': 'deploy', 'args': {'admin_password': 'x'}}".
_QUOTED_ITEM = re.compile(
    r'''(?P<key_quote>['"])(?P<key>[^'"\n]{1,100})(?P=key_quote)\s*:\s*'''
    r'''(?P<quote>['"])(?P<value>(?:\\.|(?!(?P=quote)).)*)(?P=quote)''')
# key=value, as a command line or a URL query prints it.
_ASSIGNED_ITEM = re.compile(r'(?P<key>\b[\w-]+)=(?P<value>[^\s&,;]+)')
# The password of a URL's user information: http://admin:password@127.0.0.1:8000 (a BMC or an image server).
_URL_PASSWORD = re.compile(r'(?P<prefix>\b[a-zA-Z][\w+.-]*://[^:/@\s]+:)(?P<password>[^@/\s]+)@')


def masked_text(text):
    """Free text (Ironic's last_error, maintenance_reason, an error message) with the values of secret-named keys
    masked.

    Ironic's errors quote the input they refuse, and last_error outlives the task that sent the secret, so a
    later task that never saw the secret cannot scrub it by value.
    """
    if not isinstance(text, str):
        return text

    def quoted(match):
        if not is_secret_name(match.group('key')):
            return match.group(0)
        return '%s%s%s: %s%s%s' % (match.group('key_quote'), match.group('key'), match.group('key_quote'),
                                   match.group('quote'), MASK, match.group('quote'))

    def assigned(match):
        if not is_secret_name(match.group('key')):
            return match.group(0)
        return '%s=%s' % (match.group('key'), MASK)

    return _masked_url_passwords(_ASSIGNED_ITEM.sub(assigned, _QUOTED_ITEM.sub(quoted, text)))


def _masked_url_passwords(text):
    if '@' not in text:
        return text
    return _URL_PASSWORD.sub(lambda match: '%s%s@' % (match.group('prefix'), MASK), text)


def public_node(node, fields):
    """The given fields of a node as they may leave the collection: secrets masked in every field.

    Ironic itself masks some driver_info secrets, but never those in extra, properties or vendor keys.
    """
    return masked(dict((field, node.get(field)) for field in fields))


def no_log_values(params, argument_spec=None):
    """Every secret value held in module arguments, for Ansible to scrub from all output (no_log_values).

    A top-level option counts by its name, unless its spec says no_log: false (update_secrets, client_key);
    inside dictionaries and lists, every key counts by its name. A secret key gives all the values under it,
    except a config drive dictionary, whose keys count one by one. Besides each value, the escaped forms an
    error message may quote (JSON, Python repr) are returned. Works on raw arguments of any type.
    """
    specs = dict((alias, spec) for spec in (argument_spec or {}).values() for alias in spec.get('aliases') or ())
    specs.update(argument_spec or {})
    values = set()
    for name, value in (params or {}).items():
        spec = specs.get(name) or {}
        if spec.get('no_log') is False or name.startswith('_ansible_') or not is_secret_name(name):
            _collect_nested(value, values)
        else:
            _collect_secret(name, value, values)
    return values


def _collect_nested(value, values):
    if isinstance(value, Mapping):
        secret_pair = _is_secret_pair(value)
        for key, item in value.items():
            if is_secret_name(key) or secret_pair and key == 'value':
                _collect_secret(key, item, values)
            else:
                _collect_nested(item, values)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _collect_nested(item, values)


def _collect_secret(key, value, values):
    if isinstance(value, Mapping) and _CONFIG_DRIVE_NAME.match(str(key)):
        _collect_nested(value, values)
    elif isinstance(value, Mapping):
        for item in value.values():
            _collect_secret(None, item, values)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _collect_secret(None, item, values)
    elif isinstance(value, str) and value:
        values.add(value)
        # The forms an error message quotes: a JSON document, a Python repr of a dictionary.
        values.add(json.dumps(value)[1:-1])
        values.add(repr(value)[1:-1])
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        values.add(str(value))
