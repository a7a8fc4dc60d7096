# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
name: ironic
short_description: OpenStack Ironic bare metal nodes as inventory hosts
version_added: 0.1.0
description:
  - Lists the nodes of an Ironic, following its pagination, and makes each one a host named after the node
    (its UUID when it has no name).
  - Only files named C(ironic.yml) or C(ironic.yaml), or whose names end in C(.ironic.yml) or C(.ironic.yaml), are
    read by this plugin.
  - "Host variables come from the node's fields, prefixed with C(ironic_): C(ironic_uuid), C(ironic_name),
    C(ironic_provision_state), C(ironic_power_state), C(ironic_maintenance), C(ironic_maintenance_reason),
    C(ironic_resource_class), C(ironic_conductor_group), C(ironic_driver), C(ironic_driver_info),
    C(ironic_traits), C(ironic_properties), C(ironic_extra), C(ironic_owner), C(ironic_lessee),
    C(ironic_description) and C(ironic_health) (Ironic API 1.109; absent where Ironic is older); and C(ansible_host)
    when O(host_address) gives one."
  - Secrets never become variables, nor reach the inventory cache. Secret values of C(ironic_driver_info)
    (passwords, keys, tokens) are masked, and of C(instance_info) only the key O(host_address) names is read.
  - "Every host is in the group C(ironic) and in these groups, built from its fields with every character that
    is not a letter, a digit or C(_) replaced by C(_): C(provision_state_<state>) (for example
    C(provision_state_clean_failed)); C(in_maintenance) or C(not_in_maintenance);
    C(resource_class_<class>) when it has a resource class; C(conductor_group_<group>) when its conductor group
    is not the default (empty) one; C(trait_<trait>) for each of its traits (for example C(trait_CUSTOM_GPU));
    C(health_<health>) when Ironic knows the hardware's health (C(health_OK), C(health_Warning) or C(health_Critical);
    Ironic API 1.109, from BMCs that report it)."
  - "Hosts are the servers: the plugin sets no connection, so a play on them reaches each deployed server the way
    Ansible reaches any host (SSH by default), at the address O(host_address) gives, like the hosts of other cloud
    inventories. Tasks of this collection, which talk to Ironic, run on the controller with
    C(delegate_to: localhost), or in a play on C(localhost) that names the nodes of a group in C(nodes:)
    (see EXAMPLES). O(controller_connection) restores the connection of earlier versions, where every host ran its
    tasks on the controller."
  - Strings read from Ironic are never templated.
  - A key of the inventory file that is no option of this plugin (a misspelled V(host_adress)), and an option value
    of another type than the option's (a list for a string, a list as a value of O(filters)), fail the inventory
    naming the key and the fix, before Ironic is asked anything. Ansible itself ignores unknown keys of an inventory
    plugin's file.
author:
  - baremetal.lifecycle maintainers (@baremetal-lifecycle)
extends_documentation_fragment:
  - constructed
  - inventory_cache
  - baremetal.lifecycle.connection
