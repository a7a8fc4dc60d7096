# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a task declares of a node's hardware (BIOS settings, RAID layout, firmware versions), and its checks: its
shape before anything is read, its BIOS settings against the node's registry once read (node/hardware.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.spelling import closest, did_you_mean
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.hardware_difference import as_text, is_int

APPLY_MODES = ('cleaning', 'servicing', 'never')
# Where each apply mode may start: cleaning from these states, servicing from active (node/hardware_cycle.py).
CLEANING_STATES = ('manageable', 'available')
SERVICING_STATE = 'active'

# Ironic's raid_config_schema.json, as checks that name the offending key.
RAID_LEVELS = ('JBOD', '0', '1', '2', '5', '6', '1+0', '5+0', '6+0')
RAID_DISK_TYPES = ('hdd', 'ssd')
RAID_INTERFACE_TYPES = ('sata', 'scsi', 'sas')
RAID_DISK_KEYS = ('raid_level', 'size_gb', 'volume_name', 'is_root_volume', 'share_physical_disks', 'disk_type',
                  'interface_type', 'number_of_physical_disks', 'controller', 'physical_disks')
FIRMWARE_KEYS = ('component', 'version', 'url', 'wait')


class HardwareError(BaremetalError):
    """A declaration that cannot be applied; nothing has been written."""


# The options of baremetal_hardware that declare a node's hardware: the task's, or an element of nodes' own.
DECLARATION_KEYS = ('bios_settings', 'raid', 'firmware', 'apply', 'allow_destructive', 'allow_reboot')


class HardwareDeclaration(collections.namedtuple('HardwareDeclaration', DECLARATION_KEYS)):
    """What one node's hardware should be. None means "not managed"; raid {} means "no RAID"."""

    __slots__ = ()

    def __new__(cls, bios_settings=None, raid=None, firmware=None, apply='cleaning', allow_destructive=False,
                allow_reboot=False):
        return super(HardwareDeclaration, cls).__new__(cls, bios_settings, raid, firmware, apply, allow_destructive,
                                                       allow_reboot)


# What each per-node option of a nodes element must be (fleet/runner.py); the rest of its checks are check_shape's.
ELEMENT_TYPES = dict(bios_settings=dict, raid=dict, firmware=list, apply=tuple(APPLY_MODES),
                     allow_destructive=bool, allow_reboot=bool)


def declaration_of(settings):
    """The HardwareDeclaration of a node's settings (DECLARATION_KEYS), without the firmware keys Ansible's suboptions
    fill with null."""
    firmware = settings['firmware']
    if firmware is not None:
        firmware = [dict((key, value) for key, value in entry.items() if value is not None)
                    if isinstance(entry, dict) else entry for entry in firmware]
    return HardwareDeclaration(**dict(settings, firmware=firmware))


# -- shape of the declaration (no I/O) ---------------------------------------------------------------------

def check_shape(declaration):
    """Problems with the declaration itself, each naming its key. Empty when it is well formed."""
    problems = []
    if declaration.apply not in APPLY_MODES:
        problems.append("apply must be one of %s, not '%s'." % (', '.join(APPLY_MODES), declaration.apply))
    for name, value in sorted((declaration.bios_settings or {}).items()):
        if isinstance(value, (dict, list)) or value is None:
            problems.append("bios_settings.%s must be a single value (string, number or boolean)." % name)
    if declaration.raid is not None:
        problems.extend(_raid_problems(declaration.raid))
    if declaration.firmware is not None:
        problems.extend(_firmware_problems(declaration.firmware))
    return problems


def _raid_problems(raid):
    if not isinstance(raid, dict):
        return ['raid must be a dictionary with logical_disks, or {} for no RAID.']
    if not raid:
        return []
    unknown = sorted(set(raid) - set(('logical_disks',)))
    if unknown:
        return ['raid has unknown keys %s; only logical_disks is allowed (or {} for no RAID).' % ', '.join(unknown)]
    disks = raid.get('logical_disks')
    if not isinstance(disks, list) or not disks:
        return ['raid.logical_disks must be a non-empty list of logical disks (or declare raid: {} for no RAID).']
    problems = []
    for index, disk in enumerate(disks):
        problems.extend(_logical_disk_problems('raid.logical_disks[%d]' % index, disk))
    if sum(1 for disk in disks if isinstance(disk, dict) and disk.get('is_root_volume')) > 1:
        problems.append('raid.logical_disks: only one logical disk may have is_root_volume: true.')
    return problems


