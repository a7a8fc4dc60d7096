# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The driver layer's client: the only code that knows Ironic's URLs, headers and microversions.

IronicClient is a transport (ironic/transport.py: the token, the negotiated microversion, retries, lost answers) and
the endpoint calls (ironic/nodes.py, ironic/resources.py); here are what a node looks like in results and how the
scheduler's polls read the nodes in play. Connection options become a
client in ironic/connection.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import public_node, recorded_heartbeat
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import (
    AGENT_HEARTBEAT_FIELD, CONDUCTORS_VERSION, POLL_PROGRESS_FIELDS)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.nodes import NodeEndpoints
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.resources import (
    CollectionEndpoints, HardwareEndpoints, PortEndpoints)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import PAGE_LIMIT, Transport
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.conductors import ConductorWatch

# What a node looks like in results: never driver_info or instance_info (they hold secrets).
# fault, retired and protected say why Ironic may refuse a verb (see states.NODE_FLAGS);
# inspection_finished_at whether the node was ever inspected; disable_power_off whether it may be powered off.
# NEWER_VIEW_FIELDS are absent from a view where the server predates them (see view_fields).
NEWER_VIEW_FIELDS = ('disable_power_off', 'health')
NODE_SUMMARY_FIELDS = ('uuid', 'name', 'provision_state', 'target_provision_state', 'power_state',
                       'target_power_state', 'maintenance', 'maintenance_reason', 'fault', 'retired',
                       'retired_reason', 'protected', 'protected_reason', 'inspection_finished_at',
                       'last_error') + NEWER_VIEW_FIELDS

# A poll of nodes in one transient state lists them with a filter when this many of ours are in it.
POLL_LIST_MIN_NODES = 2

# A poll reads every node of Ironic in one list when Ironic holds at most this many nodes per node polled. The other
# way reads about two lists (the nodes' transient state, and their landing state with POLL_LANDED_FACTOR times as
# many nodes as are looked for), and a request costs Ironic about what listing 40 nodes does (the split Ironic of
# bench_fleet_scale: 15 ms a request, 0.37 ms a node listed). So for n nodes polled, listing every node costs less
# only while Ironic holds fewer than 2 + 40 / n to 3 + 40 / n nodes per node polled: 2.4-3.4 at 100, 4-5 at 20.
POLL_LIST_ALL_RATIO = 4

# A poll reads the nodes that may just have landed in one resting state (at least POLL_LIST_MIN_NODES of them) by one
# list of that state's most recently moved nodes, this many times as many as it looks for (at most a page): a node
# that landed is among them unless that many others landed there after it, and one not found is read alone. On the
# split Ironic of bench_fleet_scale, one GET took Ironic 15 ms and a node listed 0.37 ms.
POLL_LANDED_FACTOR = 2


def view_fields(node, fields):
    """The fields of a node's view: one this Ironic is too old to return is absent, not null."""
    return tuple(field for field in fields if field in node or field not in NEWER_VIEW_FIELDS)


def heartbeat_seen(recorded, answered_at):
    """A node's agent heartbeat as a poll saw it: {'at': the time Ironic recorded it (its text), 'age': seconds from
    it to answered_at (Ironic's clock when it answered the poll: transport.answered_at), or None when Ironic sent no
    time or recorded one that does not parse}. Both times are Ironic's: this machine's clock is never compared with
    them. Ironic records the time in UTC without a zone (timeutils.utcnow().isoformat()); its Date header has whole
    seconds, so an age is up to 1 s short, and never below 0."""
    try:
        at = datetime.datetime.fromisoformat(recorded)
    except ValueError:
        return {'at': recorded, 'age': None}
    if answered_at is None:
        return {'at': recorded, 'age': None}
    at = at.replace(tzinfo=datetime.timezone.utc) if at.tzinfo is None else at
    return {'at': recorded, 'age': round(max(0.0, (answered_at - at).total_seconds()), 1)}


def summarize_node(node):
    return public_node(node, view_fields(node, NODE_SUMMARY_FIELDS))


