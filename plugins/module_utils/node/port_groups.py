# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's port groups (bonds) as a task declares them, and the port each group holds.

port_groups, when declared, is made exactly the list given, matched by name; ports name their group with port_group
('' takes a port out of its group). The order Ironic needs: a group exists before a port joins it, and a group is
emptied before it is deleted. So, after the ports themselves are written (node/writer.py), the groups are created and
updated, then ports leave and join groups, then the groups no longer declared are deleted. Ironic deletes a node's
groups with the node.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import wiring as api
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import AnswerLost, IronicError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import (
    LOGICAL_NAME, is_uuid_like, mac_errors, normalized_mac)

GROUP_ATTRIBUTES = tuple(field for field, _feature in api.GROUP_FIELD_FEATURES)

# A port's port_group that takes it out of its group.
NO_GROUP = ''

# What Ironic takes as a port group name (RFC 3986 unreserved characters), and its longest texts.
MAX_LENGTHS = {'physical_network': 64, 'category': 80}


def declared_groups(params):
    """The declared port groups (None: left alone), their addresses as Ironic stores them."""
    if params.get('port_groups') is None:
        return None
    groups = []
    for group in params['port_groups']:
        entry = dict((attribute, group.get(attribute)) for attribute in GROUP_ATTRIBUTES)
        entry['name'] = group['name']
        if isinstance(entry['address'], str):
            entry['address'] = normalized_mac(entry['address'])
        groups.append(entry)
    return groups


def declared_memberships(params):
    """{MAC address: group name, or NO_GROUP} for each declared port that names its group."""
    return dict((normalized_mac(port['address']), port['port_group']) for port in params.get('ports') or ()
                if port.get('port_group') is not None)


def required_features(declared):
    """The rows of FEATURE_MIN_VERSION the declaration needs beyond port_groups itself."""
    features = set()
    for group in declared.get('port_groups') or ():
        features.update(feature for field, feature in api.GROUP_FIELD_FEATURES
                        if feature is not None and group.get(field) is not None)
    if declared.get('port_memberships'):
        features.add('port_group')
    return features


def declaration_errors(declared):
    """What is wrong with the declared groups and memberships, before anything is read."""
    errors, names, addresses = [], set(), set()
    for index, group in enumerate(declared.get('port_groups') or ()):
        option = 'port_groups[%d]' % index
        name = group['name']
        if not LOGICAL_NAME.match(name) or is_uuid_like(name):
            errors.append("%s.name %r is not a port group name Ironic accepts: use 1 to 255 letters, digits, '.', '_', "
                          "'~' or '-', and not a UUID." % (option, name))
        elif name in names:
            errors.append('%s.name %s is listed twice; a port group has one entry. Remove the duplicate.' % (option, name))
        names.add(name)
        if group['address'] is not None:
            problems = mac_errors('%s.address' % option, group['address'])
            if not problems and group['address'] in addresses:
                problems = ['%s.address %s is given to two port groups; a MAC address belongs to one. Correct one.'
                            % (option, group['address'])]
            errors.extend(problems)
            addresses.add(group['address'])
        for field, longest in sorted(MAX_LENGTHS.items()):
            if group[field] is not None and len(group[field]) > longest:
                errors.append('%s.%s is %d characters long; Ironic takes at most %d.'
                              % (option, field, len(group[field]), longest))
    if declared.get('port_groups') is not None:
        for address, name in sorted((declared.get('port_memberships') or {}).items()):
            if name != NO_GROUP and name not in names:
                errors.append("port %s names port_group %r, which port_groups does not declare: add it to port_groups, "
                              "or correct the name." % (address, name))
    return errors


def bulk_problems(declarations):
    """[(declaration, message)] for a group name two nodes declare: names are unique across Ironic."""
    problems, owners = [], {}
    for declaration in declarations:
        for group in declaration.declared.get('port_groups') or ():
            other = owners.setdefault(group['name'], declaration)
            if other is not declaration:
                problems.append((declaration, 'port group %s is also declared by %s; a port group name belongs to '
                                              'one node.' % (group['name'], other.label)))
    return problems


def group_view(group, members):
    view = dict((attribute, group.get(attribute)) for attribute in GROUP_ATTRIBUTES)
    view.update(name=group['name'], ports=sorted(members))
    return view


def groups_view(groups, ports):
    """The node's port groups as results show them, each with the MAC addresses of its ports."""
    members = {}
    for port in ports:
        members.setdefault(port.get('portgroup_uuid'), []).append(port['address'])
    return [group_view(group, members.get(group['uuid'], [])) for group in sorted(groups, key=lambda group: group['name'])]


