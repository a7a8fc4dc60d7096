# -*- coding: utf-8 -*-
"""Bad input, everywhere: every wrong invocation in CASES fails with a message that names the problem and the
fix, and Ironic receives no request that changes anything (no non-GET request in its API log).

CASES is the list; docs/bad-input.md renders it (``python tests/integration/test_bad_input.py > docs/bad-input.md``,
kept in sync by test_the_documented_table_is_this_table). An empty ``nodes:`` list is not an error: it is an
explicit no-op whose result says so (test_an_empty_nodes_list_is_a_no_op_that_says_so).
"""

from __future__ import annotations

import collections
import os
import sys
import uuid

import pytest

from nodes import RawIronic
from test_preconditions import allocated_node

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, 'docs', 'bad-input.md')

# where: a module name, 'inventory' (a *.ironic.yml file), or 'role:<name>' (the role's variables).
# args: the module's arguments, the inventory file or the role's variables; {enrolled}, {enrolled_uuid} and
# {other_uuid} stand for nodes of the fixture `nodes`, {tmp} for the test's temporary directory. expected: parts of the error message.
Case = collections.namedtuple('Case', 'where what args expected')

PS = 'baremetal_provision_state'
NODE = 'baremetal_node'
RULE = 'baremetal_inspection_rule'
TRAIT = {'op': 'add-trait', 'args': {'name': 'CUSTOM_BAD_INPUT'}}
NEW = 'bad-input-new-node'  # never created: every case that names it fails first
STEP = {'interface': 'deploy', 'step': 'erase_devices_metadata'}
DEPLOY_STEP = {'interface': 'deploy', 'step': 'write_image', 'args': {}, 'priority': 80}
REDFISH = {'redfish_address': 'http://127.0.0.1:9', 'redfish_password': 'bad-input-secret'}
FLEET_NODE = {'name': NEW, 'driver': 'fake-hardware'}
DT = 'baremetal_deploy_template'
NEW_TEMPLATE = 'CUSTOM_BAD_INPUT_NEW'  # never created
DEPLOY_TEMPLATE_STEP = {'interface': 'bios', 'step': 'apply_configuration', 'priority': 150, 'args': {'settings': []}}
REPORT = 'baremetal_fleet_report'
FIRMWARE_URL = 'http://127.0.0.1:9/bmc.bin'
BMC_TARGET = {'component': 'bmc', 'version': '2.10', 'url': FIRMWARE_URL}
MODEL = {'name': 'Contoso R640', 'match': {'vendor': 'Contoso', 'model': 'R640'}, 'components': [BMC_TARGET]}
STONE_2_5, STONE_2_8, STONE_2_10 = ({'version': version, 'url': FIRMWARE_URL} for version in ('2.5', '2.8', '2.10'))
SECRET_FIRMWARE_URL = 'http://admin:bad-input-secret@127.0.0.1:9/bmc.bin'
CAMPAIGN = 'baremetal_firmware_campaign'

