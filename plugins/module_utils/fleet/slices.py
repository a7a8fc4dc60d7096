# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Slices: one fleet file converged by several plays at once (AWX job slices, or the hosts of one play), each on
its own part of the fleet.

A slice is a name (an inventory host's) and the conductor groups (or shards) whose nodes it drives. Every slice
reads the same fleet file and the same table of slices, so each one can check, before any write, that every node
of the file belongs to exactly one slice: a node in no slice would never be converged, a node in two (its group in
two slices, or its name declared in two groups) would be written by two plays at once. Only that is checked across
the whole file; the rest of the description is validated slice by slice, so that a mistake in one slice's nodes
fails that slice only.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# The node fields a fleet can be sliced by: Ironic's own partitions of nodes.
SLICE_KEYS = ('conductor_group', 'shard')


def _key_of(node, key):
    """The node's conductor group or shard, as Ironic stores it: one not declared is Ironic's default, ''."""
    value = node.get(key)
    return '' if value is None else str(value)


def slice_errors(slices, slice_name, key):
    """What is wrong with the table of slices itself, or with the name of this play's slice: a list of messages."""
    if key not in SLICE_KEYS:
        return ['fleet_slice_key must be one of %s, got %r.' % (', '.join(SLICE_KEYS), key)]
    if not slices and not slice_name:
        return []
    if not isinstance(slices, dict) or not slices:
        return ['fleet_slice is %r but fleet_slices is empty: declare every slice once, as a mapping of slice name '
                'to the list of its %ss, for every slice (for example in the group variables of the inventory).'
                % (slice_name, key)]
    errors = []
    for name, values in sorted(slices.items()):
        if not isinstance(values, list) or not values:
            errors.append('fleet_slices[%r] must be a non-empty list of %ss (a slice of no %s drives no node); '
                          'give it its %ss, or remove it.' % (name, key, key, key))
    if not slice_name:
        errors.append('fleet_slices is set but fleet_slice is empty: set fleet_slice to the slice this play drives '
                      '(for example "{{ inventory_hostname }}" in an inventory whose hosts are the slices).')
    elif slice_name not in slices:
        errors.append('fleet_slice %r is not a slice of fleet_slices (%s): name one of them, or add it to '
                      'fleet_slices.' % (slice_name, ', '.join(sorted(slices))))
    return errors


def sliceable(nodes):
    """Whether every entry of the fleet is a node with a name, which slicing needs (else the whole description is
    validated, and its errors shown, as without slices)."""
    return isinstance(nodes, list) and all(isinstance(node, dict) and isinstance(node.get('name'), str)
                                           for node in nodes)


def slice_nodes(nodes, slices, slice_name, key='conductor_group'):
    """(the nodes of slice_name, errors). nodes: the fleet's valid nodes; slices: {slice name: [conductor groups or
    shards]}; key: 'conductor_group' or 'shard'. With neither slices nor slice_name, every node and no error (no
    slicing). Any error (a bad table, a node in no slice or in two) gives no node at all: nothing is written."""
    errors = slice_errors(slices, slice_name, key)
    if errors or not slices:
        return ([] if errors else list(nodes)), errors
    owners = {}
    for name, values in slices.items():
        for value in values:
            owners.setdefault(_key_of({key: value}, key), []).append(name)
    mine = []
    outside = []
    shared = []
    slices_of_name = {}
    for node in nodes:
        value = _key_of(node, key)
        owner = owners.get(value, [])
        if len(owner) == 1:
            slices_of_name.setdefault(node['name'], set()).add(owner[0])
        if not owner:
            outside.append('%s (%s %r)' % (node['name'], key, value))
        elif len(owner) > 1:
            shared.append('%s (%s %r, in slices %s)' % (node['name'], key, value, ', '.join(sorted(owner))))
        elif owner[0] == slice_name:
            mine.append(node)
    if outside:
        errors.append('These nodes are in no slice of fleet_slices, so no slice would converge them: %s. Add their '
                      '%s to one slice of fleet_slices, or declare them in a %s a slice has.'
                      % ('; '.join(outside), key, key))
    if shared:
        errors.append('These nodes are in more than one slice of fleet_slices, so two slices would write them at '
                      'once: %s. Keep each %s in one slice only.' % ('; '.join(shared), key))
    twice = sorted(name for name, owner in slices_of_name.items() if len(owner) > 1)
    if twice:
        errors.append('These node names are declared in more than one slice, so two slices would write them at once: '
                      '%s. Declare each node once.' % ', '.join(twice))
    return ([] if errors else mine), errors
