# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A named cloud's entry in clouds.yaml, found and read the way openstacksdk does (ironic/config.py reads the rest
of the settings). Loaded only by a task that names a cloud (cloud, or OS_CLOUD)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError

# Where openstacksdk looks for clouds.yaml after OS_CLIENT_CONFIG_FILE, in its order (Linux).
CONFIG_DIRS = (
    os.getcwd(),
    os.path.join(os.environ.get('XDG_CONFIG_HOME') or os.path.expanduser('~/.config'), 'openstack'),
    os.path.expanduser('~/.config/openstack'),
    os.path.join((os.environ.get('XDG_CONFIG_DIRS') or '/etc/xdg').split(':')[0], 'openstack'),
    '/etc/openstack',
)
CONFIG_SUFFIXES = ('.yaml', '.yml', '.json')


def _config_files():
    override = os.environ.get('OS_CLIENT_CONFIG_FILE')
    files = [override] if override else []
    files.extend(os.path.join(directory, 'clouds' + suffix) for directory in CONFIG_DIRS for suffix in CONFIG_SUFFIXES)
    return files


def _secure_file_exists():
    if os.environ.get('OS_CLIENT_SECURE_FILE'):
        return True
    return any(os.path.exists(os.path.join(directory, 'secure' + suffix))
               for directory in CONFIG_DIRS for suffix in CONFIG_SUFFIXES)


def _yaml_problem(exc):
    """Where and what PyYAML found wrong, without the snippet of the file its message quotes (it may hold a
    password)."""
    mark = getattr(exc, 'problem_mark', None)
    where = ' at line %d, column %d' % (mark.line + 1, mark.column + 1) if mark is not None else ''
    return '%s%s' % (getattr(exc, 'problem', None) or 'not valid YAML', where)


def _load_clouds_file():
    """(path, clouds) of the first clouds.yaml openstacksdk would read, (None, None) when none exists.

    Raises LookupError when only openstacksdk can read it (no PyYAML here).
    """
    for path in _config_files():
        if not os.path.exists(path):
            continue
        try:
            with open(path) as stream:
                if path.endswith('.json'):
                    data = json.load(stream)
                else:
                    try:
                        import yaml
                    except ImportError:
                        raise LookupError(path)
                    try:
                        data = yaml.safe_load(stream)
                    except yaml.YAMLError as exc:
                        raise ValueError(_yaml_problem(exc))
        except (OSError, IOError):
            continue  # openstacksdk skips a file it cannot read, too
        except ValueError as exc:
            raise BaremetalError('cannot read %s: %s. Fix its syntax.' % (path, exc))
        if hasattr(data, 'get'):
            return path, data.get('clouds') or {}
        raise BaremetalError('%s has no clouds: mapping. See openstacksdk\'s clouds.yaml format.' % path)
    return None, None


def _no_file_found():
    """Why no clouds.yaml was read, and what to do: an OS_CLIENT_CONFIG_FILE that names no file is named."""
    override = os.environ.get('OS_CLIENT_CONFIG_FILE')
    if not override:
        return 'no clouds.yaml found (set OS_CLIENT_CONFIG_FILE, or use endpoint instead of cloud).'
    if os.path.isabs(override):
        return 'OS_CLIENT_CONFIG_FILE names %s, which does not exist, and no other clouds.yaml was found. Fix the path.' % (
            override,)
    return ('OS_CLIENT_CONFIG_FILE names %s, a relative path, which the module reads from its own working directory '
            '(%s), where it does not exist; no other clouds.yaml was found. Give its absolute path (%s from where '
            'you ran the playbook, for example).' % (override, os.getcwd(), '$PWD/' + override))


def file_entry(name):
    """The clouds.yaml entry named ``name``, or None when only openstacksdk can resolve it."""
    if _secure_file_exists():
        return None  # secure.yaml is merged into clouds.yaml by openstacksdk
    try:
        path, clouds = _load_clouds_file()
    except LookupError:
        return None
    if path is None:
        raise BaremetalError('cloud %r is not defined: %s' % (name, _no_file_found()))
    if name not in clouds:
        raise BaremetalError('cloud %r is not in %s, which defines: %s. Fix the name (cloud option or OS_CLOUD).'
                             % (name, path, ', '.join(sorted(clouds)) or 'no cloud'))
    return dict(clouds[name] or {})