CASES = [
    # -- baremetal_provision_state ------------------------------------------------------------------------
    Case(PS, 'unknown state', {'node': '{enrolled}', 'state': 'deployed'},
         ['value of state must be one of: enroll, manageable, available, active, rescue, got: deployed']),
    Case(PS, 'a runbook Ironic does not hold', {'node': '{enrolled}', 'state': 'manageable',
                                                'runbook': 'CUSTOM_BAD_INPUT_NO_SUCH_RUNBOOK'},
         ['runbook CUSTOM_BAD_INPUT_NO_SUCH_RUNBOOK does not exist in Ironic. Correct the name, or declare the runbook '
          'with baremetal.lifecycle.baremetal_runbook.']),
    Case(PS, "an erase the node's deploy interface cannot run",
         {'node': '{enrolled}', 'state': 'manageable', 'erase': 'metadata', 'allow_destructive': True},
         ["erase needs deploy.erase_devices_metadata, which this node's deploy_interface 'fake' does not offer. Set "
          'deploy_interface to one that offers it with baremetal.lifecycle.baremetal_node, or leave erase out.']),
    Case(PS, 'node and nodes together', {'node': '{enrolled}', 'nodes': ['{enrolled}'], 'state': 'manageable'},
         ['mutually exclusive: node|nodes']),
    Case(PS, 'neither node nor nodes', {'state': 'manageable'}, ['one of the following is required: node, nodes']),
    Case(PS, 'timeout of zero', {'node': '{enrolled}', 'state': 'manageable', 'timeout': 0},
         ['timeout must be at least 1, got 0.']),
    Case(PS, 'negative timeout', {'node': '{enrolled}', 'state': 'manageable', 'timeout': -5},
         ['timeout must be at least 1, got -5.']),
    Case(PS, 'timeout that is not a number', {'node': '{enrolled}', 'state': 'manageable', 'timeout': 'soon'},
         ["'timeout' is of type", 'unable to convert to int']),
    Case(PS, 'concurrency of zero', {'nodes': ['{enrolled}'], 'state': 'manageable', 'concurrency': 0},
         ['concurrency must be at least 1, got 0.']),
    Case(PS, 'max_fail_percentage above 100', {'nodes': ['{enrolled}'], 'state': 'manageable',
                                               'max_fail_percentage': 150},
         ['max_fail_percentage must be between 0 and 100, got 150']),
    Case(PS, 'negative max_fail_percentage', {'nodes': ['{enrolled}'], 'state': 'manageable',
                                              'max_fail_percentage': -1},
         ['max_fail_percentage must be between 0 and 100, got -1']),
    Case(PS, 'api_timeout of zero', {'node': '{enrolled}', 'state': 'manageable', 'api_timeout': 0},
         ['api_timeout must be at least 1, got 0.']),
    Case(PS, 'adopt that is not a boolean', {'node': '{enrolled}', 'state': 'active', 'adopt': 'maybe'},
         ["'adopt' is of type", 'unable to convert to bool']),
    Case(PS, 'clean step on an unknown interface (the node would be managed first)',
         {'node': '{enrolled}', 'state': 'manageable', 'clean_steps': [dict(STEP, interface='disk')]},
         ["clean_steps[0].interface 'disk' is not an interface of clean steps", 'use one of bios, deploy']),
    Case(PS, 'clean step without its step name', {'node': '{enrolled}', 'state': 'manageable',
                                                  'clean_steps': [{'interface': 'deploy'}]},
         ["clean_steps[0] lacks 'step': every clean step needs interface, step."]),
    Case(PS, 'clean step with a misspelled key', {'node': '{enrolled}', 'state': 'manageable',
                                                  'clean_steps': [dict(STEP, arg={})]},
         ["clean_steps[0] has the unknown key 'arg' (did you mean 'args'?)"]),
    Case(PS, 'clean step that is a string', {'node': '{enrolled}', 'state': 'manageable',
                                             'clean_steps': ['erase_devices_metadata']},
         ['clean_steps', 'dict']),
    Case(PS, 'empty clean step list', {'node': '{enrolled}', 'state': 'manageable', 'clean_steps': []},
         ['clean_steps is an empty list: give at least one step, or leave clean_steps out.']),
    Case(PS, 'deploy step without priority and args (the node would be cleaned first)',
         {'node': '{enrolled}', 'state': 'active', 'deploy_steps': [STEP]},
         ["deploy_steps[0] lacks 'args'", "deploy_steps[0] lacks 'priority'"]),
    Case(PS, 'deploy step with a negative priority', {'node': '{enrolled}', 'state': 'active',
                                                      'deploy_steps': [dict(DEPLOY_STEP, priority=-1)]},
         ['deploy_steps[0].priority must be a whole number, 0 or more.']),
    Case(PS, 'deploy step whose args are not a dictionary', {'node': '{enrolled}', 'state': 'active',
                                                             'deploy_steps': [dict(DEPLOY_STEP, args='a=1')]},
         ['deploy_steps[0].args must be a dictionary of the step arguments, got a string.']),
    Case(PS, 'config drive text that is neither a URL nor base64',
         {'node': '{enrolled}', 'state': 'active', 'config_drive': '#cloud-config\npassword: x'},
         ['config_drive is text that is neither a URL nor base64']),
    Case(PS, 'config drive with a misspelled key', {'node': '{enrolled}', 'state': 'active',
                                                    'config_drive': {'metadata': {'hostname': 'n1'}}},
         ["config_drive has the unknown key 'metadata' (did you mean 'meta_data'?)"]),
    Case(PS, 'config drive whose user_data is a number', {'node': '{enrolled}', 'state': 'active',
                                                          'config_drive': {'user_data': 5}},
         ['config_drive.user_data must be text']),
    Case(PS, 'config drive that is a list', {'node': '{enrolled}', 'state': 'active',
                                             'config_drive': ['#cloud-config']},
         ['config_drive must be a URL, base64 text or a dictionary', 'got a list']),
    Case(PS, 'instance_info key Ironic cannot patch', {'node': '{enrolled}', 'state': 'active',
                                                       'instance_info': {'image/source': 'http://127.0.0.1:9/i'}},
         ["instance_info key 'image/source' cannot be managed"]),
    Case(PS, 'the same node twice in nodes', {'nodes': ['{enrolled}', '{enrolled}'], 'state': 'manageable'},
         ['nodes[1] names {enrolled} again (first in nodes[0]): list each node once.']),
    Case(PS, 'the same node by name and by UUID', {'nodes': ['{enrolled}', '{enrolled_uuid}'], 'state': 'manageable'},
         ['nodes names node {enrolled_uuid} more than once', 'list each node once']),
    Case(PS, 'nodes element with an unknown key', {'nodes': [{'node': '{enrolled}', 'target': 'active'}],
                                                   'state': 'manageable'},
         ['nodes[0] must be a name, a UUID, or a dictionary with node and optionally state']),
    Case(PS, 'nodes element with a misspelled key', {'nodes': [{'node': '{enrolled}', 'stat': 'active'}],
                                                     'state': 'manageable'},
         ["'stat' is not one of them (did you mean 'state'?)"]),
    Case(PS, 'wave size of no node', {'node': '{enrolled}', 'state': 'manageable', 'wave_size': '0'},
         ['wave_size must be a whole number of nodes from 1 (such as 10) or a percentage above 0 and up to 100']),
    Case(PS, 'a pause between waves without waves', {'nodes': ['{enrolled}'], 'state': 'manageable', 'wave_pause': 30},
         ['wave_pause (30 s) is the pause between two waves, and without wave_size the task runs no waves. Set '
          'wave_size (such as 10, or "25%" of the nodes that change), or leave wave_pause out.']),
    Case(PS, 'nodes element with an unknown state', {'nodes': [{'node': '{enrolled}', 'state': 'deployed'}],
                                                     'state': 'manageable'},
         ["nodes[0].state must be one of enroll, manageable, available, active, rescue, not 'deployed'"]),
    Case(PS, 'non-ASCII node name', {'node': 'nœud-1', 'state': 'manageable'},
         ["node 'nœud-1' is not a node name Ironic accepts", "letters, digits, '.', '_', '~' or '-'"]),
    Case(PS, 'huge node name', {'node': 'x' * 5000, 'state': 'manageable'},
         ["'xxxxxxxxxx", '... (5000 characters) is not a node name Ironic accepts']),
    Case(PS, 'unknown node', {'node': 'no-such-node-bad-input', 'state': 'manageable'},
         ["No node is named or has the UUID 'no-such-node-bad-input'", 'baremetal_node_info']),
    Case(PS, 'adopt with a state other than active', {'node': '{enrolled}', 'state': 'manageable', 'adopt': True},
         ["adopt: true only applies to state: active, not 'manageable'."]),
    Case(PS, 'rebuild with a state other than active', {'node': '{enrolled}', 'state': 'available', 'rebuild': True},
         ["rebuild needs state: active, not 'available': declare that state, or leave rebuild out."]),
    Case(PS, 'rescue without rescue_password', {'node': '{enrolled}', 'state': 'rescue'},
         ['set rescue_password']),
    Case(PS, 'a selection that sets no filter', {'select': {}, 'state': 'manageable'},
         ['select sets no filter, and an empty selection is never every node', 'select: {all: true}']),
    Case(PS, 'a selection whose filters all came out null', {'select': {'resource_class': None}, 'state': 'manageable'},
         ['select sets no filter', 'Set a filter (such as select.resource_class)']),
    Case(PS, 'a selection filter that is an empty string', {'select': {'resource_class': ''}, 'state': 'manageable'},
         ['select.resource_class is an empty string: give the value to filter on, or leave resource_class out.']),
    # -- baremetal_node -----------------------------------------------------------------------------------
    Case(NODE, "name that is another node's UUID", {'name': '{other_uuid}', 'description': 'hijack'},
         ['name {other_uuid} is a UUID, and Ironic node names cannot be UUIDs']),
    Case(NODE, "deleting by another node's UUID as name", {'name': '{other_uuid}', 'state': 'absent'},
         ['Ironic node names cannot be UUIDs']),
    Case(NODE, 'name with a space', {'name': 'rack 1', 'driver': 'fake-hardware'},
         ["name 'rack 1' is not a node name Ironic accepts"]),
    Case(NODE, 'uuid that is not a UUID', {'name': NEW, 'driver': 'fake-hardware', 'uuid': 'abc'},
         ["uuid 'abc' is not a UUID"]),
    Case(NODE, 'malformed MAC address', {'name': NEW, 'driver': 'fake-hardware',
                                         'ports': [{'address': '52:54:00:12:34'}]},
         ["ports[0].address '52:54:00:12:34' is not a MAC address", 'for example 52:54:00:12:34:56']),
    Case(NODE, 'the same MAC address twice', {'name': NEW, 'driver': 'fake-hardware',
                                              'ports': [{'address': '52:54:00:aa:bb:01'},
                                                        {'address': '52:54:00:AA:BB:01'}]},
         ['ports[1].address 52:54:00:aa:bb:01 is listed twice']),
    Case(NODE, 'a port naming a port group not declared', {'name': NEW, 'driver': 'fake-hardware', 'port_groups': [],
                                                           'ports': [{'address': '52:54:00:aa:bb:02',
                                                                      'port_group': 'bond0'}]},
         ["port 52:54:00:aa:bb:02 names port_group 'bond0', which port_groups does not declare"]),
    Case(NODE, 'a port group whose ports are on different physical networks',
         {'name': NEW, 'driver': 'fake-hardware', 'port_groups': [{'name': 'bond0'}],
          'ports': [{'address': '52:54:00:aa:bb:03', 'physical_network': 'provisioning', 'port_group': 'bond0'},
                    {'address': '52:54:00:aa:bb:04', 'port_group': 'bond0'}]},
         ['port group bond0 would hold ports on different physical networks (52:54:00:aa:bb:03: provisioning, '
          '52:54:00:aa:bb:04: none)', 'Give its ports the same physical_network.']),
    Case(NODE, 'a port group name with a space', {'name': NEW, 'driver': 'fake-hardware',
                                                  'port_groups': [{'name': 'bond 0'}]},
         ["port_groups[0].name 'bond 0' is not a port group name Ironic accepts"]),
    Case(NODE, 'network_data without its lists', {'name': NEW, 'driver': 'fake-hardware',
                                                  'network_data': {'links': []}},
         ['network_data lacks networks, services']),
    Case(NODE, 'virtual media from an ftp URL',
         {'name': '{enrolled}', 'virtual_media': [{'device_type': 'cdrom', 'image_url': 'ftp://127.0.0.1/boot.iso'}]},
         ['virtual_media[0].image_url ftp://127.0.0.1/boot.iso is not a URL Ironic attaches']),
    Case(NODE, 'virtual media without its image', {'name': '{enrolled}', 'virtual_media': [{'device_type': 'cdrom'}]},
         ['virtual_media[0] needs image_url']),
    Case(NODE, 'misspelled hardware type', {'name': NEW, 'driver': 'redfsh', 'driver_info': REDFISH},
         ["unknown driver 'redfsh' (did you mean 'redfish'?)"]),
    Case(NODE, 'misspelled driver_info key', {'name': NEW, 'driver': 'redfish',
                                              'driver_info': dict(REDFISH, redfish_pasword='x')},
         ["driver_info key 'redfish_pasword' is not known for hardware type 'redfish' (did you mean "
          "'redfish_password'?)"]),
    Case(NODE, 'required driver_info key missing', {'name': NEW, 'driver': 'redfish',
                                                    'driver_info': {'redfish_username': 'admin'}},
         ["driver_info key 'redfish_address' is required for hardware type 'redfish'"]),
    Case(NODE, 'hardware type Ironic does not enable', {'name': NEW, 'driver': 'ipmi',
                                                        'driver_info': {'ipmi_address': '127.0.0.1'}},
         ["Ironic does not enable the hardware type 'ipmi'"]),
    Case(NODE, 'trait that is not a trait name', {'name': NEW, 'driver': 'fake-hardware', 'traits': ['gpu']},
         ["trait 'gpu' is not a trait name", 'CUSTOM_']),
    Case(NODE, 'unknown interface name', {'name': NEW, 'driver': 'fake-hardware', 'interfaces': {'bot': 'fake'}},
         ['interfaces.bot']),
    Case(NODE, 'unknown state', {'name': NEW, 'state': 'gone'}, ['value of state must be one of: present, absent']),
    Case(NODE, 'negative timeout', {'name': NEW, 'timeout': -5}, ['timeout must be at least 1, got -5.']),
    Case(NODE, 'new node without a driver', {'name': NEW}, ['Node %s does not exist; set driver to enroll it.' % NEW]),
    Case(NODE, 'a maintenance_reason with maintenance false, which Ironic would not keep',
         {'name': '{enrolled}', 'maintenance': False, 'maintenance_reason': 'Fan noise'},
         ['maintenance_reason is only kept while maintenance is on, and maintenance: false (or state: disabled) takes '
          'the node out of maintenance: drop maintenance_reason, or set maintenance: true.']),
    Case(NODE, 'a protected_reason that holds a password, which Ironic would store as typed',
         {'name': '{enrolled}', 'protected_reason': 'BMC rotated, old password=Zq-bad-input-1'},
         ['protected_reason holds what reads as a secret', 'Ironic stores protected_reason as typed and shows it to '
          'anyone who can read the node. Remove the secret from protected_reason']),
    Case(NODE, 'deleting a node an allocation holds', {'name': '{allocated}', 'state': 'absent'},
         ['node {allocated} cannot be deleted: Ironic deletes a node that holds an allocation only in maintenance',
          'Release allocation {allocation} first (baremetal.lifecycle.baremetal_allocation name: {allocation}, '
          'state: absent)']),
    Case(NODE, 'changing the resource_class of an active node', {'name': '{active}', 'resource_class': 'bad-input-rc'},
         ["resource_class of node {active} cannot change to 'bad-input-rc': Ironic changes the resource_class of a "
          "node that has one only in enroll, inspecting, inspect wait, manageable or available, and it is 'active'",
          'Undeploy it first (baremetal.lifecycle.baremetal_provision_state state: manageable, allow_destructive: '
          'true), or leave resource_class out']),
    Case(NODE, 'changing an interface of an active node out of maintenance',
         {'name': '{active}', 'interfaces': {'deploy': 'direct'}},
         ["deploy_interface of node {active} cannot change to 'direct': Ironic changes a node's interfaces only in "
          "enroll, inspecting, inspect wait, manageable or available, or in maintenance, and it is 'active', not in "
          "maintenance", 'Set maintenance first (baremetal.lifecycle.baremetal_maintenance)']),
    Case(NODE, "changing a port's pxe_enabled on an available node",
         {'name': '{allocated}', 'ports': [{'address': '{allocated_port}', 'pxe_enabled': False}]},
         ["pxe_enabled of a port of node {allocated} cannot change: Ironic changes a port's pxe_enabled, "
          "physical_network, local_link_connection or port group only in enroll, inspecting, inspect wait or "
          "manageable, or in maintenance, and it is 'available'", 'Bring it to manageable first']),
    Case(NODE, 'resource_class given a list (Ansible would send its text)',
         {'name': '{enrolled}', 'resource_class': ['a', 'b']},
         ["resource_class must be a string, got a list (['a', 'b']): give one string, not a list (Ansible would send "
          "the text of the whole list to Ironic)."]),
    Case(NODE, 'a nodes element whose resource_class is a list',
         {'nodes': [{'name': '{enrolled}', 'resource_class': ['large']}]},
         ["nodes[0].resource_class must be a string, got a list (['large'])"]),
    Case(NODE, 'properties.cpus that is not a number', {'name': '{enrolled}', 'properties': {'cpus': 'eight'}},
         ["properties.cpus must be a whole number (Ironic documents cpus as an integer), got a string 'eight': write "
          "it as a number, such as cpus: 8."]),
    Case(NODE, 'an empty instance_name (Ironic takes 1 to 255 characters)', {'name': '{enrolled}', 'instance_name': ''},
         ["instance_name must be 1 to 255 characters long, and an empty string was given: Ironic refuses it. Give a "
          "value of that length, or leave instance_name out to keep the node's."]),
    # -- baremetal_power, baremetal_maintenance, baremetal_node_info --------------------------------------
    Case('baremetal_power', 'unknown power state', {'node': '{enrolled}', 'state': 'on'},
         ['value of state must be one of']),
    Case('baremetal_power', 'timeout of zero', {'node': '{enrolled}', 'state': 'powered_off', 'timeout': 0},
         ['timeout must be at least 1, got 0.']),
    Case('baremetal_power', 'unknown node', {'node': 'no-such-node-bad-input', 'state': 'powered_on'},
         ["No node is named or has the UUID 'no-such-node-bad-input'"]),
    Case('baremetal_maintenance', 'unknown maintenance state', {'node': '{enrolled}', 'state': 'yes'},
         ['value of state must be one of: enabled, disabled, got: yes']),
    Case('baremetal_maintenance', 'maintenance and state together, its two spellings',
         {'node': '{enrolled}', 'maintenance': True, 'state': 'enabled'},
         ['the task gives both maintenance and state, two spellings of one setting', 'keep maintenance only.']),
    Case('baremetal_maintenance', 'unknown node', {'node': 'no-such-node-bad-input', 'state': 'enabled'},
         ["No node is named or has the UUID 'no-such-node-bad-input'"]),
    Case('baremetal_maintenance', 'node name with a slash', {'node': '../nodes', 'state': 'enabled'},
         ["node '../nodes' is not a node name Ironic accepts"]),
    Case('baremetal_maintenance', 'every node and a filter together',
         {'select': {'all': True, 'owner': 'p1'}, 'state': 'enabled'},
         ['select.all: true selects every node, and select also sets owner: drop all']),
    Case('baremetal_maintenance', 'a reason with maintenance false, which Ironic would not keep',
         {'node': '{enrolled}', 'maintenance': False, 'reason': 'Fan noise'},
         ['reason is only kept while maintenance is on, and maintenance: false (or state: disabled) takes the node '
          'out of maintenance: drop reason, or set maintenance: true.']),
    Case('baremetal_maintenance', "an element's own reason where its maintenance is off",
         {'nodes': [{'node': '{enrolled}', 'state': 'disabled', 'reason': 'Fan noise'}], 'maintenance': True},
         ['nodes[0] ({enrolled}): reason is only kept while maintenance is on', 'drop reason, or set maintenance: '
          'true.']),
    Case('baremetal_maintenance', 'a reason that holds a password, which Ironic would store as typed',
         {'node': '{enrolled}', 'maintenance': True, 'reason': 'BMC rotated, old password=Zq-bad-input-1'},
         ['reason holds what reads as a secret', 'Ironic stores reason as typed and shows it to anyone who can read '
          'the node. Remove the secret from reason']),
    Case('baremetal_maintenance', 'timeout of zero', {'node': '{enrolled}', 'maintenance': True, 'timeout': 0},
         ['timeout must be at least 1, got 0.']),
    Case('baremetal_maintenance', 'negative timeout', {'nodes': ['{enrolled}'], 'maintenance': True, 'timeout': -5},
         ['timeout must be at least 1, got -5.']),
    Case('baremetal_node_info', 'node together with a filter', {'node': '{enrolled}', 'provision_state': 'enroll'},
         ['mutually exclusive: node|provision_state']),
    Case('baremetal_node_info', 'unknown provision state filter', {'provision_state': 'deployed'},
         ['value of provision_state must be one of']),
    Case('baremetal_node_info', 'mac that is not a MAC address', {'mac': '52:54:00:zz:01'},
         ["mac '52:54:00:zz:01' is not a MAC address; write six hexadecimal octets separated by colons"]),
    Case('baremetal_node_info', 'MAC address YAML read as a number (52:54:00:12:34:56 unquoted)', {'mac': 41135085296},
         ["mac '41135085296' is a number, not a MAC address", 'Quote it: "52:54:00:12:34:56".']),
    Case('baremetal_node_info', 'unknown node', {'node': 'no-such-node-bad-input'},
         ["No node is named or has the UUID 'no-such-node-bad-input'"]),
    Case('baremetal_node_info', 'endpoint without a scheme', {'cloud': None, 'endpoint': '127.0.0.1:6385'},
         ["endpoint '127.0.0.1:6385' has no scheme: write http://127.0.0.1:6385 (or https://127.0.0.1:6385 for TLS)."]),
    Case('baremetal_node_info', 'endpoint with a scheme other than http or https',
         {'cloud': None, 'endpoint': 'htp://127.0.0.1:6385'},
         ["endpoint 'htp://127.0.0.1:6385' has the scheme 'htp', and Ironic is reached over http or https: write "
          "http://127.0.0.1:6385"]),
    Case('baremetal_node_info', 'endpoint that is a bare host name', {'cloud': None, 'endpoint': 'ironic.example'},
         ["endpoint 'ironic.example' has no scheme: write http://ironic.example"]),
    Case('baremetal_node_info', 'auth_type that is no authentication plugin',
         {'cloud': None, 'endpoint': 'http://127.0.0.1:6385', 'auth_type': 'pasword'},
         ["auth_type 'pasword' is not an authentication plugin: use none or http_basic for a standalone Ironic"]),
    Case('baremetal_node_info', 'auth_type http_basic without credentials',
         {'cloud': None, 'endpoint': 'http://127.0.0.1:6385', 'auth_type': 'http_basic'},
         ["auth_type http_basic needs auth.username and auth.password"]),
    Case('baremetal_power', 'a select filter given a list',
         {'select': {'resource_class': ['a']}, 'state': 'powered_on'},
         ["select.resource_class must be a string, got a list (['a']): give one string, not a list"]),
    # -- baremetal_inspection_rule ------------------------------------------------------------------------
    Case(RULE, 'condition operator Ironic does not know',
         {'name': 'bad-input-rule', 'conditions': [{'op': 'is_empty', 'args': {'value': 'x'}}], 'actions': [TRAIT]},
         ["conditions[0].op 'is_empty' is not an operator of Ironic's inspection rules (did you mean 'is-empty'?); "
          "valid ones: contains, eq, gt, in-net, is-empty"]),
    Case(RULE, 'action with an argument it does not take',
         {'name': 'bad-input-rule', 'actions': [{'op': 'add-trait', 'args': {'trait': 'CUSTOM_X'}}]},
         ['actions[0].args of add-trait lacks name.', 'has trait, which add-trait does not take: it takes name.']),
    Case(RULE, 'priority above 9999', {'name': 'bad-input-rule', 'priority': 10000, 'actions': [TRAIT]},
         ['priority must be a whole number from 0 to 9999, got 10000.']),
    Case(RULE, 'a new rule without actions', {'name': 'bad-input-rule', 'priority': 1},
         ["inspection rule 'bad-input-rule' does not exist yet: give its actions to create it."]),
    Case(RULE, 'name and rules together', {'name': 'bad-input-rule', 'rules': [{'name': 'other'}]},
         ['parameters are mutually exclusive: rules|name']),
    # -- the inventory plugin -----------------------------------------------------------------------------
    Case('inventory', 'api_timeout of zero', {'api_timeout': 0}, ['api_timeout must be at least 1, got 0.']),
    Case('inventory', 'unknown filter value', {'filters': {'provision_state': 'deployed'}},
         ['Ironic refused GET /v1/nodes (HTTP 400)']),
    Case('inventory', 'filters that are not a dictionary', {'filters': ['active']}, ['filters']),
    Case('inventory', 'host_address of an unknown form', {'host_address': 'properties:ip'},
         ["host_address must be none, or extra: or instance_info: followed by the key that holds the address "
          "(extra:ssh_address), got 'properties:ip'."]),
    Case('inventory', 'host_address naming a secret key of instance_info',
         {'host_address': 'instance_info:image_pull_secret'},
         ["host_address names instance_info key 'image_pull_secret', which is named like a secret"]),
    Case('inventory', 'a misspelled key (host_adress)', {'host_adress': 'extra:ssh_address'},
         ["'host_adress' is not an option of baremetal.lifecycle.ironic (did you mean 'host_address'?): correct it or "
          "remove it."]),
    Case('inventory', 'a filter given a list', {'filters': {'resource_class': ['a', 'b']}},
         ["filters.resource_class must be one value (a string, a number, true or false), got a list (['a', 'b'])"]),
    # -- baremetal_deploy_template ------------------------------------------------------------------------
    Case(DT, 'name that is not a trait', {'name': 'hyperthreading-off', 'steps': [DEPLOY_TEMPLATE_STEP]},
         ["name 'hyperthreading-off' must be a trait: CUSTOM_ followed by capitals, digits and underscores"]),
    Case(DT, 'step with a negative priority', {'name': NEW_TEMPLATE, 'steps': [dict(DEPLOY_TEMPLATE_STEP, priority=-1)]},
         ['steps[0].priority must be a whole number, 0 or more.']),
    Case(DT, 'step without its priority', {'name': NEW_TEMPLATE, 'steps': [{'interface': 'bios', 'step': 'x'}]},
         ["steps[0] lacks 'priority': every deploy template step needs interface, step, priority."]),
    Case(DT, 'the same step twice', {'name': NEW_TEMPLATE, 'steps': [DEPLOY_TEMPLATE_STEP, DEPLOY_TEMPLATE_STEP]},
         ['steps has bios.apply_configuration 2 times; a deploy template may have each step of an interface only '
          'once.']),
    Case(DT, 'a new template without steps', {'name': NEW_TEMPLATE},
         ['deploy template %s does not exist yet: give its steps to create it.' % NEW_TEMPLATE]),
    Case(DT, 'name and templates together', {'name': NEW_TEMPLATE, 'templates': [{'name': NEW_TEMPLATE}]},
         ['mutually exclusive: name|templates']),
    Case(DT, 'a template declared twice in templates',
         {'templates': [{'name': NEW_TEMPLATE, 'steps': [DEPLOY_TEMPLATE_STEP]}, {'name': NEW_TEMPLATE, 'state': 'absent'}]},
         ['templates names %s 2 times; declare each template once.' % NEW_TEMPLATE]),
    # -- baremetal_hardware -------------------------------------------------------------------------------
    Case('baremetal_hardware', 'RAID on a RAID interface without RAID steps (fake-hardware\'s fake)',
         {'node': '{enrolled}', 'raid': {'logical_disks': [{'size_gb': 'MAX', 'raid_level': '1'}]}},
         ["raid_interface 'fake' does not offer", 'Set raid_interface to one that does with '
          'baremetal.lifecycle.baremetal_node']),
    # -- baremetal_fleet_report ---------------------------------------------------------------------------
    Case(REPORT, 'an empty firmware baseline', {'firmware_baseline': []},
         ['The firmware baseline is not valid; nothing was read: firmware_baseline is empty: give at least one model, '
          'each with match and components (or leave the option out).']),
    Case(REPORT, 'a firmware component Ironic does not record',
         {'firmware_baseline': [dict(MODEL, components=[dict(BMC_TARGET, component='cpld')])]},
         ["firmware_baseline[0] (Contoso R640).components[0].component 'cpld' is not a component Ironic records; use "
          "bios, bmc or nic:<id>"]),
    Case(REPORT, 'a stepping stone at the target version',
         {'firmware_baseline': [dict(MODEL, components=[dict(BMC_TARGET, stepping_stones=[STONE_2_10])])]},
         ["components[0].stepping_stones[0].version '2.10' is not below the target '2.10': the path cannot reach the "
          'target. A stepping stone is a version passed through on the way up; remove it or lower it.']),
    Case(REPORT, 'stepping stones out of order',
         {'firmware_baseline': [dict(MODEL, components=[dict(BMC_TARGET, stepping_stones=[STONE_2_8, STONE_2_5])])]},
         ["stepping_stones[1].version '2.5' does not come after '2.8': the path goes down. List the stepping stones "
          'lowest first, each once.']),
    Case(REPORT, 'a firmware image URL with a password in it',
         {'firmware_baseline': [dict(MODEL, components=[dict(BMC_TARGET, url=SECRET_FIRMWARE_URL)])]},
         ['components[0].url http://admin:********@127.0.0.1:9/bmc.bin holds a secret (a password or a signature in '
          'the URL)', 'Give a URL without it']),
    Case(REPORT, 'the same hardware model twice', {'firmware_baseline': [MODEL, dict(MODEL, name='R640 again')]},
         ['firmware_baseline[1] (R640 again).match is the match of firmware_baseline[0] (Contoso R640) too: a model is '
          'declared once. Merge the two.']),
    Case(REPORT, 'a firmware component twice in a model',
         {'firmware_baseline': [dict(MODEL, components=[BMC_TARGET, dict(BMC_TARGET, version='2.8')])]},
         ["components[1].component 'bmc' is declared twice in this model; keep one entry (put its intermediate "
          'versions in stepping_stones).']),
    Case(REPORT, 'a version YAML reads as a number',
         {'firmware_baseline': [dict(MODEL, components=[dict(BMC_TARGET, version=2.1)])]},
         ['components[0].version is the number 2.1, not text: YAML reads 2.10 as 2.1. Quote the version as the vendor '
          'writes it, for example version: "2.10".']),
    # -- baremetal_firmware_campaign ----------------------------------------------------------------------
    Case(CAMPAIGN, 'an empty firmware baseline', {'nodes': ['{enrolled}'], 'firmware_baseline': []},
         ['The firmware baseline is not valid; nothing was read: firmware_baseline is empty: give at least one model, '
          'each with match and components (or leave the option out).']),
    Case(CAMPAIGN, 'a stepping stone at the target version',
         {'nodes': ['{enrolled}'],
          'firmware_baseline': [dict(MODEL, components=[dict(BMC_TARGET, stepping_stones=[STONE_2_10])])]},
         ["components[0].stepping_stones[0].version '2.10' is not below the target '2.10': the path cannot reach the "
          'target.']),
    Case(CAMPAIGN, 'a stop_after that is neither a duration nor a time of day',
         {'nodes': ['{enrolled}'], 'firmware_baseline': [MODEL], 'stop_after': 'tomorrow'},
         ["stop_after 'tomorrow' is neither a duration (such as 2h, 30m or 1h30m, more than zero) nor a time of day in "
          'UTC (HH:MM, such as 06:00); give one of them. Nothing was read.']),
    Case(CAMPAIGN, 'a time of day past 23:59',
         {'nodes': ['{enrolled}'], 'firmware_baseline': [MODEL], 'stop_after': '24:30'},
         ["stop_after '24:30' is neither a duration"]),
    Case(CAMPAIGN, 'a group_by that is no node field to group by',
         {'nodes': ['{enrolled}'], 'firmware_baseline': [MODEL], 'group_by': 'rack'},
         ['value of group_by must be one of: conductor_group, resource_class, shard, owner, lessee, chassis_uuid, '
          'parent_node, got: rack']),
    Case(CAMPAIGN, 'no node named', {'firmware_baseline': [MODEL]},
         ['one of the following is required: node, nodes, select']),
    Case(CAMPAIGN, 'a NIC pattern other than nic:* (refused before any read)',
         {'nodes': ['{enrolled}'],
          'firmware_baseline': [dict(MODEL, components=[dict(BMC_TARGET, component='nic:AB*')])]},
         ['The firmware baseline is not valid; nothing was read:', "components[0].component 'nic:AB*' is not a "
          'component Ironic records; use bios, bmc or nic:<id>', 'or nic:* for every NIC the node records (the only '
          'pattern a baseline takes).']),
    # -- the roles ----------------------------------------------------------------------------------------
    Case('role:fleet', 'concurrency of zero (refused before any node is enrolled)',
         {'fleet_nodes': [FLEET_NODE], 'fleet_concurrency': 0}, ['fleet_concurrency must be at least 1, got 0.']),
    Case('role:fleet', 'max_fail_percentage above 100',
         {'fleet_nodes': [FLEET_NODE], 'fleet_max_fail_percentage': 101},
         ['fleet_max_fail_percentage must be between 0 and 100, got 101']),
    Case('role:fleet', 'a pause between waves without waves', {'fleet_nodes': [FLEET_NODE], 'fleet_wave_pause': 60},
         ['fleet_wave_pause (60 s) is the pause between two waves, and without fleet_wave_size the task runs no waves.']),
    Case('role:fleet', 'timeout of zero', {'fleet_nodes': [FLEET_NODE], 'fleet_timeout': 0},
         ['fleet_timeout must be at least 1, got 0.']),
    Case('role:fleet', 'node name that is a UUID', {'fleet_nodes': [dict(FLEET_NODE, name='{other_uuid}')]},
         ['fleet[0] ({other_uuid}): name: is a UUID, and Ironic node names cannot be UUIDs']),
    Case('role:fleet', 'the same node twice', {'fleet_nodes': [FLEET_NODE, FLEET_NODE]},
         ["fleet[1] (%s): name: '%s' is also declared by fleet[0]" % (NEW, NEW)]),
    Case('role:fleet', 'fleet_nodes and fleet_file together', {'fleet_nodes': [FLEET_NODE], 'fleet_file': '/dev/null'},
         ['Set fleet_nodes or fleet_file, not both.']),
    Case('role:fleet', 'unknown provision state', {'fleet_nodes': [FLEET_NODE], 'fleet_provision_state': 'deployed'},
         ['fleet_provision_state', 'deployed']),
    Case('role:fleet', 'a port address that is not a MAC address',
         {'fleet_nodes': [dict(FLEET_NODE, ports=[{'address': '52:54:00:12:34'}])]},
         ["fleet[0] (bad-input-new-node): ports[0].address '52:54:00:12:34' is not a MAC address; write six "
          'hexadecimal octets separated by colons, for example 52:54:00:12:34:56.']),
    Case('role:fleet', 'properties.cpus that is not a number (refused before any node is enrolled)',
         {'fleet_nodes': [dict(FLEET_NODE, properties={'cpus': 'eight'})]},
         ["fleet[0] (%s): properties.cpus must be a whole number (Ironic documents cpus as an integer), got a string "
          "'eight': write it as a number, such as cpus: 8." % NEW]),
    Case('role:fleet', 'a node in no slice of fleet_slices',
         {'fleet_nodes': [dict(FLEET_NODE, conductor_group='rack-z')], 'fleet_slices': {'rack-a': ['rack-a']},
          'fleet_slice': 'rack-a'},
         ["These nodes are in no slice of fleet_slices, so no slice would converge them: %s (conductor_group "
          "'rack-z'). Add their conductor_group to one slice of fleet_slices, or declare them in a conductor_group "
          "a slice has." % NEW]),
    Case('role:fleet', 'a node in two slices of fleet_slices',
         {'fleet_nodes': [dict(FLEET_NODE, conductor_group='rack-a')],
          'fleet_slices': {'one': ['rack-a'], 'two': ['rack-a']}, 'fleet_slice': 'one'},
         ["These nodes are in more than one slice of fleet_slices, so two slices would write them at once: %s "
          "(conductor_group 'rack-a', in slices one, two). Keep each conductor_group in one slice only." % NEW]),
    Case('role:fleet', 'fleet_slices without fleet_slice',
         {'fleet_nodes': [FLEET_NODE], 'fleet_slices': {'rack-a': ['rack-a']}},
         ['fleet_slices is set but fleet_slice is empty: set fleet_slice to the slice this play drives']),
    Case('role:fleet', 'fleet_allocations with fleet_slices',
         {'fleet_nodes': [dict(FLEET_NODE, conductor_group='rack-a')], 'fleet_slices': {'rack-a': ['rack-a']},
          'fleet_slice': 'rack-a', 'fleet_allocations': [{'name': 'web-1', 'resource_class': 'gold'}]},
         ['fleet_allocations and fleet_slices together: an allocation takes any available node Ironic matches, '
          'whatever its slice, so every slice would ask for the same allocations at once and take other slices\' '
          'nodes. Ask for the allocations in a play of its own, without fleet_slices, once the slices have ended. '
          'Nothing was sent to Ironic.']),
    Case('role:ironic_standalone', 'unknown state', {'ironic_standalone_state': 'running'},
         ['ironic_standalone_state', 'running']),
    Case('role:ironic_standalone', 'address that is not loopback',
         {'ironic_standalone_host': '0.0.0.0', 'ironic_standalone_base_dir': '{tmp}/ironic',
          'ironic_standalone_clouds_yaml': '{tmp}/clouds.yaml'},
         ["ironic_standalone_host must be a loopback IP address", "got '0.0.0.0'"]),
]

