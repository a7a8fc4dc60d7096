# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What each Ironic offers: the one table of the collection's "needs API 1.x" and "from Ironic N" rules.

Every rule of the kind is a row here, and the rest reads it: the client checks a request against the rows
(IronicClient.require), the planner keeps only the edges of the server's release (TRANSITION_SINCE), modules name
the version an option needs. A new verb, in-place action or request field is a row here beside its row in the
state table (engine/states.py); tests/unit/plugins/module_utils/ironic/test_capabilities.py fails on a row missing.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# The first API microversion: what every Ironic takes.
BASE_VERSION = (1, 1)

# The newest microversion this collection was written and tested against.
CLIENT_MAX_VERSION = (1, 115)

# Every provision verb (engine/states.VERBS) -> the lowest API microversion that accepts it: Ironic's
# MIN_VERB_VERSIONS (ironic/api/controllers/v1/utils.py), BASE_VERSION for the verbs it has no row for.
VERB_MIN_VERSION = {
    'active': BASE_VERSION,
    'deleted': BASE_VERSION,
    'rebuild': BASE_VERSION,
    'manage': (1, 4),
    'provide': (1, 4),
    'inspect': (1, 6),
    'abort': (1, 13),
    'clean': (1, 15),
    'adopt': (1, 17),
    'rescue': (1, 38),
    'unrescue': (1, 38),
    'unhold': (1, 85),
    'service': (1, 87),
    'deploy': (1, 73),
    'undeploy': (1, 73),
}

# Aborting 'wait call-back' needs this API version (ironic/api/controllers/v1/utils.py allow_deploy_abort), which
# came with the edge in Ironic 35.0 (TRANSITION_SINCE).
DEPLOY_WAIT_ABORT_VERSION = (1, 110)

# Lowest microversion for node fields and provision request fields (every request field of engine/states has a row).
FEATURE_MIN_VERSION = {
    'configdrive': BASE_VERSION,
    'clean_steps': (1, 15),
    'pxe_enabled': (1, 19),
    'local_link_connection': (1, 19),
    'resource_class': (1, 21),
    'power_timeout': (1, 27),
    'interfaces': (1, 31),
    'storage_interface': (1, 33),
    'physical_network': (1, 34),
    'traits': (1, 37),
    'rescue_password': (1, 38),
    'rescue_interface': (1, 38),
    'bios_interface': (1, 40),
    'reset_interfaces': (1, 45),
    'conductor_group': (1, 46),
    'automated_clean': (1, 47),
    'protected': (1, 48),
    'protected_reason': (1, 48),
    'owner': (1, 50),
    'description': (1, 51),
    'a config_drive dictionary': (1, 56),
    'retired': (1, 61),
    'retired_reason': (1, 61),
    'lessee': (1, 65),
    'deploy_steps': (1, 69),
    'shard': (1, 82),
    'firmware_interface': (1, 86),
    'service_steps': (1, 87),
    'runbook': (1, 92),
    'disable_power_off': (1, 95),
    'instance_name': (1, 104),
    'health': (1, 109),
    # A node's port groups (bonds), their fields, and a port's group (node/port_groups.py).
    'port_groups': (1, 23),
    'port_group': (1, 24),
    'port group mode': (1, 26),
    'port group properties': (1, 26),
    'port group physical_network': (1, 102),
    'port group category': (1, 103),
    'network_data': (1, 66),
    # Attached from 1.89, but read (what a declaration is compared with) only from 1.93.
    'virtual_media': (1, 93),
}

# Filters of GET /v1/nodes a selection (select:) may use: each came with its field, at that field's row of
# FEATURE_MIN_VERSION.
SELECTION_FILTERS = ('resource_class', 'conductor_group', 'owner', 'shard')

# What a poll reads beyond the node summary, with the version of each (see IronicClient.poll_fields): whether a
# conductor holds the node (which one), its progress, and its conductor group (only a live conductor of that group
# takes it over). Not the node's conductor field: a list asking for it fails (HTTP 500 on Ironic 39), and it names the
# conductor the hash ring maps the node to, never one Ironic already reports dead.
POLL_PROGRESS_FIELDS = (('reservation', (1, 8)), ('provision_updated_at', (1, 8)), ('clean_step', (1, 8)),
                        ('deploy_step', (1, 44)), ('service_step', (1, 87)), ('conductor_group', (1, 46)))

# What a poll reads of a node where an agent may run on it (IronicClient.poll_nodes): driver_internal_info, for the
# time its agent last heartbeated, the only thing kept of it (common/secrets.recorded_heartbeat). Not of every node:
# it holds the steps and the agent's cached steps (a GET of a node in 'clean wait' with the test agent: 909 bytes
# without, 2390 with; more with a real agent's step list; no difference in time measured on this scale).
AGENT_HEARTBEAT_FIELD = ('driver_internal_info', (1, 3))

# The conductors (GET /v1/conductors) and whether each is alive.
CONDUCTORS_VERSION = (1, 49)

# Node history (GET /v1/nodes/{node}/history).
HISTORY_VERSION = (1, 78)

# The inventory inspection stored (GET /v1/nodes/{node}/inventory).
INVENTORY_MIN_VERSION = (1, 81)

# Runbooks (/v1/runbooks); from 1.112 their traits say which nodes may run them, any name goes, and they have a
# description.
RUNBOOK_MIN_VERSION = (1, 92)
RUNBOOK_TRAITS_VERSION = (1, 112)

# Inspection rules (/v1/inspection_rules): conditions on the inventory an inspection found, and actions on the node.
INSPECTION_RULE_MIN_VERSION = (1, 96)
# Deploy templates (/v1/deploy_templates): deploy steps a node runs when its instance_info traits name the template.
DEPLOY_TEMPLATE_MIN_VERSION = (1, 55)

