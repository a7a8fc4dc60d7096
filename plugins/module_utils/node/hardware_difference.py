# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How a node's hardware, as read (node/hardware.py), differs from its declaration (node/hardware_declaration.py):
per BIOS setting, RAID layout and firmware component. baremetal_hardware plans steps from it; baremetal_fleet_report
reports drift with it and orders firmware versions by version_key, without loading what applies the steps; the
declaration's checks (node/hardware_declaration.py) compare values by the same rules (as_text, is_int)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets

# Keys a built logical disk in raid_config reports and a declared one is compared on.
RAID_COMPARED_KEYS = ('raid_level', 'is_root_volume', 'volume_name', 'controller')


def as_text(value):
    """Ironic stores BIOS values as strings: 4 and '4' are the same setting value."""
    return None if value is None else str(value)


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def version_key(version):
    """Order firmware versions by their numeric and text parts: 1.10 is above 1.9, U30 v2.76 above U30 v2.8."""
    return tuple((0, int(part), '') if part.isdigit() else (1, 0, part.lower())
                 for part in re.findall(r'\d+|[A-Za-z]+', version))


def _disk_matches(declared, built):
    """Whether a logical disk Ironic reports as built (raid_config) is the one declared."""
    for key in RAID_COMPARED_KEYS:
        wanted = declared.get(key, False if key == 'is_root_volume' else None)
        if wanted is not None and key in built and built[key] != wanted:
            return False
    if is_int(declared['size_gb']) and is_int(built.get('size_gb')) and built['size_gb'] != declared['size_gb']:
        return False
    return True


def _layout_built(declared_disks, built_disks):
    """Whether raid_config's logical disks are the declared ones, in any order."""
    if len(declared_disks) != len(built_disks):
        return False
    unused = list(built_disks)
    for declared in declared_disks:
        match = next((built for built in unused if _disk_matches(declared, built)), None)
        if match is None:
            return False
        unused.remove(match)
    return True


def difference(declaration, current):
    """Per setting, per logical disk and per firmware component: what differs, as {'before': ..., 'after': ...}."""
    node = current['node']
    changes = {'bios_settings': {}, 'raid': {}, 'firmware': {}}
    for name, value in sorted((declaration.bios_settings or {}).items()):
        entry = current['bios'].get(name, {})
        before = entry.get('value')
        if as_text(before) != as_text(value):
            changes['bios_settings'][name] = {'before': secrets.shown_value(name, before, entry),
                                              'after': secrets.shown_value(name, value, entry)}
    if declaration.raid is not None:
        declared_disks = declaration.raid.get('logical_disks', [])
        target = node.get('target_raid_config') or {}
        built = (node.get('raid_config') or {}).get('logical_disks') or []
        if target != declaration.raid:
            changes['raid']['target_raid_config'] = {'before': target, 'after': declaration.raid}
        if not _layout_built(declared_disks, built):
            for index in range(max(len(declared_disks), len(built))):
                changes['raid']['logical_disks[%d]' % index] = {
                    'before': built[index] if index < len(built) else None,
                    'after': declared_disks[index] if index < len(declared_disks) else None}
    for entry in declaration.firmware or []:
        reported = current['firmware'].get(entry['component'], {})
        before = reported.get('current_version')
        if before is None or version_key(before) < version_key(entry['version']):
            changes['firmware'][entry['component']] = {'before': before, 'after': entry['version']}
    return changes