ROLE_PLAYBOOK = '''
- name: Run a role with bad variables
  hosts: localhost
  gather_facts: false
  roles:
    - role: baremetal.lifecycle.%s
'''


def case_id(case):
    return '%s: %s' % (case.where, case.what)


def resolve(value, names):
    """value with the placeholders of the fixture's nodes filled in, in strings, lists and dictionaries."""
    if isinstance(value, str):
        for key, name in names.items():
            value = value.replace('{%s}' % key, name)
        return value
    if isinstance(value, list):
        return [resolve(item, names) for item in value]
    if isinstance(value, dict):
        return dict((resolve(key, names), resolve(item, names)) for key, item in value.items())
    return value


@pytest.fixture(scope='module')
def nodes(ironic):
    """An enrolled node, whose plans start with a write, and another node, whose UUID is misused as a name; an
    available node with a port, held by an allocation ({allocated}, {allocated_port}, {allocation}), and an active
    node with a resource class ({active}), for what Ironic refuses in a node's state."""
    tag = uuid.uuid4().hex[:8]
    enrolled = ironic.api('POST', '/nodes', {'name': 'bad-input-%s' % tag, 'driver': 'fake-hardware'})
    other = ironic.api('POST', '/nodes', {'name': 'bad-input-other-%s' % tag, 'driver': 'fake-hardware'})
    raw = RawIronic(ironic)
    allocated, port, allocation = allocated_node(ironic, raw)
    active = raw.node_in('active')
    raw.patch(active['uuid'], resource_class='bad-input-active')
    yield {'enrolled': enrolled['name'], 'enrolled_uuid': enrolled['uuid'], 'other_uuid': other['uuid'],
           'other': other['name'], 'allocated': allocated['name'], 'allocated_port': port,
           'allocation': allocation['name'], 'active': active['name']}
    ironic.api('DELETE', '/allocations/%s' % allocation['uuid'], expect=None)
    ironic.api('PUT', '/nodes/%s/maintenance' % active['uuid'], {'reason': 'test cleanup'}, expect=None)
    for node in (enrolled, other, allocated, active):
        ironic.api('DELETE', '/nodes/%s' % node['uuid'], expect=None)


