# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What is secret, and how it is hidden: the one rule of the collection.

A value is secret when its key is named like a secret (``redfish_password``, ``ipmi_hex_kg_key``,
``SetupToken``, ``user_data``), when it is the value of a setting whose name is (``{name: AdminPwd,
value: ...}``), or when a BIOS registry says its type is Password; Ironic shows back none of the secret keys of
IRONIC_MASKED_FIELDS. In free text, the value that follows a secret-named key is secret, whatever shape the
text gives it (masked_text), as is that of a short option a BMC tool reads a secret from (``ipmitool -P``); in
every text, the password of a URL and the secret-named parameters of its query (a signed URL). Every node view,
every text that quotes Ironic (``last_error``, ``maintenance_reason``, error messages), every diff and every module
result leaves the collection through this module; every secret an argument holds goes to Ansible's ``no_log_values``,
which Ansible removes from every text it outputs with this module's scrubbed (one pass over the texts, whatever the
number of secrets: task/module.py; how, common/scrub.py). No other file holds a rule of what is secret: a new
secret-bearing name is one change to ``_SECRET_NAME``. (How free text is read for keys and values, whatever its
shape, is common/free_text.py; it asks this module what is secret, and is loaded only at the first text that names a
secret: bench/README.md, "the deferrals kept".)
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import json
import re
from collections.abc import Mapping

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import scrub

MASK = '********'

# What Ansible's remove_values puts in place of a text that is a secret as a whole (scrubbed).
NO_LOG_PLACEHOLDER = scrub.NO_LOG_PLACEHOLDER

# What Ironic answers instead of a secret value (oslo strutils.mask_dict_password).
IRONIC_MASK = '******'

# Key names that hold secrets: every name that oslo.utils strutils.mask_dict_password (used by the Ironic
# API) masks, plus any name containing "key", such as ipmi_hex_kg_key that Ironic leaves visible, and the
# config drive and its user_data and vendor_data, which may carry passwords; an SNMP community (the snmp
# driver's snmp_community, snmp_community_read and snmp_community_write, which Ironic shows in clear) and an IPMI
# Kg key under any name (ipmi_kg, bmc_kg, ipmiKg, FreeIPMI's --k-g: kg as a word of its own, not the kg of pkg or
# background); an HTTP Authorization header (Proxy-Authorization too); the signature of a signed URL (Swift's
# temp_url_sig, S3's X-Amz-Signature or Signature), which opens its object to whoever holds the URL until it expires.
# Masking too much only hides a value; too little leaks one.
_SECRET_NAME = re.compile(
    r'pass|pswd|pwd|secret|token|credential|cookie|config_?drive|fsid|hashsuffix'
    r'|kek|key|user_data|vendor_data|community|authorization|signature|(?<![a-z])sig(?![a-z])'
    r'|(?<![a-z])k[-_]?g(?![a-z])|(?-i:(?<=[a-z])Kg(?![a-z]))',
    re.IGNORECASE)

# The short options a command reads a secret from: ipmitool(1)'s -P (password), -k (Kg key) and -y (Kg key in hex),
# as Ironic's ipmitool driver quotes its command lines (-y hex_kg_key); the -p (password) and -k (Kg key) of the
# FreeIPMI tools that reach a BMC. Another command's -p or -P may be a port (ssh, scp), and ipmitool's -p is one: a
# short option is judged on its command's line only. (-E, -K, -a, -Y read the environment or prompt: no value.)
_SECRET_SHORT_OPTIONS = (
    (re.compile(r'ipmitool'), 'Pky'),
    (re.compile(r'ipmi-[a-z-]+|ipmipower|ipmiconsole|ipmiseld|bmc-(?:info|device|config)'), 'pk'),
)
# Where a text may hold such a command: a text without one, nor a secret's name, is not read for keys.
_COMMAND = re.compile(r'ipmitool|ipmi-|ipmipower|ipmiconsole|ipmiseld|bmc-')

# The node fields whose secret-named keys Ironic shows masked (IRONIC_MASK): their values cannot be compared.
IRONIC_MASKED_FIELDS = ('driver_info', 'instance_info')

# Node fields where Ironic writes free text that may quote input; results carry Ironic's words in these too.
# event: a node history event's text, which quotes the errors it records; inventory_note: why Ironic has no inventory;
# retired_reason, protected_reason and description: an operator's words, as a maintenance_reason is.
FREE_TEXT_FIELDS = ('last_error', 'maintenance_reason', 'error', 'msg', 'event', 'inventory_note', 'retired_reason',
                    'protected_reason', 'description')

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