class IronicClient(NodeEndpoints, CollectionEndpoints, HardwareEndpoints, PortEndpoints, Transport):
    """A session to one Ironic endpoint with a negotiated microversion, and every call the collection makes.

    node_count is how many nodes Ironic holds, or None while the task does not know. Only a read of every node
    learns it, and says so with count_nodes (lookup.find_nodes when its list held every node, a poll that listed
    them all); it decides how poll_nodes reads, and how node/writer.py reads ports.
    """

    def __init__(self, endpoint, session=None, token=None, renew_token=None, timeout=60):
        super(IronicClient, self).__init__(endpoint, session, token, renew_token, timeout)
        self.node_count = None
        self._conductor_watch = None  # what the task's reads of the conductors tell of their liveness (conductors)

    def count_nodes(self, nodes):
        """Record that ``nodes`` are every node Ironic holds (see node_count); returns them."""
        self.node_count = len(nodes)
        return nodes

    @property
    def poll_fields(self):
        """The summary, and what tells a node a conductor works on from a stranded one."""
        return NODE_SUMMARY_FIELDS + tuple(field for field, version in POLL_PROGRESS_FIELDS if self.supports(version))

    def conductors(self):
        """Every conductor Ironic knows, by each name a node's reservation gives it: {name: {'hostname',
        'conductor_group', 'alive' (Ironic's reading), 'dead' (on evidence), 'updated_at' (its last heartbeat),
        'taken_over'}} (see conductors.ConductorWatch.read); {} before CONDUCTORS_VERSION."""
        if not self.supports(CONDUCTORS_VERSION):
            return {}
        if self._conductor_watch is None:
            # Only a task that has reason to doubt a conductor reads them.
            self._conductor_watch = ConductorWatch()
        params = {'fields': 'hostname,conductor_group,alive,updated_at', 'limit': PAGE_LIMIT}
        return self._conductor_watch.read(self.request('GET', '/conductors', params=params).get('conductors', []))

    def poll_nodes(self, last_seen, transient_states, agent_states=(), landing=None):
        """The latest view of the given nodes ({uuid: node as last seen}); a node that is gone is left out.

        Reads in proportion to the nodes in play, not to the size of Ironic. When Ironic holds at most
        POLL_LIST_ALL_RATIO nodes per node in play, one list reads them all. Otherwise nodes last seen in the same
        one of ``transient_states`` (where the conductor moves a node on by itself: a resting state may hold most of
        Ironic) are listed with a provision_state filter (one request for all of them). The others may have landed:
        ``landing`` ({uuid: the resting state its step lands in}) names where, and those of one landing state are
        looked for in one list of its latest landed (_landed). A node found in none of these lists is read with its
        own GET.

        A node last seen in one of ``agent_states`` (where an agent may run on it: the wait states) is read with its
        driver_internal_info, of which only its agent's last heartbeat is kept: ``agent_heartbeat``
        (heartbeat_seen), absent when Ironic recorded none. Only those reads ask for it, so a poll while such a node
        is in play reads by state, never every node of Ironic with it.
        """
        waiting = any(node.get('provision_state') in agent_states for node in last_seen.values())
        if (len(last_seen) > 1 and self.node_count is not None and not waiting
                and self.node_count <= POLL_LIST_ALL_RATIO * len(last_seen)):
            return dict((node['uuid'], node) for node in self.count_nodes(self.list_nodes(fields=self.poll_fields))
                        if node['uuid'] in last_seen)
        by_state = {}
        for uuid, node in last_seen.items():
            by_state.setdefault(node.get('provision_state'), []).append(uuid)
        latest = {}
        alone = []
        for state, uuids in by_state.items():
            if len(uuids) < POLL_LIST_MIN_NODES or state not in transient_states:
                alone.extend(uuids)
                continue
            wanted = set(uuids)
            in_state = self._with_heartbeats(self.list_nodes(fields=self._polled_fields(state in agent_states),
                                                             provision_state=state))
            listed = dict((node['uuid'], node) for node in in_state if node['uuid'] in wanted)
            latest.update(listed)
            alone.extend(uuid for uuid in uuids if uuid not in listed)
        may_have_landed = [uuid for uuid in alone if last_seen[uuid].get('provision_state') not in agent_states]
        latest.update(self._landed(may_have_landed, landing or {}))
        for uuid in (uuid for uuid in alone if uuid not in latest):
            node = self.find_node(uuid, self._polled_fields(last_seen[uuid].get('provision_state') in agent_states))
            if node is not None:
                latest[uuid] = self._with_heartbeats([node])[0]
        return latest

    def _landed(self, uuids, landing):
        """Those of the nodes (uuids) found in their landing state ({uuid: state}), by node: for each state at
        least POLL_LIST_MIN_NODES of them land in, one list of the nodes that came to it last (provision_updated_at,
        newest first), POLL_LANDED_FACTOR times as many as are looked for, at most a page."""
        by_landing = {}
        for uuid in uuids:
            if landing.get(uuid):
                by_landing.setdefault(landing[uuid], set()).add(uuid)
        found = {}
        for state, wanted in by_landing.items():
            if len(wanted) < POLL_LIST_MIN_NODES:
                continue
            first = min(POLL_LANDED_FACTOR * len(wanted), PAGE_LIMIT)
            landed, _all = self.list_nodes(fields=self.poll_fields, first=first, provision_state=state,
                                           sort_key='provision_updated_at', sort_dir='desc')
            found.update((node['uuid'], node) for node in landed if node['uuid'] in wanted)
        return found

    def _polled_fields(self, agent):
        """poll_fields, and with ``agent`` (a node an agent may run on) what tells its agent's last heartbeat."""
        field, version = AGENT_HEARTBEAT_FIELD
        return self.poll_fields + ((field,) if agent and self.supports(version) else ())

    def _with_heartbeats(self, nodes):
        """The nodes just read, each driver_internal_info replaced by what it tells of the agent's last heartbeat
        (heartbeat_seen; nothing when Ironic recorded none): nothing else of it is kept, the agent's token least."""
        field = AGENT_HEARTBEAT_FIELD[0]
        for node in nodes:
            if field not in node:
                continue
            recorded = recorded_heartbeat(node.pop(field))
            if recorded is not None:
                node['agent_heartbeat'] = heartbeat_seen(recorded, self.answered_at())
        return nodes