options:
  plugin:
    description:
      - The name of this plugin; marks the file as a configuration of it.
    type: str
    required: true
    choices: [baremetal.lifecycle.ironic]
  host_address:
    description:
      - Where each host's C(ansible_host), the address Ansible connects to, comes from.
      - V(none) sets no C(ansible_host); Ansible connects to the host's name (the node's name, or its UUID).
      - V(extra:<key>) takes the text under a key of the node's C(extra), for example V(extra:ssh_address).
      - V(instance_info:<key>) takes the text under a key of the node's C(instance_info). Only that key is kept;
        the rest of C(instance_info), which may hold secrets, never becomes a variable nor reaches the cache.
      - A node without a text under the key gets no C(ansible_host). A key named like a secret (holding
        C(password), C(token), C(key), C(secret) and the like) is refused.
      - To connect to an address computed otherwise, for example a DNS name built from the node's name, set
        C(ansible_host) with O(compose), which wins over this option (see EXAMPLES). Ironic's ports hold MAC
        addresses, which this plugin does not read; keep the IP address a port leased in C(extra).
    type: str
    default: none
    version_added: 0.2.0
  controller_connection:
    description:
      - "When V(true), the group C(ironic) has the variables C(ansible_connection: local) and
        C(ansible_python_interpreter: '{{ ansible_playbook_python }}'), so that every host runs its tasks on the
        controller, with Ansible's own Python, as in versions before 0.2.0. Tasks that talk to Ironic then need no
        C(delegate_to), but no task reaches the servers themselves, and a task aimed at a group runs on the
        controller once per node."
      - Override these variables in C(group_vars/ironic), or per host with O(compose).
    type: bool
    default: false
    version_added: 0.2.0
  filters:
    description:
      - Only list the nodes that match these query parameters of Ironic's node list, for example
        C(provision_state), C(maintenance), C(resource_class), C(conductor_group), C(shard) (Ironic API 1.82),
        C(owner), C(lessee) or C(driver). With one play per shard or conductor group, each inventory holds
        only the nodes that play drives.
      - Booleans are sent as V(true) or V(false), and C(conductor_group) in lower case, as Ironic stores it.
    type: dict
    default: {}
notes:
  - O(cloud) falls back to the E(OS_CLOUD) environment variable, like the modules of this collection.
seealso:
  - module: baremetal.lifecycle.baremetal_node_info
  - module: baremetal.lifecycle.baremetal_provision_state
'''

EXAMPLES = r'''
# nodes.ironic.yml: every node of the embedded Ironic; each host is a server, reached at the address its extra
# holds under ssh_address (set with baremetal.lifecycle.baremetal_node: extra: {ssh_address: 192.0.2.17})
plugin: baremetal.lifecycle.ironic
cloud: baremetal-lifecycle-local
host_address: extra:ssh_address

# Two kinds of plays on the same hosts (ansible-playbook -i nodes.ironic.yml site.yml):
# - Lifecycle tasks talk to Ironic, so they run on the controller: delegate them to localhost, one task per node
#   - hosts: provision_state_manageable
#     gather_facts: false
#     tasks:
#       - name: Make each manageable node available
#         baremetal.lifecycle.baremetal_provision_state:
#           cloud: baremetal-lifecycle-local
#           node: "{{ inventory_hostname }}"
#           state: available
#         delegate_to: localhost
#   or run one task on localhost for all the nodes of a group, which Ironic then moves together
#   - hosts: localhost
#     gather_facts: false
#     tasks:
#       - name: Make every manageable node available
#         baremetal.lifecycle.baremetal_provision_state:
#           cloud: baremetal-lifecycle-local
#           nodes: "{{ groups['provision_state_manageable'] | default([]) }}"
#           state: available
# - Configuration tasks run on the deployed servers themselves, over SSH
#   - hosts: provision_state_active
#     remote_user: cloud-user
#     tasks:
#       - name: Keep chrony installed
#         ansible.builtin.package:
#           name: chrony
#           state: present
#         become: true