# Allocations (/v1/allocations, ironic/resources.py Allocations); what needs a newer API than the allocations themselves:
# the option, or the request, that needs it.
ALLOCATIONS_VERSION = (1, 52)

ALLOCATION_FIELD_VERSION = {
    'updating an allocation': (1, 57),
    'node': (1, 58),
    'owner': (1, 60),
}

# baremetal_runbook's options the server's API must be this new for.
RUNBOOK_OPTION_MIN_VERSION = {'traits': RUNBOOK_TRAITS_VERSION, 'description': RUNBOOK_TRAITS_VERSION}

# Lowest microversion for reading and recording BIOS, RAID and firmware configuration. Firmware components have their
# vendor, model and serial_number from 1.114 (Ironic adds them by itself).
HARDWARE_MIN_VERSION = {
    'target_raid_config': (1, 12),
    'BIOS settings': (1, 40),
    'the BIOS registry': (1, 74),
    'firmware components': (1, 86),
}

# What baremetal_node_info reads beside each node when its option of that name asks (one GET per node each), and
# the lowest microversion of each; BIOS settings have their registry's attributes from 'the BIOS registry' on.
NODE_FACET_VERSION = {
    'history': HISTORY_VERSION,
    'inventory': INVENTORY_MIN_VERSION,
    'firmware': HARDWARE_MIN_VERSION['firmware components'],
    'bios': HARDWARE_MIN_VERSION['BIOS settings'],
}

# Ironic releases, oldest first, each with the newest API microversion it serves (ironic/common/release_mappings.py;
# a point release not listed there serves its x.0's). The collection supports 2024.1 (Ironic 24.1) and newer.
SUPPORTED_RELEASE = (24, 1)
RELEASE_API_VERSIONS = (
    ((24, 1), (1, 90)),  # 2024.1
    ((25, 0), (1, 91)),
    ((26, 0), (1, 91)),
    ((26, 1), (1, 93)),  # 2024.2
    ((27, 0), (1, 94)),
    ((28, 0), (1, 95)),
    ((29, 0), (1, 96)),  # 2025.1
    ((29, 1), (1, 96)),
    ((30, 0), (1, 99)),
    ((31, 0), (1, 99)),
    ((32, 0), (1, 101)),  # 2025.2
    ((32, 1), (1, 101)),
    ((33, 0), (1, 104)),
    ((34, 0), (1, 109)),
    ((35, 0), (1, 111)),  # 2026.1
    ((35, 1), (1, 111)),
    ((36, 0), (1, 112)),
    ((37, 0), (1, 112)),
    ((38, 0), (1, 113)),
    ((39, 0), (1, 115)),  # 2026.2
)

# Edges of engine/states.TRANSITIONS that older releases lack -> the first Ironic release that has it (read in each
# release's ironic/common/states.py or state_machine.py). Every other edge is in every supported release. No new API
# version marks these, except 'wait call-back' abort (DEPLOY_WAIT_ABORT_VERSION).
TRANSITION_SINCE = {
    ('service failed', 'delete', 'deleting'): (29, 0),
    ('service wait', 'delete', 'deleting'): (29, 1),
    ('service failed', 'abort', 'active'): (32, 0),
    ('service failed', 'hold', 'service hold'): (32, 0),
    ('service failed', 'wait', 'service wait'): (32, 0),
    ('service hold', 'fail', 'service failed'): (32, 0),
    ('wait call-back', 'abort', 'deploy failed'): (35, 0),
}

# The newest API microversion of the oldest release the collection supports: what every supported Ironic serves.
SUPPORTED_API = dict(RELEASE_API_VERSIONS)[SUPPORTED_RELEASE]

# The release of a server older than every release listed: it has none of the edges of TRANSITION_SINCE.
OLDER_RELEASE = (0, 0)


def version_string(version):
    return '%d.%d' % version


def parse_version(text):
    major, minor = text.split('.')
    return int(major), int(minor)


def too_old(feature, minimum, version):
    """What a task says when ``feature`` needs API ``minimum`` and the server supports up to ``version``."""
    return ('%s needs Ironic API %s or newer; this server supports up to %s. Upgrade Ironic or leave %s out.'
            % (feature, version_string(minimum), version_string(version), feature))


def release_for_api(api_version):
    """The oldest release a server whose newest API microversion is ``api_version`` can be (OLDER_RELEASE before
    the first release listed).

    Releases that serve the same API cannot be told apart: the oldest of them is taken, so that an edge is only
    used where the server certainly has it.
    """
    release, release_api = OLDER_RELEASE, None
    for candidate, candidate_api in RELEASE_API_VERSIONS:
        if candidate_api > api_version:
            break
        if candidate_api != release_api:
            release, release_api = candidate, candidate_api
    return release


def release_name(release):
    return '%d.%d' % release


def describe_server(api_version):
    """The server in words, from its newest API microversion: 'Ironic 29.0 or 29.1 (API 1.96)'."""
    api = version_string(api_version)
    exact = [release_name(release) for release, release_api in RELEASE_API_VERSIONS if release_api == api_version]
    if exact:
        return 'Ironic %s (API %s)' % (' or '.join(exact), api)
    if release_for_api(api_version) == OLDER_RELEASE:
        return 'Ironic older than %s (API %s), which this collection does not support' % (
            release_name(SUPPORTED_RELEASE), api)
    newest = max(candidate for candidate, release_api in RELEASE_API_VERSIONS if release_api <= api_version)
    return 'Ironic newer than %s (API %s)' % (release_name(newest), api)