def _logical_disk_problems(where, disk):
    if not isinstance(disk, dict):
        return ['%s must be a dictionary with raid_level and size_gb.' % where]
    problems = []
    for key in sorted(set(disk) - set(RAID_DISK_KEYS)):
        problems.append('%s.%s is not a logical disk property%s; allowed: %s.' % (
            where, key, did_you_mean(key, RAID_DISK_KEYS), ', '.join(RAID_DISK_KEYS)))
    if 'raid_level' not in disk:
        problems.append('%s.raid_level is required (one of %s).' % (where, ', '.join(RAID_LEVELS)))
    elif disk['raid_level'] not in RAID_LEVELS:
        problems.append("%s.raid_level must be one of %s, as a string (quote it in YAML), not %r."
                        % (where, ', '.join(RAID_LEVELS), disk['raid_level']))
    if 'size_gb' not in disk:
        problems.append("%s.size_gb is required: a whole number of GiB, or 'MAX' for the rest of the space." % where)
    elif not (disk['size_gb'] == 'MAX' or is_int(disk['size_gb']) and disk['size_gb'] >= 0):
        problems.append("%s.size_gb must be a whole number of GiB (0 or more) or 'MAX', not %r." % (where, disk['size_gb']))
    for key in ('is_root_volume', 'share_physical_disks'):
        if key in disk and not isinstance(disk[key], bool):
            problems.append('%s.%s must be true or false.' % (where, key))
    for key, allowed in (('disk_type', RAID_DISK_TYPES), ('interface_type', RAID_INTERFACE_TYPES)):
        if key in disk and disk[key] not in allowed:
            problems.append("%s.%s must be one of %s, not '%s'." % (where, key, ', '.join(allowed), disk[key]))
    if 'number_of_physical_disks' in disk and not (is_int(disk['number_of_physical_disks'])
                                                   and disk['number_of_physical_disks'] >= 1):
        problems.append('%s.number_of_physical_disks must be a whole number of at least 1.' % where)
    for key in ('volume_name', 'controller'):
        if key in disk and not isinstance(disk[key], str):
            problems.append('%s.%s must be a string.' % (where, key))
    if 'physical_disks' in disk:
        if not isinstance(disk['physical_disks'], list):
            problems.append('%s.physical_disks must be a list.' % where)
        if 'controller' not in disk:
            problems.append('%s.physical_disks needs controller: the controller those disks are on.' % where)
    return problems


def _firmware_problems(firmware):
    if not isinstance(firmware, list):
        return ['firmware must be a list of components, each with component, version and url.']
    problems = []
    seen = set()
    for index, entry in enumerate(firmware):
        where = 'firmware[%d]' % index
        if not isinstance(entry, dict):
            problems.append('%s must be a dictionary with component, version and url.' % where)
            continue
        for key in sorted(set(entry) - set(FIRMWARE_KEYS)):
            problems.append('%s.%s is not a firmware key; allowed: %s.' % (where, key, ', '.join(FIRMWARE_KEYS)))
        for key in ('component', 'version', 'url'):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                problems.append('%s.%s is required and must be a non-empty string.' % (where, key))
        if 'wait' in entry and not (is_int(entry['wait']) and entry['wait'] >= 1):
            problems.append('%s.wait must be a whole number of seconds, at least 1.' % where)
        component = entry.get('component')
        if isinstance(component, str):
            if component in seen:
                problems.append("%s.component '%s' is declared twice." % (where, component))
            seen.add(component)
    return problems


# -- validation against what Ironic reports ------------------------------------------------------------------

def check_bios(bios_settings, registry):
    """Problems with declared BIOS settings against the node's registry, each naming the setting.

    An empty registry (Ironic has cached no settings yet) cannot tell names apart: names are then not checked.
    """
    problems = []
    for name, value in sorted((bios_settings or {}).items()):
        entry = registry.get(name)
        if entry is None:
            if registry:
                close = closest(name, registry, n=3)
                hint = (' Did you mean %s?' % ' or '.join("'%s'" % match for match in close)) if close else ''
                problems.append("bios_settings.%s: the node's BIOS has no such setting.%s" % (name, hint))
            continue
        problems.extend('bios_settings.%s: %s' % (name, problem) for problem in _bios_value_problems(value, entry))
    return problems


def _bios_value_problems(value, entry):
    if entry.get('read_only'):
        return ['the setting is read-only; remove it from bios_settings.']
    shown = secrets.quoted_value(entry['name'], value, entry)
    allowed = entry.get('allowable_values')
    if allowed and as_text(value) not in [as_text(choice) for choice in allowed]:
        return ['%s is not allowed; choose one of %s.' % (shown, ', '.join(str(choice) for choice in allowed))]
    kind = entry.get('attribute_type')
    if kind == 'Integer':
        try:
            number = int(str(value))
        except ValueError:
            return ['%s is not a whole number.' % shown]
        lower, upper = entry.get('lower_bound'), entry.get('upper_bound')
        if (lower is not None and number < lower) or (upper is not None and number > upper):
            return ['%s is outside the range %s..%s.' % (shown, '' if lower is None else lower,
                                                         '' if upper is None else upper)]
    if kind in ('String', 'Password'):
        length = len(as_text(value))
        shortest, longest = entry.get('min_length'), entry.get('max_length')
        if (shortest is not None and length < shortest) or (longest is not None and length > longest):
            return ['%s has %d characters; it must have %s to %s.' % (
                shown, length, 0 if shortest is None else shortest, 'any' if longest is None else longest)]
    if kind == 'Boolean' and as_text(value) not in ('True', 'False', 'true', 'false'):
        return ['%s is not a boolean.' % shown]
    return []


def check_shapes(requests):
    """Raise HardwareError naming every problem of the declarations of (ident, HardwareDeclaration) requests that can be
    seen before anything is read (check_shape), each prefixed by its node when there are many."""
    problems = []
    for ident, declaration in requests:
        problems.extend(('node %s: %s' % (ident, problem)) if len(requests) > 1 else problem
                        for problem in check_shape(declaration))
    if problems:
        raise HardwareError(' '.join(problems))