# More inventory files, as comments (EXAMPLES is one YAML document):
# ---
# # rack1.ironic.yml: the nodes of one conductor group, cached, with a group per owner; the address comes from
# # instance_info (only that key is read) unless the rack's DNS names the node
# plugin: baremetal.lifecycle.ironic
# endpoint: http://127.0.0.1:6385
# host_address: instance_info:ssh_address
# filters:
#   conductor_group: rack1
# cache: true
# cache_plugin: ansible.builtin.jsonfile
# cache_connection: ~/.cache/ansible-ironic-inventory
# keyed_groups:
#   - key: ironic_owner
#     prefix: owner
#     default_value: none
# groups:
#   gpu: "'CUSTOM_GPU' in ironic_traits"
# compose:
#   rack: ironic_extra.rack | default('unknown')
#   # compose wins over host_address; an expression that fails (no dns_name in extra) sets nothing
#   ansible_host: ironic_extra.dns_name
#
# ---
# # dns.ironic.yml: each server reached at a name the site's DNS gives it, computed with compose. Ironic's ports
# # hold MAC addresses, which this plugin does not read: to reach the address a port leased, keep it in extra.
# plugin: baremetal.lifecycle.ironic
# cloud: baremetal-lifecycle-local
# compose:
#   ansible_host: ironic_name ~ '.mgmt.example.com'
#
# ---
# # local.ironic.yml: the behaviour of versions before 0.2.0, every host running its tasks on the controller
# plugin: baremetal.lifecycle.ironic
# cloud: baremetal-lifecycle-local
# controller_connection: true
'''

import os

from ansible.errors import AnsibleError, AnsibleParserError
from ansible.inventory.group import to_safe_group_name
from ansible.module_utils.basic import AnsibleFallbackNotFound
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.connection import client_from_params
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import view_fields
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import CONNECTION_ARGUMENT_SPEC
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import is_secret_name, masked, public_node
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import check_options
from ansible_collections.baremetal.lifecycle.plugins.plugin_utils._compat import trusted_template, untrusted
from ansible_collections.baremetal.lifecycle.plugins.plugin_utils.inventory_file import check_file

# The node fields that become host variables; driver_info is masked, instance_info is only requested for
# host_address, and only its chosen key is kept.
FIELDS = ('uuid', 'name', 'provision_state', 'power_state', 'maintenance', 'maintenance_reason', 'resource_class',
          'conductor_group', 'driver', 'driver_info', 'traits', 'properties', 'extra', 'owner', 'lessee',
          'description', 'health')
VAR_PREFIX = 'ironic_'
FILE_NAMES = ('ironic.yml', 'ironic.yaml')
FILE_SUFFIXES = ('.ironic.yml', '.ironic.yaml')
NAMING_RULE = ("baremetal.lifecycle.ironic reads only inventory files named ironic.yml or ironic.yaml, or whose "
               "names end in .ironic.yml or .ironic.yaml: rename %s (for example to nodes.ironic.yml).")
ALL_GROUP = 'ironic'
# The node fields host_address may take ansible_host from, as field:key.
ADDRESS_FIELDS = ('extra', 'instance_info')
CONTROLLER_GROUP_VARS = {
    'ansible_connection': 'local',
    # Ours, so trusted; nothing read from Ironic is ever templated.
    'ansible_python_interpreter': trusted_template('{{ ansible_playbook_python }}'),
}


def connection_params(get_option):
    """The shared connection options, with the modules' environment fallbacks (OS_CLOUD)."""
    params = {}
    for name, spec in CONNECTION_ARGUMENT_SPEC.items():
        value = get_option(name)
        fallback = spec.get('fallback')
        if value is None and fallback:
            function, arguments = fallback
            try:
                value = function(*arguments)
            except AnsibleFallbackNotFound:
                pass
        params[name] = value
    return params


def address_source(host_address):
    """The (field, key) host_address names, or None for none; an unknown form or a secret-named key is refused."""
    if host_address == 'none':
        return None
    field, _colon, key = host_address.partition(':')
    if field not in ADDRESS_FIELDS or not key:
        raise AnsibleParserError('baremetal.lifecycle.ironic: host_address must be none, or extra: or instance_info: '
                                 'followed by the key that holds the address (extra:ssh_address), got %r.'
                                 % host_address)
    if is_secret_name(key):
        raise AnsibleParserError('baremetal.lifecycle.ironic: host_address names %s key %r, which is named like a '
                                 'secret: its value never becomes a variable. Choose the key that holds the '
                                 'address.' % (field, key))
    return field, key


def requested_fields(source):
    """The node fields to ask Ironic for: FIELDS, and instance_info only when the address is read from it."""
    return FIELDS + ((source[0],) if source and source[0] not in FIELDS else ())


def host_vars(node, source=None):
    """The variables of one node's host: its public fields, prefixed, and ansible_host when source gives one."""
    variables = dict((VAR_PREFIX + field, value) for field, value in public_node(node, view_fields(node, FIELDS)).items())
    variables[VAR_PREFIX + 'traits'] = list(node.get('traits') or [])
    if source:
        field, key = source
        address = masked((node.get(field) or {}).get(key))
        if isinstance(address, str) and address:
            variables['ansible_host'] = address
    return variables


def node_groups(variables):
    """The built-in groups of a host, unsanitized."""
    groups = ['provision_state_%s' % variables['ironic_provision_state'],
              'in_maintenance' if variables['ironic_maintenance'] else 'not_in_maintenance']
    if variables['ironic_resource_class']:
        groups.append('resource_class_%s' % variables['ironic_resource_class'])
    if variables['ironic_conductor_group']:
        groups.append('conductor_group_%s' % variables['ironic_conductor_group'])
    groups.extend('trait_%s' % trait for trait in variables['ironic_traits'])
    if variables.get('ironic_health'):
        groups.append('health_%s' % variables['ironic_health'])
    return groups


class InventoryModule(BaseInventoryPlugin, Constructable, Cacheable):

    NAME = 'baremetal.lifecycle.ironic'

    # Node fields hold spaces ('clean failed') and dashes ('wait call-back'): always replace, quietly,
    # so that group names are usable in patterns and as variable names whatever the global setting.
    @staticmethod
    def _sanitize_group_name(name):
        return to_safe_group_name(name, force=True, silent=True)

    def verify_file(self, path):
        if not super(InventoryModule, self).verify_file(path):
            return False
        if os.path.basename(path) in FILE_NAMES or path.endswith(FILE_SUFFIXES):
            return True
        if path.endswith(('.yml', '.yaml')):
            # Asked by the auto plugin (the file names this plugin), the rule replaces its bare "could not be
            # verified"; the inventory manager, asking every plugin, takes an error as a refusal.
            raise AnsibleParserError(NAMING_RULE % path)
        return False

    def set_options(self, task_keys=None, var_options=None, direct=None):
        """The options of the inventory file (direct), refused whole when inventory_file.check_file finds a problem."""
        check_file(direct, self._load_name)
        super(InventoryModule, self).set_options(task_keys=task_keys, var_options=var_options, direct=direct)

    def parse(self, inventory, loader, path, cache=True):
        super(InventoryModule, self).parse(inventory, loader, path, cache)
        self._read_config_data(path)
        source = address_source(self.get_option('host_address'))
        cache_key = self.get_cache_key(path)
        use_cache = self.get_option('cache')
        hosts = None
        if use_cache and cache:
            hosts = self._cache.get(cache_key)
        if hosts is None:
            hosts = self._fetch(source)
            if use_cache:
                self._cache[cache_key] = hosts
        self._populate(hosts)

    def _fetch(self, source):
        """Host variables of every node, ready for the cache: nothing secret in them."""
        filters = dict((name, str(value).lower() if isinstance(value, bool) else value)
                       for name, value in self.get_option('filters').items())
        try:
            params = connection_params(self.get_option)
            check_options(params)
            client = client_from_params(params)
            nodes = client.list_nodes(fields=requested_fields(source), **filters)
        except BaremetalError as exc:
            raise AnsibleError('baremetal.lifecycle.ironic: %s' % exc)
        return [host_vars(node, source) for node in nodes]

    def _populate(self, hosts):
        self.inventory.add_group(ALL_GROUP)
        if self.get_option('controller_connection'):
            for name, value in CONTROLLER_GROUP_VARS.items():
                self.inventory.set_variable(ALL_GROUP, name, value)
        strict = self.get_option('strict')
        for variables in sorted(hosts, key=lambda item: (item['ironic_name'] or '', item['ironic_uuid'])):
            host = self.inventory.add_host(variables['ironic_name'] or variables['ironic_uuid'], group=ALL_GROUP)
            variables = untrusted(variables)
            for name, value in variables.items():
                self.inventory.set_variable(host, name, value)
            for group in node_groups(variables):
                self.inventory.add_child(self.inventory.add_group(self._sanitize_group_name(group)), host)
            self._set_composite_vars(self.get_option('compose'), variables, host, strict=strict)
            self._add_host_to_composed_groups(self.get_option('groups'), variables, host, strict=strict)
            self._add_host_to_keyed_groups(self.get_option('keyed_groups'), variables, host, strict=strict)