def is_secret_key(field, key, shown_value=None):
    """Whether a key of a node's dictionary field (driver_info...) holds a secret Ironic never shows back: a
    secret-named key of IRONIC_MASKED_FIELDS, or one whose value Ironic shows masked (shown_value), whatever its name."""
    return field in IRONIC_MASKED_FIELDS and (is_secret_name(key) or shown_value == IRONIC_MASK)


def is_secret_path(path):
    """Whether the value at path (the keys and list indexes from a document's root down to it) may be secret: a key
    on the way is named like a secret, as masked() judges a document."""
    return any(isinstance(part, str) and is_secret_name(part) for part in path)


def shown_value(name, value, registry_entry=None):
    """A setting's value as results show it: MASK when the setting is secret (is_secret_setting); None stays None."""
    return MASK if value is not None and is_secret_setting(name, registry_entry) else value


def quoted_value(name, value, registry_entry=None):
    """A setting's value as a message quotes it: MASK when the setting is secret, else its repr."""
    return MASK if is_secret_setting(name, registry_entry) else repr(value)


def _is_secret_pair(record):
    """A setting given as {name: AdminPassword, value: ...} (BIOS settings, for example), or one that carries its
    registry's attributes and they say Password, or a value set at a secret path ({path: driver_info/ipmi_password,
    value: ...}, as an inspection rule's action sets it): its value is secret."""
    return isinstance(record, Mapping) and 'value' in record and (
        is_secret_setting(record.get('name'), record) or is_secret_name(record.get('path') or ''))


_SCALARS = frozenset((bool, int, float))


def masked(value):
    """A copy of value (a dictionary, a list, a text) with every secret in it masked, at any depth.

    A secret key's value becomes MASK (a config drive or its user_data, MASK and its size); None values are
    kept: they ask to remove a key and reveal nothing. Free text (FREE_TEXT_FIELDS) has the values of the
    secret-named keys it quotes masked; every text, the password of a URL (http://user:password@host) and the
    secret-named parameters of its query (a signed URL's ?temp_url_sig=...).
    """
    return _masked(value, masked_text, _masked_url_secrets)


def masked_keys(value):
    """A copy of value with the values of its secret-named keys masked, at any depth, and its texts as they are:
    what compares with Ironic's copy of step arguments. Ironic masks the keys named like passwords there, but shows a
    URL whole, so a new signature of a signed URL (or a new password in a URL) is a change to write."""
    return _masked(value, _unchanged, _unchanged)


def _unchanged(text):
    return text


def _masked(value, free_text, text):
    """masked, with free_text(text) for the texts of FREE_TEXT_FIELDS and text(text) for the others."""
    kind = type(value)
    if value is None or kind in _SCALARS:  # most of a result: told apart first, as cheaply as can be
        return value
    if kind is str:
        return text(value)
    if kind is dict or isinstance(value, Mapping):
        secret_pair = _is_secret_pair(value)
        copy = {}
        for key, item in value.items():
            if item is not None and (is_secret_name(key) or secret_pair and key == 'value'):
                copy[key] = _masked_value(key, item)
            elif key in FREE_TEXT_FIELDS and isinstance(item, str):
                copy[key] = free_text(item)
            else:
                copy[key] = _masked(item, free_text, text)
        return copy
    if isinstance(value, (list, tuple)):
        return [_masked(item, free_text, text) for item in value]
    if isinstance(value, str):
        return text(value)
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


# The password of a URL's user information: http://admin:password@127.0.0.1:8000 (a BMC or an image server);
# up to the last @ before the host, as a URL parser reads http://admin:p@ss@host.
_URL_PASSWORD = re.compile(r'(?P<prefix>\b[a-zA-Z][\w+.-]*://[^:/@\s]*:)(?P<password>[^/\s"<>]+)@')
# The same without a scheme, where a text or a word of it begins: an authority (admin:password@10.0.0.5:443), as a
# redfish_address may be written (Ironic assumes https), or a network-path reference (//admin:password@host).
_AUTHORITY_PASSWORD = re.compile(
    r'''(?P<prefix>(?:^|(?<=[\s'"=(\[{,]))(?://)?[^:/@\s'"=(\[{,]*:)(?P<password>[^/\s"<>]+)@(?=[\w\[])''')
_PASSWORDS_OF_URLS = (_URL_PASSWORD, _AUTHORITY_PASSWORD)
# A secret-named parameter of a URL's query (a signed URL: ?temp_url_sig=...&temp_url_expires=..., X-Amz-Signature,
# X-Amz-Credential, X-Amz-Security-Token): its value, up to the next parameter; the rest of the URL stays readable.
_URL_QUERY_SECRET = re.compile(r'''(?P<prefix>[?&](?P<name>[\w.~%-]+)=)(?P<secret>[^&#\s'"<>\\]+)''')


