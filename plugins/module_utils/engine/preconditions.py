# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What Ironic refuses of a write in a node's state, as data: one row per rule (PRECONDITIONS), and the check that
judges the writes a task plans for a node against them before the first is sent (refusals).

The rows are read from Ironic's own code: the API (api/controllers/v1/node.py patch, port.py patch) and the conductor
(conductor/manager.py update_node, _check_update_protected, _check_update_retired, destroy_node, update_port;
conductor/allocations.py verify_node_for_deallocation). A write is judged on the node as it will be when the write is
sent, in the order the task sends its writes (after_steps: the node as a plan's moves leave it). docs/engine.md
lists them, with what cannot be known ahead; tests/integration/test_state_machine_conformance.py compares the states
and interfaces they name with the installed Ironic's.

Rules of the same kind live beside their own data: what a verb needs (engine/actions.py VERB_INTERFACES), the verbs a
flag refuses (engine/states.py NODE_FLAGS), and from which API version a field exists (ironic/capabilities.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import states
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import interface_field
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import SUPPORTED_RELEASE

# The writes a row judges.
UPDATE_NODE = 'update node'  # PATCH /v1/nodes/{node}: a field of the node's record
DELETE_NODE = 'delete node'  # DELETE /v1/nodes/{node}
UPDATE_PORT = 'update port'  # PATCH /v1/ports/{port}: a field of a port of the node
RELEASE_ALLOCATION = 'release allocation'  # DELETE /v1/allocations/{allocation} of the node's allocation

# The provision states in which the conductor changes a node's interfaces and its resource_class (update_node's
# allowed_update_states).
RECORD_UPDATE_STATES = ('enroll', 'inspecting', 'inspect wait', 'manageable', 'available')

# The provision states in which the conductor changes a port's connectivity (update_port's allowed_update_states):
# not available.
PORT_UPDATE_STATES = ('enroll', 'inspecting', 'inspect wait', 'manageable')

# The fields of a port Ironic calls its connectivity (update_port's connectivity_attr); portgroup_uuid is its group.
PORT_CONNECTIVITY_FIELDS = ('pxe_enabled', 'local_link_connection', 'physical_network', 'portgroup_uuid')

# Ironic's UPDATE_ALLOWED_STATES (common/states.py): the states of a moving node (one with a target_provision_state)
# in which the API's node patch still changes its record. Its 'service' is Ironic's SERVICE, the verb, which is no
# state: a node in servicing is not among them, and Ironic refuses to change its record.
UPDATE_ALLOWED_STATES = ('deploy failed', 'inspecting', 'inspect failed', 'inspect wait', 'clean failed', 'error',
                         'verifying', 'adopt failed', 'rescue failed', 'unrescue failed', 'service', 'service hold',
                         'service failed')

# The states of a moving node in which Ironic changes nothing (conductor/allocations.py verify_node_for_deallocation
# too): a move in progress outside UPDATE_ALLOWED_STATES.
MOVING_STATES = tuple(state for state, (kind, _target) in states.STATES.items()
                      if kind in (states.TRANSIENT, states.HOLD) and state not in UPDATE_ALLOWED_STATES)

# The states in which the API's node patch changes nothing: MOVING_STATES, and inspecting (from API 1.39, which every
# supported release serves).
RECORD_MOVING_STATES = MOVING_STATES + ('inspecting',)

# The node's interface fields (drivers/base.py ALL_INTERFACES).
INTERFACE_FIELDS = tuple(interface_field(name) for name in (
    'bios', 'boot', 'console', 'deploy', 'firmware', 'inspect', 'management', 'network', 'power', 'raid', 'rescue',
    'storage', 'vendor'))

# Not a field of Ironic's node: the name of the allocation that holds the node, which the caller reads (an
# allocation's UUID is the instance_uuid of its node; a list of nodes that asks for their allocation_uuid fails, HTTP
# 500 on Ironic 39) and sets on the node it judges.
ALLOCATION = 'allocation'

# One of Ironic's refusals (a row of PRECONDITIONS, made by precondition()). write: which write (UPDATE_NODE...);
# fields: the fields of it the row judges (None: every write of its kind); value: only a write setting this value
# (None: any); allowed: the provision states Ironic allows it in (None: all but refused); refused: the provision states
# Ironic refuses it in; maintenance: Ironic allows it anyway on a node in maintenance; blocker: a node field that, set,
# makes Ironic refuse it; only_if: a node field that must be set for the row to hold; unless: a node field that, set,
# leaves the write to another row; cleared_by: the verbs of a plan that clear the blocker on the way; since: the first
# Ironic release the row holds in (SUPPORTED_RELEASE: every release the collection supports); rule: the rule in
# words, after 'Ironic'; fix: what to do, the node's fields filled in (str.format).
Precondition = collections.namedtuple('Precondition', 'write fields value allowed refused maintenance blocker only_if '
                                                      'unless cleared_by since rule fix')


def precondition(write, rule, fix, fields=None, value=None, allowed=None, refused=(), maintenance=False, blocker=None,
                 only_if=None, unless=None, cleared_by=(), since=SUPPORTED_RELEASE):
    """A row of PRECONDITIONS, its columns left out as the rule that has none."""
    return Precondition(write, fields, value, allowed, refused, maintenance, blocker, only_if, unless, cleared_by,
                        since, rule, fix)


UNDEPLOY = ('undeploy it first (baremetal.lifecycle.baremetal_provision_state state: manageable, '
            'allow_destructive: true)')
MANAGE = 'bring it to manageable first (baremetal.lifecycle.baremetal_provision_state state: manageable)'
MAINTENANCE = 'set maintenance first (baremetal.lifecycle.baremetal_maintenance)'

PRECONDITIONS = (
    # The API's node patch: "can not be updated while a state transition is in progress".
    precondition(UPDATE_NODE, refused=RECORD_MOVING_STATES, rule="changes no node's record while it moves ({refused})",
                 fix='wait until it rests (baremetal.lifecycle.baremetal_provision_state waits), or leave its record '
                     'out of this task'),
    # update_node: "if the resource class is changed for an active instance, nova will not update its internal
    # record". A node without a resource_class may get one in any state.
    precondition(UPDATE_NODE, fields=('resource_class',), allowed=RECORD_UPDATE_STATES, only_if='resource_class',
                 rule='changes the resource_class of a node that has one only in {allowed}',
                 fix=UNDEPLOY + ', or leave resource_class out'),
    # update_node: an interface changes in allowed_update_states, or in maintenance.
    precondition(UPDATE_NODE, fields=INTERFACE_FIELDS, allowed=RECORD_UPDATE_STATES, maintenance=True,
                 rule="changes a node's interfaces only in {allowed}, or in maintenance",
                 fix=MAINTENANCE + ', or ' + UNDEPLOY + ', or leave interfaces out'),
    # The API's _check_driver_changed_and_console_enabled: the new driver could not stop the old one's console.
    precondition(UPDATE_NODE, fields=('driver',), blocker='console_enabled',
                 rule="changes a node's driver only while its console is disabled",
                 fix='disable its console first (openstack baremetal node console disable {name}), or leave '
                     'driver out'),
    # _check_update_protected.
    precondition(UPDATE_NODE, fields=('protected',), value=True, allowed=('active', 'rescue'),
                 rule='protects a node only in {allowed}', fix='declare protected once the node is deployed'),
    # _check_update_retired.
    precondition(UPDATE_NODE, fields=('retired',), value=True, refused=states.UNRETIRABLE_STATES,
                 rule='retires no node in {refused}', fix=MANAGE + ', then retire it'),
    # destroy_node: NodeAssociated (an allocation sets instance_uuid too), unless in maintenance. Undeploying clears
    # instance_uuid and releases the node's allocation (do_node_tear_down).
    precondition(DELETE_NODE, maintenance=True, blocker=ALLOCATION, cleared_by=('deleted',),
                 rule='deletes a node that holds an allocation only in maintenance',
                 fix='release allocation {allocation} first (baremetal.lifecycle.baremetal_allocation name: '
                     '{allocation}, state: absent)'),
    precondition(DELETE_NODE, maintenance=True, blocker='instance_uuid', unless=ALLOCATION,
                 cleared_by=('deleted',), rule='deletes a node that holds an instance only in maintenance',
                 fix='delete the instance first, where it was made (Nova)'),
    # destroy_node: NodeProtected, even in maintenance.
    precondition(DELETE_NODE, blocker='protected', rule='deletes no protected node',
                 fix='set protected: false (baremetal.lifecycle.baremetal_node) first'),
    # destroy_node: DELETE_ALLOWED_STATES, or maintenance ([conductor]allow_deleting_available_nodes adds available,
    # which the collection does not count on).
    precondition(DELETE_NODE, allowed=states.DELETE_ALLOWED_STATES, maintenance=True,
                 rule='deletes a node only in {allowed}, or in maintenance', fix=MANAGE),
    # update_port: connectivity changes only in its allowed_update_states (not available), or in maintenance.
    precondition(UPDATE_PORT, fields=PORT_CONNECTIVITY_FIELDS, allowed=PORT_UPDATE_STATES, maintenance=True,
                 rule="changes a port's pxe_enabled, physical_network, local_link_connection or port group only in "
                      "{allowed}, or in maintenance",
                 fix=MANAGE + ', or ' + MAINTENANCE + ', or declare its ports as they are'),
    # verify_node_for_deallocation: not on a moving node, nor on an active one, unless in maintenance.
    precondition(RELEASE_ALLOCATION, refused=MOVING_STATES, maintenance=True,
                 rule="releases no node's allocation while it moves ({refused}), unless in maintenance",
                 fix='wait until it rests (baremetal.lifecycle.baremetal_provision_state waits)'),
    precondition(RELEASE_ALLOCATION, refused=('active',), maintenance=True,
                 rule='releases the allocation of a node in {refused} only in maintenance',
                 fix='undeploy it first (baremetal.lifecycle.baremetal_provision_state state: available), or set '
                     'maintenance on it'),
)

# Node fields a node is read with for the rows to judge it (besides provision_state and maintenance): every field a
# row names but ALLOCATION.
PRECONDITION_FIELDS = tuple(sorted(set(field for row in PRECONDITIONS
                                       for field in (row.blocker, row.only_if, row.unless) if field) - {ALLOCATION}))

# What a blocker set on a node means, in words (the node's fields filled in).
BLOCKER_WORDS = {
    ALLOCATION: 'holds allocation {allocation}',
    'instance_uuid': 'holds instance {instance_uuid}',
    'protected': 'is protected',
    'console_enabled': 'has its console enabled',
}


# Each write, in words (label: the node; field and value: what it writes; allocation: the node's ALLOCATION).
WRITE_WORDS = {
    UPDATE_NODE: '{field} of node {label} cannot change to {value!r}',
    DELETE_NODE: 'node {label} cannot be deleted',
    UPDATE_PORT: '{field} of a port of node {label} cannot change',
    RELEASE_ALLOCATION: 'allocation {allocation} cannot be released from node {label}',
}

# One write a task plans for a node: what (UPDATE_NODE...), the field it writes (None for a DELETE), and the value.
Write = collections.namedtuple('Write', 'write field value')


def node_writes(operations):
    """The Writes of a node's JSON patch operations: one per field (the first part of each path)."""
    fields = collections.OrderedDict()
    for operation in operations:
        fields.setdefault(operation['path'].split('/')[1], operation.get('value'))
    return [Write(UPDATE_NODE, field, value) for field, value in fields.items()]


def after_steps(node, steps):
    """The node as a plan's steps (graph.Step, each with its verb and landing) leave it: its provision_state the last
    landing, the blockers those verbs clear unset."""
    if not steps:
        return node
    verbs = set(step.verb for step in steps)
    node = dict(node, provision_state=steps[-1].landing, target_provision_state=None)
    for row in PRECONDITIONS:
        if row.blocker and verbs & set(row.cleared_by):
            node[row.blocker] = None
    return node


def _holds(row, node, write):
    """Whether Ironic refuses write (a Write) of node (as it will be when sent) by row."""
    if row.write != write.write or (row.fields is not None and write.field not in row.fields):
        return False
    if row.value is not None and write.value != row.value:
        return False
    if (row.only_if and not node.get(row.only_if)) or (row.unless and node.get(row.unless)):
        return False
    if row.maintenance and node.get('maintenance'):
        return False
    if row.blocker:
        return bool(node.get(row.blocker))
    state = node.get('provision_state')
    return state in row.refused or (row.allowed is not None and state not in row.allowed)


def _listed(names):
    names = list(names)
    return ''.join(names) if len(names) < 2 else '%s or %s' % (', '.join(names[:-1]), names[-1])


def refusal_message(row, node, write, label):
    """A refusal in words: the write, Ironic's rule, the node as it is, the fix."""
    values = collections.defaultdict(lambda: '?', [(key, value) for key, value in node.items() if value is not None])
    values['name'] = label
    what = WRITE_WORDS[write.write].format(label=label, field=write.field, value=write.value,
                                           allocation=node.get(ALLOCATION))
    rule = row.rule.format(allowed=_listed(row.allowed or ()), refused=_listed(row.refused))
    if row.blocker:
        now = BLOCKER_WORDS[row.blocker].format_map(values)
    else:
        now = "is '%s'" % node.get('provision_state')
    if row.maintenance and not node.get('maintenance'):
        now += ', not in maintenance'
    fix = row.fix.format_map(values)
    return '%s: Ironic %s, and it %s. %s%s, then rerun.' % (what, rule, now, fix[0].upper(), fix[1:])


def refusals(node, writes, label=None):
    """The messages of what Ironic would refuse of writes (Writes, in the order sent) for node (as read, or as the
    moves before them leave it: after_steps), one per write and rule, in the order of the writes; [] when Ironic takes
    them all. label names the node (its name by default)."""
    label = label or node.get('name') or node.get('uuid')
    return [refusal_message(row, node, write, label) for write in writes for row in PRECONDITIONS
            if _holds(row, node, write)]