def run_case(case, args, ironic, run_module, run_playbook, tmp_path):
    """(failed, message) of one case."""
    if case.where == 'inventory':
        from test_inventory import run  # pylint: disable=import-outside-toplevel
        process = run(ironic, tmp_path, ['ansible-inventory', '--list'], args)
        return process.returncode != 0, process.stderr
    if case.where.startswith('role:'):
        rc, output = run_playbook(ROLE_PLAYBOOK % case.where[len('role:'):], args)
        return rc != 0, output
    result = run_module(case.where, **args)
    return bool(result.get('failed')), result.get('msg', '')


@pytest.mark.parametrize('case', CASES, ids=case_id)
def test_bad_input_fails_naming_the_problem_and_changes_nothing(case, nodes, ironic, run_module, run_playbook,
                                                                tmp_path):
    args = resolve(case.args, dict(nodes, tmp=str(tmp_path)))
    before = ironic.api('GET', '/nodes/%s' % nodes['enrolled_uuid'])
    mark = ironic.log_mark()
    failed, message = run_case(case, args, ironic, run_module, run_playbook, tmp_path)
    assert failed, message
    for part in resolve(case.expected, nodes):
        assert part in message, message[-3000:]
    assert ironic.write_requests_since(mark) == []
    assert ironic.api('GET', '/nodes/%s' % NEW, expect=(404,)) is not None
    assert ironic.api('GET', '/deploy_templates/%s' % NEW_TEMPLATE, expect=(404,)) is not None
    after = ironic.api('GET', '/nodes/%s' % nodes['enrolled_uuid'])
    assert after['provision_state'] == before['provision_state'] == 'enroll'
    assert after['updated_at'] == before['updated_at']