def _secret_short_options(command):
    """The letters of the short options whose value is secret on a command's line ('' for a command unknown here)."""
    return next((letters for name, letters in _SECRET_SHORT_OPTIONS if name.fullmatch(command)), '')


def _ends_in_secret(word):
    """Whether a word ends in a secret's name (SetupToken, ipmi_password), as _SECRET_NAME reads it."""
    return any(match.end() == len(word) for match in _SECRET_NAME.finditer(word))


@functools.lru_cache(maxsize=None)
def _free_text():
    """The reader of free text, made at the first text that names a secret."""
    # Imported here: a module's start-up 13 ms less on a host for a task whose texts name no secret (bench/README.md).
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.free_text import FreeText
    return FreeText(is_secret_name, _ends_in_secret, _CONFIG_DRIVE_NAME.match, _secret_short_options, MASK)


def masked_text(text):
    """Free text (Ironic's last_error, maintenance_reason, an error message) with the values of secret-named keys
    masked, whatever shape the text gives them (a command line's secret short options too: ipmitool -P x), and the
    secrets of every URL.

    Ironic's errors quote the input they refuse, and last_error outlives the task that sent the secret, so a
    later task that never saw the secret cannot scrub it by value. Masking a text twice changes nothing more.
    """
    if not isinstance(text, str):
        return text
    if _names_secrets(text):
        text = _free_text().masked(text)
    return _masked_url_secrets(text)


def _names_secrets(text):
    """Whether free text may name a secret (a key named like one, a command that reads one from an option): only
    then is it read for keys (common/free_text.py)."""
    return _SECRET_NAME.search(text) or _COMMAND.search(text)


def _has_query(text):
    """Whether text may hold a URL's query parameters (?name=value, &name=value): a cheap test before the pattern."""
    return '=' in text and ('?' in text or '&' in text)


def _masked_url_secrets(text):
    if '@' in text:
        for pattern in _PASSWORDS_OF_URLS:
            text = pattern.sub(lambda match: '%s%s@' % (match.group('prefix'), MASK), text)
    if _has_query(text):
        text = _URL_QUERY_SECRET.sub(
            lambda match: match.group('prefix') + MASK if is_secret_name(match.group('name')) else match.group(), text)
    return text


# The one key the collection reads of a node's driver_internal_info: when its agent last heartbeated, as Ironic
# recorded it (an ISO 8601 UTC time). The rest is never kept: it holds the agent's token (agent_secret_token, which
# Ironic shows in clear to a caller allowed to see passwords, as on a noauth Ironic) and Ironic's internal state.
AGENT_HEARTBEAT_KEY = 'agent_last_heartbeat'


def recorded_heartbeat(driver_internal_info):
    """The time Ironic recorded the node's agent last heartbeated (its text, as Ironic wrote it), or None when it
    recorded none: all a node's driver_internal_info may give anything the collection shows."""
    info = driver_internal_info if isinstance(driver_internal_info, Mapping) else {}
    value = info.get(AGENT_HEARTBEAT_KEY)
    return value if isinstance(value, str) and value else None


def public_node(node, fields):
    """The given fields of a node as they may leave the collection: secrets masked in every field.

    Ironic itself masks some driver_info secrets, but never those in extra, properties or vendor keys.
    """
    return masked(dict((field, node.get(field)) for field in fields))


def no_log_values(params, argument_spec=None):
    """Every secret value held in module arguments, for Ansible to scrub from all output (no_log_values).

    A top-level option counts by its name, unless its spec says no_log: false (update_secrets, client_key);
    inside dictionaries and lists, every key counts by its name; in any text, what masked_text hides (the password
    of a URL, the value of a secret key the text names) is secret. A secret key gives all the values under it,
    except a config drive dictionary, whose keys count one by one. Besides each value, the escaped forms an
    error message may quote (JSON, Python repr) are returned. Works on raw arguments of any type.
    """
    specs = dict((alias, spec) for spec in (argument_spec or {}).values() for alias in spec.get('aliases') or ())
    specs.update(argument_spec or {})
    values = set()
    _collect_sensitive_rule(params or {}, values)
    for name, value in (params or {}).items():
        spec = specs.get(name) or {}
        if spec.get('no_log') is False or name.startswith('_ansible_') or not is_secret_name(name):
            _collect_nested(value, values)
        else:
            _collect_secret(name, value, values)
    return values


# An inspection rule declared sensitive: Ironic hides its conditions and actions, and so does the collection. The texts
# in their arguments are secret; not numbers and texts shorter than this, which Ansible would mask in every output
# text that holds them (a '2' in every UUID).
SENSITIVE_RULE_FIELDS = ('conditions', 'actions')
SENSITIVE_RULE_MIN_TEXT = 4