class GroupPlan(object):
    """What makes a node's port groups and memberships as declared (pure). groups and ports are the node's as read
    (ports with their portgroup_uuid); port_changes is the record's PortChanges (None: its ports are not declared)."""

    def __init__(self, declared, groups, ports, port_changes=None):
        wanted = declared.get('port_groups')
        self.current = list(groups)
        by_name = dict((group['name'], group) for group in groups)
        names_by_uuid = dict((group['uuid'], group['name']) for group in groups)
        self.create = [group for group in wanted or () if group['name'] not in by_name]
        self.update = []
        for group in wanted or ():
            current = by_name.get(group['name'])
            operations = [{'op': 'replace', 'path': '/%s' % attribute, 'value': group[attribute]}
                          for attribute in GROUP_ATTRIBUTES
                          if current is not None and group[attribute] is not None
                          and current.get(attribute) != group[attribute]]
            if operations:
                self.update.append((current, operations))
        wanted_names = set(group['name'] for group in wanted) if wanted is not None else set(by_name)
        self.delete = [group for name, group in sorted(by_name.items()) if name not in wanted_names]
        deleted = set(group['name'] for group in self.delete)
        gone = set(port['address'] for port in port_changes.delete) if port_changes else set()
        current = dict((port['address'], names_by_uuid.get(port.get('portgroup_uuid'), NO_GROUP))
                       for port in ports if port['address'] not in gone)
        current.update((port['address'], NO_GROUP) for port in (port_changes.create if port_changes else ()))
        memberships = declared.get('port_memberships') or {}
        self.moves = []  # (MAC address, group name or NO_GROUP), leaving before joining
        after = {}
        for address, name in sorted(current.items()):
            target = memberships.get(address, NO_GROUP if name in deleted else name)
            after[address] = target
            if target != name:
                self.moves.append((address, target))
        self.moves.sort(key=lambda move: move[1] != NO_GROUP)
        self.unknown = sorted(name for name in set(memberships.values()) - wanted_names - {NO_GROUP})
        before_members = dict((name, [address for address, group in current.items() if group == name])
                              for name in by_name)
        self.before = [group_view(group, before_members.get(name, [])) for name, group in sorted(by_name.items())]
        after_groups = dict((name, group) for name, group in by_name.items() if name in wanted_names)
        for group in wanted or ():
            merged = dict(by_name.get(group['name']) or {})
            merged.update((attribute, value) for attribute, value in group.items() if value is not None)
            after_groups[group['name']] = merged
        self.after = [group_view(group, [address for address, target in after.items() if target == name])
                      for name, group in sorted(after_groups.items())]
        # (group name, its own physical network, {MAC address: physical network}) of each group the plan would
        # leave on more than one physical network.
        networks = dict((port['address'], port.get('physical_network'))
                        for port in list(ports) + (port_changes.after if port_changes else []))
        self.mixed_networks = [(view['name'], view['physical_network'],
                                dict((address, networks.get(address)) for address in view['ports']))
                               for view in self.after if len(_networks_of(view, networks)) > 1]

    def __bool__(self):
        return bool(self.create or self.update or self.delete or self.moves)


def _networks_of(view, networks):
    """The physical networks a group (its view after the plan) would be on: its members', and its own if it has one.
    Ironic refuses a port that would make them more than one (None counts as one)."""
    found = set(networks.get(address) for address in view['ports'])
    if view['physical_network'] is not None and view['ports']:
        found.add(view['physical_network'])
    return found


def check_plan(client, plan, node_uuid):
    """What a plan needs of the rest of Ironic, before any write: a port named into a group the node will not have,
    a group whose ports would be on different physical networks, a new group's name taken by another node. Returns
    the problems."""
    problems = ['port_group %r is neither declared in port_groups nor a port group of the node: declare it, or '
                'correct the name.' % name for name in plan.unknown]
    for name, own, members in plan.mixed_networks:
        problems.append('port group %s would hold ports on different physical networks (%s%s); Ironic keeps the ports '
                        'of a port group on one physical network. Give its ports the same physical_network.'
                        % (name, ', '.join('%s: %s' % (address, network or 'none')
                                           for address, network in sorted(members.items())),
                           '; the group itself: %s' % own if own is not None else ''))
    for group in plan.create:
        found = api.find_port_group(client, group['name'])
        if found is not None and found.get('node_uuid') != node_uuid:
            problems.append('port group name %s is taken by port group %s of node %s; names are unique across Ironic. '
                            'Choose another name.' % (group['name'], found['uuid'], found.get('node_uuid')))
    return problems


def apply_plan(client, plan, node_uuid, ports, writes):
    """Write the plan, in the order Ironic needs, each write sent by writes (the node's engine.writes.NodeWrites);
    ports are the node's ports as the record's writes left them. Returns (groups, ports) as Ironic answered."""
    groups = dict((group['name'], group) for group in plan.current)
    uuids = dict((group['name'], group['uuid']) for group in plan.current)
    for wanted in plan.create:
        created = _create_group(client, node_uuid, wanted, writes)
        groups[wanted['name']], uuids[wanted['name']] = created, created['uuid']
    for current, operations in plan.update:
        groups[current['name']] = _resent(functools.partial(writes.send, 'updating its port group %s' % current['name'],
                                                            api.update_port_group, client, current['uuid'], operations))
    by_address = dict((port['address'], port) for port in ports)
    for address, name in plan.moves:
        operation = ({'op': 'remove', 'path': '/portgroup_uuid'} if name == NO_GROUP
                     else {'op': 'replace', 'path': '/portgroup_uuid', 'value': uuids[name]})
        by_address[address] = _resent(functools.partial(writes.send, 'moving its port %s' % address, client.update_port,
                                                        by_address[address]['uuid'], [operation]))
    for group in plan.delete:
        writes.send('deleting its port group %s' % group['name'], api.delete_port_group, client, group['uuid'])
        groups.pop(group['name'], None)
    return list(groups.values()), list(by_address.values())


def _resent(write):
    """A PATCH that sets values: after a lost answer, sending it once more sets the same values."""
    try:
        return write()
    except AnswerLost:
        return write()


def _create_group(client, node_uuid, wanted, writes):
    """POST the group; after a lost answer or a 'name exists' refusal, the group of that name when it is the node's."""
    body = dict((attribute, value) for attribute, value in wanted.items() if value is not None)
    body['node_uuid'] = node_uuid
    doing = 'creating its port group %s' % wanted['name']
    try:
        return writes.send(doing, api.create_port_group, client, body)
    except AnswerLost:
        found = api.find_port_group(client, wanted['name'])
        return found if found is not None else writes.send(doing, api.create_port_group, client, body)
    except IronicError as exc:
        found = api.find_port_group(client, wanted['name']) if exc.status == 409 else None
        if found is None or found.get('node_uuid') != node_uuid:
            raise
        return found