@pytest.mark.parametrize('module, options', [
    (PS, {'state': 'active'}), (NODE, {}), ('baremetal_maintenance', {'state': 'enabled'}),
    ('baremetal_power', {'state': 'powered_on'}), ('baremetal_hardware', {'bios_settings': {'A': 'b'}}),
])
def test_an_empty_nodes_list_is_a_no_op_that_says_so(ironic, run_module, module, options):
    mark = ironic.log_mark()
    result = run_module(module, nodes=[], **options)
    assert not result.get('failed'), result
    assert result['changed'] is False and result['nodes'] == [] and result['api_calls'] == 0
    assert result['msg'] == 'nodes is an empty list: there is nothing to do, and nothing was sent to Ironic.'
    assert ironic.write_requests_since(mark) == []


def test_there_are_at_least_forty_distinct_cases_across_every_entry_point():
    assert len(set(case_id(case) for case in CASES)) == len(CASES) >= 40
    wheres = set(case.where for case in CASES)
    assert wheres >= {PS, NODE, 'baremetal_power', 'baremetal_maintenance', 'baremetal_node_info', 'inventory',
                      'role:fleet', 'role:ironic_standalone'}


def render():
    """The table of CASES as Markdown, for docs/bad-input.md."""
    lines = [
        '# Bad input',
        '',
        '<!-- Generated by `python tests/integration/test_bad_input.py > docs/bad-input.md`; do not edit. -->',
        '',
        'Every wrong invocation below fails with a message that names the problem and the fix, and Ironic receives',
        'no request that changes anything: `tests/integration/test_bad_input.py` runs each one against a real',
        "Ironic and counts the non-GET requests in its API log. Checks that need no answer from Ironic (step lists,",
        'config drives, numbers, names, node lists) run before the first request, in',
        '`plugins/module_utils/common/validate.py`, so that a plan never stops half-way on input Ironic would refuse.',
        '',
        'An empty `nodes:` list is not an error: the task changes nothing, sends nothing that writes, and its',
        '`msg` says there was nothing to do (an inventory group can be empty).',
        '',
        '| where | wrong input | the message says |',
        '| --- | --- | --- |',
    ]
    for case in CASES:
        message = ' … '.join(case.expected).replace('|', '\\|').replace('\n', ' ')
        lines.append('| `%s` | %s | %s |' % (case.where, case.what, message))
    lines.append('')
    lines.append('%d cases.' % len(CASES))
    return '\n'.join(lines) + '\n'


def test_the_documented_table_is_this_table():
    with open(DOC, encoding='utf-8') as handle:
        assert handle.read() == render(), 'regenerate docs/bad-input.md: python %s > docs/bad-input.md' % __file__


if __name__ == '__main__':
    sys.stdout.write(render())