def _collect_sensitive_rule(mapping, values):
    if mapping.get('sensitive') is not True:
        return
    texts = set()
    for field in SENSITIVE_RULE_FIELDS:
        for item in mapping.get(field) or ():
            if isinstance(item, Mapping):
                _collect_secret(None, [item.get('args'), item.get('loop')], texts)
    values.update(text for text in texts if len(text) >= SENSITIVE_RULE_MIN_TEXT and not text.isdigit())


def _collect_nested(value, values):
    if isinstance(value, Mapping):
        _collect_sensitive_rule(value, values)
        secret_pair = _is_secret_pair(value)
        for key, item in value.items():
            if is_secret_name(key) or secret_pair and key == 'value':
                _collect_secret(key, item, values)
            else:
                _collect_nested(item, values)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _collect_nested(item, values)
    elif isinstance(value, str):
        # What masked_text hides in any text an option holds: a URL's secrets (an image's password or signature, a
        # BMC's password), the value of a secret key an operator wrote into a reason or a description (reason:
        # 'ipmi_password=x').
        for secret in text_secrets(value):
            _collect_secret(None, secret, values)


def text_secrets(text):
    """The secret values free text holds: what masked_text hides of it."""
    secrets = set()
    if _names_secrets(text):
        secrets.update(_free_text().values(text))
    if '@' in text:
        secrets.update(match.group('password') for pattern in _PASSWORDS_OF_URLS for match in pattern.finditer(text))
    if _has_query(text):
        secrets.update(match.group('secret') for match in _URL_QUERY_SECRET.finditer(text)
                       if is_secret_name(match.group('name')))
    return secrets


def stored_text_error(field, text):
    """The refusal of free text the collection would write into Ironic as typed (a maintenance, protected or retired
    reason) when it holds a secret, as text_secrets judges it; None when it holds none. It names the field, never the
    value.

    The task masks the secret in every output, but Ironic stores the text as given and shows it to anyone who can
    read the node (its API, baremetal node show, the node's history): refused, not warned about, since a warning
    comes once the secret is stored."""
    if not isinstance(text, str) or not text_secrets(text):
        return None
    return ('%s holds what reads as a secret (the value of a key named like one, such as password=..., or the '
            'password of a URL): Ironic stores %s as typed and shows it to anyone who can read the node. Remove the '
            'secret from %s (say where it is kept instead).' % (field, field, field))


# Values the task learns are secret while it runs, which no name in its arguments told apart: a declared BIOS setting
# whose registry says Password (BootPin). The module base hands them to Ansible (found_secrets), which scrubs them from
# every output, the echo of the arguments (-vvv) too. One task runs in one process: the set is the task's.
_FOUND = set()


def found_secret(value):
    """Record a value of the task's arguments that turned out to be secret (and the forms a message quotes it in)."""
    _collect_secret(None, value, _FOUND)


def found_secrets():
    """Every value found_secret recorded, for Ansible's no_log_values."""
    return set(_FOUND)


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


def scrubbed(value, no_log_strings, other=None):
    """value with every string of no_log_strings removed from every text in it, as Ansible's remove_values
    (ansible.module_utils.common.parameters) removes them, at a cost that grows with the size of the texts, not with
    texts x secrets: what Ansible scrubs no_log_values with, in every module of the collection (task/module.py).

    The contract is remove_values' (ansible-core 2.19 and later): a text (str or bytes) that is a secret as a whole
    becomes NO_LOG_PLACEHOLDER; else every occurrence of a secret in it becomes MASK, the longest secrets first; a
    number whose text holds a secret becomes NO_LOG_PLACEHOLDER; True, False, None, dates and times stay; dictionary
    keys stay, their values are scrubbed; lists and tuples become lists, sets sets, at any depth. A value of any
    other type is given to other(value), or is a TypeError. Where two occurrences of secrets overlap in a text
    (neither holding the other), the output may differ from Ansible's, which replaces one secret after the other
    in an order of its own among secrets of one length: both hide every secret there. Empty strings are no secret.
    Unlike remove_values, a value made of dictionaries, lists and scalars only is not copied but where a text in it
    is replaced: the dictionaries and lists on the way to it are. (How: common/scrub.py.)
    """
    return _finder(frozenset(no_log_strings)).scrubbed(value, other)


@functools.lru_cache(maxsize=2)  # Ansible scrubs each argument, the log line, then the result, with one set
def _finder(no_log_strings):
    return scrub.SecretFinder(no_log_strings, MASK)
