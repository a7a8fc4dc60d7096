# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a node declaration says of the node's wiring and boot media beside its record: its port groups and the
group of each port (node/port_groups.py), its virtual media (node/virtual_media.py), and the checks of its network_data
(node/network_data.py; network_data itself is a field of the record).

The record's code (node/record.py, node/writer.py) hands each node here at the same points as its own parts: the
declaration, the checks before anything is read, the reads and checks before the first write (a Wiring per node,
its changes in the node's diff), and the writes, after those of the record and its ports. A task loads the code of
port groups and of virtual media only when a node declares them (manages_groups, manages_media; a deferral
bench/README.md measures). Neither imports this file: an import-linter contract keeps node's files free of cycles.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import media_types, network_data
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked

# Declared fields that are not fields of the node record: each has its own requests.
WIRING_FIELDS = ('port_groups', 'port_memberships', 'virtual_media')

# baremetal_node's argument spec reads them here, with the wiring fields (node/media_types.py).
DEVICE_TYPES, DOWNLOAD_SOURCES = media_types.DEVICE_TYPES, media_types.DOWNLOAD_SOURCES


class WiringError(BaremetalError):
    """A port group or virtual media declaration Ironic would refuse."""


def declared_wiring(params):
    """The wiring fields a task (or an element of nodes) declares: port_groups (None, left alone, is not declared),
    port_memberships (when a port names its port_group) and virtual_media (None is not declared)."""
    declared = {}
    if params.get('port_groups') is not None or any(port.get('port_group') is not None
                                                    for port in params.get('ports') or ()):
        groups = _port_groups().declared_groups(params)
        if groups is not None:
            declared['port_groups'] = groups
        memberships = _port_groups().declared_memberships(params)
        if memberships:
            declared['port_memberships'] = memberships
    if manages_media(params):
        declared['virtual_media'] = _virtual_media().declared_media(params)
    return declared


def manages_groups(declared):
    """Whether the node declares port groups or the group of a port (then node/port_groups.py is loaded)."""
    return declared.get('port_groups') is not None or bool(declared.get('port_memberships'))


def manages_media(declared):
    """Whether the node declares virtual media (then node/virtual_media.py is loaded)."""
    return declared.get('virtual_media') is not None


def _port_groups():
    """node/port_groups.py, loaded only for a node that declares port groups or the group of a port."""
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import port_groups
    return port_groups


def _virtual_media():
    """node/virtual_media.py, loaded only for a node that declares virtual media."""
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import virtual_media
    return virtual_media


def _api():
    """ironic/wiring.py, the requests of port groups and virtual media: loaded only for a node that declares them."""
    from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import wiring as api
    return api


def declaration_errors(declared):
    errors = []
    if manages_groups(declared):
        errors.extend(_port_groups().declaration_errors(declared))
    if manages_media(declared):
        errors.extend(_virtual_media().declaration_errors(declared['virtual_media']))
    return errors + network_data.declaration_errors(declared)


def required_features(declared):
    if not manages_groups(declared):
        return set()
    return _port_groups().required_features(declared)


def bulk_problems(declarations):
    if not any(declaration.declared.get('port_groups') for declaration in declarations):
        return []
    return _port_groups().bulk_problems(declarations)


def absent_problems(declaration):
    """A node declared absent is deleted with its port groups: it cannot declare them, nor virtual media."""
    declared = [field for field in ('port_groups', 'virtual_media') if field in declaration.declared]
    if declaration.state != 'absent' or not declared:
        return []
    return ['state: absent deletes the node with its port groups and ports, so it cannot also declare %s; drop it or '
            'declare state: present.' % ' and '.join(declared)]


def read_fields(declarations):
    """The node fields read besides the record's: network_data where declared (it may be large)."""
    return ('network_data',) if any('network_data' in declaration.declared for declaration in declarations) else ()


class Wiring(object):
    """One node's port groups and virtual media: read (for an existing node), checked, and planned."""

    def __init__(self, client, declared, node, ports, port_changes):
        uuid = node['uuid'] if node else None
        self.groups = self.media = None
        self.media_read = None
        if manages_groups(declared):
            current = _api().list_port_groups(client, uuid) if node else []
            self.groups = _port_groups().GroupPlan(declared, current, ports, port_changes)
        if manages_media(declared):
            self.media_read = _api().virtual_media(client, uuid) if node else None
            self.media = _virtual_media().MediaPlan(declared['virtual_media'], self.media_read, uuid,
                                                    _virtual_media().recorded_media(node))
        problems = []
        if self.groups is not None:
            problems.extend(_port_groups().check_plan(client, self.groups, uuid))
        if self.media is not None:
            problems.extend(self.media.problems(self.media_read))
        if problems:
            raise WiringError(' '.join(problems))

    def __bool__(self):
        return bool(self.groups or self.media)

    def diff(self):
        """(before, after) of what changes."""
        before, after = {}, {}
        if self.groups:
            before['port_groups'], after['port_groups'] = self.groups.before, self.groups.after
        if self.media:
            before['virtual_media'] = dict((device, image) for device, image in self.media.before.items()
                                           if self.media.after[device] != image)
            after['virtual_media'] = dict((device, self.media.after[device]) for device in before['virtual_media'])
        return before, after

    def view(self):
        """The wiring as read, for the node's view."""
        view = {}
        if self.groups is not None:
            view['port_groups'] = self.groups.before
        if self.media is not None:
            view['virtual_media'] = masked(self.media.before)
        return view


def plan(client, declared, node, change):
    """The node's Wiring, its changes added to the record's Change and diff; None when it declares none."""
    if not (manages_groups(declared) or manages_media(declared)):
        return None
    wiring = Wiring(client, declared, node, change.current_ports, change.ports)
    before, after = wiring.diff()
    change.diff['before'].update(masked(before))
    change.diff['after'].update(masked(after))
    return wiring


def view(wiring, node_view):
    return dict(node_view, **wiring.view()) if wiring is not None else node_view


def apply(client, wiring, node, ports, view_of, timeout, writes):
    """Write the wiring after the record (each write sent by writes, the node's engine.writes.NodeWrites), each
    virtual media attach or detach within timeout seconds (the task's); returns the node's view (view_of(node, ports)
    with the wiring). A failure carries the view of the node as far as it went."""
    if wiring is None:
        return view_of(node, ports)
    shown = view_of(node, ports)
    try:
        if wiring.groups is not None:
            groups, ports = (_port_groups().apply_plan(client, wiring.groups, node['uuid'], ports, writes) if wiring.groups
                             else (wiring.groups.current, ports))
            shown = dict(view_of(node, ports), port_groups=_port_groups().groups_view(groups, ports))
        if wiring.media is not None:
            media = (_virtual_media().apply_plan(client, wiring.media, node['uuid'], timeout, writes) if wiring.media
                     else wiring.media_read)
            if media is None:  # a node just created: what its BMC shows now
                media = _api().virtual_media(client, node['uuid'])
            shown['virtual_media'] = _virtual_media().media_view(media, list(wiring.media.after))
    except BaremetalError as exc:
        raise WiringError(str(exc), dict(exc.result, node=shown))
    return shown
