# -*- coding: utf-8 -*-
"""No secret reaches any output. A marker string is planted in every secret-bearing field (BMC passwords of every
hardware type, the IPMI Kg key, SNMP passphrases, secrets nested in vendor keys of driver_info and extra,
instance_info secrets, rescue_password, config drive user_data, clean step arguments), the collection is used the
way people use it (enrolling, check and diff mode, deploying, rescuing, failing tasks, node_info, the inventory
and its cache, the fleet role with valid and invalid fleet files), and every output is grepped for every marker:
module results, ansible-playbook -vvvv output, the ANSIBLE_LOG_PATH file, inventory output and cache files (the
inventory reading the host's address from instance_info, which holds secrets next to it).

Each scenario also proves it is not vacuous: the secrets did reach Ironic, the tasks ran, Ironic did echo the
secret it was given in the error it returned.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import uuid

import pytest

from nodes import RawIronic
from test_node import closed_loopback_url

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)  # the ansible-core under test (tests/conftest.py)
TAG = uuid.uuid4().hex[:8]

FIELDS = (
    'ipmi_password', 'ipmi_hex_kg_key', 'redfish_password', 'idrac_password', 'ilo_password', 'ilo_change_password',
    'snmp_auth_prot_password', 'snmp_auth_priv_password', 'vendor_bmc_token', 'extra_api_secret',
    'image_pull_secret', 'image_auth_token', 'rescue_password', 'user_data', 'clean_step_password',
    'bad_config_drive', 'bad_step_password', 'fleet_password', 'fleet_instance_secret', 'fleet_invalid_password',
    # Secrets no task is given, so that Ansible's no_log cannot hide them: only the collection's masking does.
    'bios_setup_token', 'maintenance_password', 'maintenance_url_password', 'maintenance_log_password',
    'bmc_url_password', 'bmc_password', 'maintenance_pair_password', 'snmp_community', 'ipmi_kg', 'retired_password',
    'description_password', 'rollout_bios_token', 'schemeless_url_password', 'bios_pin', 'reason_password',
    # Shapes with no secret-named key before the secret: a BMC tool's command line, an HTTP authorization, an XML
    # element, a signed URL (in a reason, and in a driver_info value that is no free text).
    'ipmitool_password', 'ipmitool_kg_key', 'bearer_token', 'xml_password', 'reason_url_signature',
    'kernel_url_signature',
)
MARKERS = dict((field, 'mk%s%s' % (TAG, field.replace('_', ''))) for field in FIELDS)
ALL_HARDWARE_SECRETS = {
    'ipmi_password': MARKERS['ipmi_password'], 'ipmi_hex_kg_key': MARKERS['ipmi_hex_kg_key'],
    'redfish_password': MARKERS['redfish_password'], 'ilo_password': MARKERS['ilo_password'],
    'ilo_change_password': MARKERS['ilo_change_password'],
    'snmp_auth_prot_password': MARKERS['snmp_auth_prot_password'],
    'snmp_auth_priv_password': MARKERS['snmp_auth_priv_password'],
}
BMC = 'http://127.0.0.1:9'
# Next to the secrets of the deployed node's instance_info: the only key of it the inventory may show.
SSH_ADDRESS = '192.0.2.23'
# One valid driver_info per hardware type, secrets planted (idrac speaks Redfish).
BY_HARDWARE = {
    'ipmi': {'ipmi_address': '127.0.0.1', 'ipmi_username': 'admin', 'ipmi_password': MARKERS['ipmi_password'],
             'ipmi_hex_kg_key': MARKERS['ipmi_hex_kg_key']},
    'redfish': {'redfish_address': BMC, 'redfish_username': 'admin', 'redfish_password': MARKERS['redfish_password']},
    'idrac': {'redfish_address': BMC, 'redfish_username': 'root', 'redfish_password': MARKERS['idrac_password']},
    'ilo': {'ilo_address': '127.0.0.1', 'ilo_username': 'admin', 'ilo_password': MARKERS['ilo_password'],
            'ilo_change_password': MARKERS['ilo_change_password'],
            'snmp_auth_user': 'snmp', 'snmp_auth_prot_password': MARKERS['snmp_auth_prot_password'],
            'snmp_auth_priv_password': MARKERS['snmp_auth_priv_password']},
}
KERNEL_URL = 'http://127.0.0.1:9/v1/AUTH_a/c/ipa.kernel?temp_url_sig=%s&temp_url_expires=1' % MARKERS['kernel_url_signature']
USER_DATA = '#cloud-config\nchpasswd:\n  list: |\n    root:%s\n' % MARKERS['user_data']

PLAYBOOK = '''
- name: Secrets in every kind of output
  hosts: localhost
  gather_facts: false
  module_defaults:
    group/baremetal.lifecycle.baremetal:
      cloud: "{{ cloud }}"
  tasks:
    - name: Enroll a node whose driver_info holds the secrets of every hardware type
      baremetal.lifecycle.baremetal_node:
        name: "{{ node }}"
        driver: fake-hardware
        validate_driver_info: false
        driver_info: "{{ secrets | combine({'vendor_options': {'bmc_token': markers.vendor_bmc_token}}) }}"
        extra: {vendor: {api_secret: "{{ markers.extra_api_secret }}"}}
        instance_info: {image_pull_secret: "{{ markers.image_pull_secret }}"}
      diff: true
      register: enrolled

    - name: Rotate the secrets in check mode, with a diff
      baremetal.lifecycle.baremetal_node:
        name: "{{ node }}"
        driver_info: "{{ secrets }}"
        validate_driver_info: false
        instance_info: {image_pull_secret: "{{ markers.image_pull_secret }}"}
        update_secrets: always
      check_mode: true
      diff: true
      register: rotated_in_check_mode

    - name: Enroll one node of each hardware type in check mode (Ironic enables only some of them)
      baremetal.lifecycle.baremetal_node:
        name: "{{ node }}-{{ item }}"
        driver: "{{ item }}"
        driver_info: "{{ by_hardware[item] }}"
      # Over names: Ansible puts the loop item in each result, and shows it.
      loop: "{{ by_hardware.keys() | list }}"
      check_mode: true
      diff: true
      ignore_errors: true
      register: by_hardware_type

    - name: Fail on a misspelled key next to the secrets
      baremetal.lifecycle.baremetal_node:
        name: "{{ node }}"
        driver: ipmi
        driver_info: "{{ by_hardware.ipmi | combine({'ipmi_pasword': markers.ipmi_password}) }}"
      ignore_errors: true
      register: misspelled

    - name: Read the node
      baremetal.lifecycle.baremetal_node_info:
        node: "{{ node }}"
      register: info

    - name: Deploy in check mode, with instance_info secrets and a config drive
      baremetal.lifecycle.baremetal_provision_state: &deploy
        node: "{{ node }}"
        state: active
        instance_info:
          image_pull_secret: "{{ markers.image_pull_secret }}"
          image_auth_token: "{{ markers.image_auth_token }}"
          ssh_address: "{{ ssh_address }}"
        config_drive:
          meta_data: {hostname: "{{ node }}"}
          user_data: "{{ user_data }}"
      check_mode: true
      diff: true
      register: deploy_planned

    - name: Deploy
      baremetal.lifecycle.baremetal_provision_state: *deploy
      diff: true
      register: deployed

    - name: Rescue
      baremetal.lifecycle.baremetal_provision_state:
        node: "{{ node }}"
        state: rescue
        rescue_password: "{{ markers.rescue_password }}"
      register: rescued

    - name: Clean with a step Ironic does not have; Ironic's error quotes the step and its arguments
      baremetal.lifecycle.baremetal_provision_state:
        node: "{{ second_node }}"
        state: manageable
        clean_steps:
          - interface: vendor
            step: no_such_step
            args: {admin_password: "{{ markers.clean_step_password }}"}
      ignore_errors: true
      register: clean_failed

    - name: Read the node whose last error quotes the secret, in a task that was not given it
      baremetal.lifecycle.baremetal_node_info:
        node: "{{ second_node }}"
      register: info_after_failure

    - name: Deploy with a config drive that is not one
      baremetal.lifecycle.baremetal_provision_state:
        node: "{{ second_node }}"
        state: active
        config_drive: "#cloud-config password: {{ markers.bad_config_drive }}"
      ignore_errors: true
      register: bad_config_drive

    - name: Clean with a step on an unknown interface
      baremetal.lifecycle.baremetal_provision_state:
        node: "{{ second_node }}"
        state: manageable
        clean_steps: [{interface: disks, step: erase, args: {password: "{{ markers.bad_step_password }}"}}]
      ignore_errors: true
      register: bad_step

    # Every module's node view and failure path, in tasks that are not given the secrets they meet.
    - name: Change a BIOS setting named like a secret, whose old value Ironic shows (check mode, diff)
      baremetal.lifecycle.baremetal_hardware:
        node: "{{ bios_node }}"
        bios_settings: {SetupToken: rotated-in-the-task}
      check_mode: true
      diff: true
      register: hardware_secret_setting

    - name: Change a BIOS setting whose registry says Password, named like no secret (check mode, diff)
      baremetal.lifecycle.baremetal_hardware:
        node: "{{ bios_node }}"
        bios_settings: {BootPin: "{{ markers.bios_pin }}"}
      check_mode: true
      diff: true
      register: hardware_registry_password

    - name: Put a node in maintenance with a reason an operator wrote a password into (refused before any request)
      baremetal.lifecycle.baremetal_maintenance:
        node: "{{ bios_node }}"
        maintenance: true
        reason: "BMC swapped, ipmi_password={{ markers.reason_password }}"
      check_mode: true
      diff: true
      ignore_errors: true
      register: reason_with_a_password

    - name: Read the hardware of the node whose last error quotes a secret (its node view)
      baremetal.lifecycle.baremetal_hardware:
        node: "{{ second_node }}"
        bios_settings: {ProcTurboMode: Disabled}
        apply: never
      check_mode: true
      register: hardware_view

    - name: Change the hardware of a node in maintenance for a reason that quotes a secret (fails)
      baremetal.lifecycle.baremetal_hardware:
        node: "{{ maintenance_node }}"
        bios_settings: {ProcTurboMode: Disabled}
      ignore_errors: true
      register: hardware_failed

    - name: End the maintenance whose reason quotes a secret (check mode, diff)
      baremetal.lifecycle.baremetal_maintenance:
        node: "{{ maintenance_node }}"
        state: disabled
      check_mode: true
      diff: true
      register: maintenance_view

    - name: Maintenance on a node that does not exist, next to the one whose reason quotes a secret (fails)
      baremetal.lifecycle.baremetal_maintenance:
        nodes: ["{{ maintenance_node }}", "{{ node }}-missing"]
        state: enabled
      ignore_errors: true
      register: maintenance_failed

    - name: Power the node whose maintenance reason quotes a secret (its node view)
      baremetal.lifecycle.baremetal_power:
        node: "{{ maintenance_node }}"
        state: powered_on
      diff: true
      register: power_view

    - name: Power a node whose BMC does not answer and whose BMC address holds a password (fails)
      baremetal.lifecycle.baremetal_power:
        node: "{{ bmc_node }}"
        state: powered_on
        timeout: 120
      ignore_errors: true
      register: power_failed

    - name: Read the node whose driver_info, retired_reason and description hold secrets no task was given
      baremetal.lifecycle.baremetal_node_info:
        node: "{{ operator_node }}"
      register: operator_view

    - name: Show every result
      ansible.builtin.debug:
        var: item
      loop: "{{ [enrolled, rotated_in_check_mode, by_hardware_type, misspelled, info, deploy_planned, deployed,
                 rescued, clean_failed, info_after_failure, bad_config_drive, bad_step, hardware_secret_setting,
                 hardware_registry_password, reason_with_a_password, hardware_view, hardware_failed,
                 maintenance_view, maintenance_failed, power_view, power_failed, operator_view] }}"
'''

FLEET_PLAYBOOK = '''
- name: Converge a fleet
  hosts: localhost
  gather_facts: false
  check_mode: %s
  roles:
    - role: baremetal.lifecycle.fleet
'''


def markers_in(text):
    return sorted(field for field, marker in MARKERS.items() if marker in text)


def environment(ironic, tmp_path, log_name):
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith(('OS_', 'ANSIBLE_')))
    env.update(ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, '.work', 'collections'), ANSIBLE_VERBOSITY='4',
               ANSIBLE_LOG_PATH=str(tmp_path / log_name), OS_CLIENT_CONFIG_FILE=ironic.clouds_yaml,
               OS_CLOUD=ironic.cloud_name)
    return env


def playbook_outputs(ironic, tmp_path, name, text, extra_vars):
    """Run a playbook at -vvvv with ANSIBLE_LOG_PATH set: (rc, {output name: text})."""
    (tmp_path / (name + '.yml')).write_text(text, encoding='utf-8')
    (tmp_path / (name + '.vars.json')).write_text(json.dumps(extra_vars), encoding='utf-8')
    process = subprocess.run(
        [os.path.join(BIN, 'ansible-playbook'), str(tmp_path / (name + '.yml')), '-e',
         '@' + str(tmp_path / (name + '.vars.json'))],
        cwd=ROOT, env=environment(ironic, tmp_path, name + '.log'), capture_output=True, text=True, timeout=900,
        check=False)
    log = tmp_path / (name + '.log')
    return process.returncode, {
        '%s: ansible-playbook -vvvv output' % name: process.stdout + process.stderr,
        '%s: ANSIBLE_LOG_PATH file' % name: log.read_text(encoding='utf-8') if log.exists() else '',
    }


def stored(ironic, uuid_, field):
    """A node field as Ironic's database holds it, secrets in clear (the API masks some of them)."""
    connection = sqlite3.connect('file:%s?mode=ro' % os.path.join(ironic.base_dir, 'ironic.sqlite'), uri=True)
    try:
        row = connection.execute('SELECT %s FROM nodes WHERE uuid = ?' % field, (uuid_,)).fetchone()
    finally:
        connection.close()
    return json.loads(row[0]) if row[0] else {}


def ironic_echo(ironic):
    """What Ironic says of the clean step the playbook's failing task sends, read at once on a node of its own:
    Ironic's periodic power sync clears last_error within a minute, so the playbook's node may have lost it."""
    raw = RawIronic(ironic)
    node = raw.node_in('manageable')
    settled = raw.verb(node['uuid'], 'clean', clean_steps=[
        {'interface': 'vendor', 'step': 'no_such_step', 'args': {'admin_password': MARKERS['clean_step_password']}}])
    return node['name'], settled['last_error'] or ''


def planted_nodes(ironic):
    """Nodes holding secrets that Ironic shows back and that no task is given: a BIOS setting named like a secret
    (stored through the fake BIOS interface by a raw clean), an operator's maintenance reason, a BMC address."""
    raw = RawIronic(ironic)
    bios_node = raw.node_in('manageable')
    settled = raw.verb(bios_node['uuid'], 'clean', clean_steps=[
        {'interface': 'bios', 'step': 'apply_configuration', 'args': {'settings': [
            {'name': 'SetupToken', 'value': MARKERS['bios_setup_token'], 'attribute_type': 'String', 'read_only': False},
            {'name': 'ProcTurboMode', 'value': 'Enabled', 'attribute_type': 'Enumeration', 'read_only': False,
             'allowable_values': ['Enabled', 'Disabled']},
            # A secret by its registry only: its name says nothing.
            {'name': 'BootPin', 'value': '0000', 'attribute_type': 'Password', 'read_only': False}]}}])
    assert settled['provision_state'] == 'manageable', settled['last_error']
    maintenance_node = raw.node_in('manageable')
    ironic.api('PUT', '/nodes/%s/maintenance' % maintenance_node['uuid'], {
        'reason': "BMC credentials rotated, old password=%s; console at http://admin:%s@127.0.0.1:9; ipmitool -I "
                  "lanplus ipmi_password: '%s' returned 1; step {'settings': [{'value': '%s', 'name': 'AdminPassword'}]}"
                  "\nipmitool -I lanplus -H 127.0.0.1 -U admin -P %s -y %s power status\nAuthorization: Bearer %s\n"
                  "<Password>%s</Password>; image http://127.0.0.1:9/v1/AUTH_a/c/o.img?temp_url_sig=%s&temp_url_expires=1"
                  % (MARKERS['maintenance_password'], MARKERS['maintenance_url_password'],
                     MARKERS['maintenance_log_password'], MARKERS['maintenance_pair_password'],
                     MARKERS['ipmitool_password'], MARKERS['ipmitool_kg_key'], MARKERS['bearer_token'],
                     MARKERS['xml_password'], MARKERS['reason_url_signature'])})
    bmc_node = raw.create(prefix='secrets-bmc', driver='redfish', driver_info={
        'redfish_address': closed_loopback_url().replace('http://', 'http://admin:%s@' % MARKERS['bmc_url_password']),
        'redfish_username': 'admin', 'redfish_password': MARKERS['bmc_password']})
    # An SNMP community and a Kg key under a name Ironic does not know, shown in clear by Ironic; an operator's
    # retired_reason and description quoting a password.
    operator_node = raw.node_in('manageable')
    # A BMC address without a scheme, user information and all (Ironic assumes https); a deploy kernel at a signed URL.
    raw.patch(operator_node['uuid'], driver_info={'snmp_community': MARKERS['snmp_community'],
                                                  'ipmi_kg': MARKERS['ipmi_kg'],
                                                  'redfish_address': 'admin:%s@127.0.0.1:9' % MARKERS['schemeless_url_password'],
                                                  'deploy_kernel': KERNEL_URL},
              retired=True, retired_reason='old BMC, ipmi_password=%s' % MARKERS['retired_password'],
              description="rack 7; root password: '%s'" % MARKERS['description_password'])
    return bios_node['name'], maintenance_node['name'], bmc_node['name'], operator_node['name']


def delete_node(ironic, ident):
    ironic.api('PUT', '/nodes/%s/maintenance' % ident, {'reason': 'test cleanup'}, expect=None)
    ironic.api('DELETE', '/nodes/%s' % ident, expect=None)


@pytest.fixture(scope='module')
def outputs(ironic, tmp_path_factory):
    """Every output of every scenario, by name, and what each scenario did (for the checks that it ran)."""
    tmp_path = tmp_path_factory.mktemp('secrets')
    node, second_node = 'secrets-%s' % TAG, 'secrets-second-%s' % TAG
    ironic.api('POST', '/nodes', {'name': second_node, 'driver': 'fake-hardware'})
    bios_node, maintenance_node, bmc_node, operator_node = planted_nodes(ironic)
    echo_node, echo = ironic_echo(ironic)
    texts = {}
    facts = {'ironic echo': echo}
    rc, texts_of_run = playbook_outputs(ironic, tmp_path, 'modules', PLAYBOOK, {
        'cloud': ironic.cloud_name, 'node': node, 'second_node': second_node, 'markers': MARKERS,
        'secrets': ALL_HARDWARE_SECRETS, 'by_hardware': BY_HARDWARE, 'user_data': USER_DATA,
        'bios_node': bios_node, 'maintenance_node': maintenance_node, 'bmc_node': bmc_node,
        'operator_node': operator_node, 'ssh_address': SSH_ADDRESS})
    texts.update(texts_of_run)
    facts['modules rc'] = rc
    facts['node'] = ironic.api('GET', '/nodes/%s' % node, expect=None)
    facts['second node'] = ironic.api('GET', '/nodes/%s' % second_node)
    facts['bios'] = ironic.api('GET', '/nodes/%s/bios' % bios_node)['bios']
    facts['maintenance node'] = ironic.api('GET', '/nodes/%s' % maintenance_node)
    facts['bmc node'] = ironic.api('GET', '/nodes/%s' % bmc_node)
    facts['operator node'] = ironic.api('GET', '/nodes/%s' % operator_node)

    # The inventory, with its jsonfile cache, reading the address from instance_info.
    cache = tmp_path / 'inventory-cache'
    inventory = tmp_path / 'nodes.ironic.yml'
    inventory.write_text(json.dumps({'plugin': 'baremetal.lifecycle.ironic', 'cache': True,
                                     'cache_plugin': 'ansible.builtin.jsonfile', 'cache_connection': str(cache),
                                     'host_address': 'instance_info:ssh_address'}),
                         encoding='utf-8')
    process = subprocess.run([os.path.join(BIN, 'ansible-inventory'), '--list', '-i', str(inventory)], cwd=str(tmp_path),
                             env=environment(ironic, tmp_path, 'inventory.log'), capture_output=True, text=True,
                             timeout=600, check=False)
    facts['inventory rc'] = process.returncode
    texts['inventory: ansible-inventory -vvvv output'] = process.stdout + process.stderr
    texts['inventory: ANSIBLE_LOG_PATH file'] = (tmp_path / 'inventory.log').read_text(encoding='utf-8') \
        if (tmp_path / 'inventory.log').exists() else ''
    texts['inventory: cache files'] = ''.join(
        (cache / name).read_text(encoding='utf-8') for name in sorted(os.listdir(str(cache)))) if cache.exists() else ''

    # The fleet role: a valid fleet file (in check mode, then for real) and an invalid one.
    fleet_node = 'secrets-fleet-%s' % TAG
    fleet = [{'name': fleet_node, 'driver': 'fake-hardware', 'validate_driver_info': False,
              'driver_info': {'ipmi_password': MARKERS['fleet_password'],
                              'vendor': {'bmc_secret': MARKERS['fleet_password']}},
              'instance_info': {'image_pull_secret': MARKERS['fleet_instance_secret']},
              'provision_state': 'manageable'}]
    (tmp_path / 'fleet.yml').write_text(json.dumps(fleet), encoding='utf-8')
    for check in ('true', 'false'):
        rc, texts_of_run = playbook_outputs(ironic, tmp_path, 'fleet-check-%s' % check, FLEET_PLAYBOOK % check,
                                            {'fleet_file': str(tmp_path / 'fleet.yml')})
        texts.update(texts_of_run)
        facts['fleet check %s rc' % check] = rc
    invalid = [dict(fleet[0], name='secrets-fleet-bad-%s' % TAG, validate_driver_info=True, driver='ipmi',
                    driver_info={'ipmi_address': '127.0.0.1', 'ipmi_password': [MARKERS['fleet_invalid_password']],
                                 'ipmi_hex_kg_key': 5, 'ipmi_port': 'six'}, drvier='typo')]
    (tmp_path / 'invalid.yml').write_text(json.dumps(invalid), encoding='utf-8')
    rc, texts_of_run = playbook_outputs(ironic, tmp_path, 'fleet-invalid', FLEET_PLAYBOOK % 'false',
                                        {'fleet_file': str(tmp_path / 'invalid.yml')})
    texts.update(texts_of_run)
    facts['fleet invalid rc'] = rc
    # A rollout (fleet_wave_check), in check mode: its waves carry the declared hardware of their nodes, a BIOS
    # setting named like a secret too (the node's fake BIOS has it, so the hardware is planned).
    rollout = [{'name': bios_node, 'driver': 'fake-hardware', 'provision_state': 'manageable',
                'bios_settings': {'SetupToken': MARKERS['rollout_bios_token']}}]
    (tmp_path / 'rollout.yml').write_text(json.dumps(rollout), encoding='utf-8')
    (tmp_path / 'wave-check.yml').write_text('- ansible.builtin.debug: {msg: "{{ fleet_wave_nodes }}"}\n', encoding='utf-8')
    rc, texts_of_run = playbook_outputs(ironic, tmp_path, 'fleet-rollout', FLEET_PLAYBOOK % 'true', {
        'fleet_file': str(tmp_path / 'rollout.yml'), 'fleet_wave_check': str(tmp_path / 'wave-check.yml')})
    texts.update(texts_of_run)
    facts['fleet rollout rc'] = rc
    facts['bios node'] = bios_node
    facts['fleet node'] = ironic.api('GET', '/nodes/%s' % fleet_node, expect=None)
    yield texts, facts
    for ident in (node, second_node, fleet_node, bios_node, maintenance_node, bmc_node, operator_node, echo_node):
        delete_node(ironic, ident)


OUTPUT_NAMES = ['modules: ansible-playbook -vvvv output', 'modules: ANSIBLE_LOG_PATH file',
                'inventory: ansible-inventory -vvvv output', 'inventory: ANSIBLE_LOG_PATH file',
                'inventory: cache files'] + [
                    '%s: %s' % (run, kind)
                    for run in ('fleet-check-true', 'fleet-check-false', 'fleet-invalid', 'fleet-rollout')
                    for kind in ('ansible-playbook -vvvv output', 'ANSIBLE_LOG_PATH file')]


@pytest.mark.parametrize('name', OUTPUT_NAMES)
def test_no_marker_in(outputs, name):
    texts, _facts = outputs
    assert texts[name], 'the output %r is empty: the scenario did not run' % name
    leaked = markers_in(texts[name])
    assert leaked == [], 'secrets of %s leak into %s' % (leaked, name)


def test_the_module_scenario_ran_and_its_secrets_reached_ironic(ironic, outputs):
    texts, facts = outputs
    output = texts['modules: ansible-playbook -vvvv output']
    assert facts['modules rc'] == 0, output[-4000:]
    assert texts['modules: ANSIBLE_LOG_PATH file'].count('"invocation"') >= 10
    node = facts['node']
    assert node['provision_state'] == 'rescue'
    driver_info = stored(ironic, node['uuid'], 'driver_info')
    for key, value in ALL_HARDWARE_SECRETS.items():
        assert driver_info[key] == value
    assert driver_info['vendor_options'] == {'bmc_token': MARKERS['vendor_bmc_token']}
    assert stored(ironic, node['uuid'], 'extra') == {'vendor': {'api_secret': MARKERS['extra_api_secret']}}
    instance_info = stored(ironic, node['uuid'], 'instance_info')
    assert instance_info['image_pull_secret'] == MARKERS['image_pull_secret']
    assert instance_info['image_auth_token'] == MARKERS['image_auth_token']
    # The results were printed, masked: the keys are there, the values are not.
    for shown in ('"redfish_password": "********"', '"ipmi_hex_kg_key": "********"', '"bmc_token": "********"',
                  '"api_secret": "********"', "did you mean 'ipmi_password'?",
                  "Ironic does not enable the hardware type 'ilo'", 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER',
                  'config_drive is text that is neither a URL nor base64',
                  "clean_steps[0].interface 'disks' is not an interface of clean steps"):
        assert shown in output, shown


def test_ironic_echoed_the_clean_step_secret_that_the_failed_task_hides(outputs):
    texts, facts = outputs
    # Ironic's own error quotes the step with its arguments: only the collection stands between it and the output.
    assert MARKERS['clean_step_password'] in facts['ironic echo']
    assert 'no_such_step' in texts['modules: ansible-playbook -vvvv output']
    # A later task, never given the secret, reads the node: the secret quoted in last_error is masked.
    assert "'admin_password': '********'" in texts['modules: ansible-playbook -vvvv output']


def test_every_module_met_secrets_ironic_shows_back_and_masked_them(outputs):
    texts, facts = outputs
    output = texts['modules: ansible-playbook -vvvv output']
    # Ironic holds them and shows them back: the BIOS cache, the maintenance reason, the BMC address it quotes.
    assert MARKERS['bios_setup_token'] in [entry['value'] for entry in facts['bios']]
    assert MARKERS['maintenance_password'] in facts['maintenance node']['maintenance_reason']
    assert MARKERS['maintenance_log_password'] in facts['maintenance node']['maintenance_reason']
    assert MARKERS['bmc_url_password'] in facts['bmc node']['driver_info']['redfish_address']
    assert MARKERS['maintenance_pair_password'] in facts['maintenance node']['maintenance_reason']
    operator = facts['operator node']
    assert operator['driver_info'] == {'snmp_community': MARKERS['snmp_community'], 'ipmi_kg': MARKERS['ipmi_kg'],
                                       'redfish_address': 'admin:%s@127.0.0.1:9' % MARKERS['schemeless_url_password'],
                                       'deploy_kernel': KERNEL_URL}
    for field in ('ipmitool_password', 'ipmitool_kg_key', 'bearer_token', 'xml_password', 'reason_url_signature'):
        assert MARKERS[field] in facts['maintenance node']['maintenance_reason'], field
    assert MARKERS['retired_password'] in operator['retired_reason']
    assert MARKERS['description_password'] in operator['description']
    for shown in ('"SetupToken": {\n', '"before": "********"', 'password=********; console at http://admin:********@',
                  "ipmi_password: '********' returned 1",
                  "is in maintenance", "No node is named or has the UUID", "admin_password': '********'",
                  "Ironic could not 'power on' it", "[{'value': '********', 'name': 'AdminPassword'}]",
                  '"snmp_community": "********"', '"ipmi_kg": "********"', 'old BMC, ipmi_password=********',
                  "root password: '********'", '"redfish_address": "admin:********@127.0.0.1:9"', '"BootPin": {\n',
                  '-U admin -P ******** -y ******** power status', 'Authorization: ********',
                  '<Password>********</Password>', 'o.img?temp_url_sig=********&temp_url_expires=1',
                  'reason holds what reads as a secret',
                  'ipa.kernel?temp_url_sig=********&temp_url_expires=1'):
        assert shown in output, shown


def test_the_inventory_and_fleet_scenarios_ran(outputs):
    texts, facts = outputs
    assert facts['inventory rc'] == 0, texts['inventory: ansible-inventory -vvvv output'][-3000:]
    assert 'secrets-%s' % TAG in texts['inventory: cache files']
    # instance_info was read: the address next to its secrets reached the output and the cache.
    assert re.search(r'"ansible_host": \{\s*"__ansible_unsafe": "%s"' % re.escape(SSH_ADDRESS),
                     texts['inventory: ansible-inventory -vvvv output'])
    assert SSH_ADDRESS in texts['inventory: cache files']
    assert re.search(r'"ipmi_password": \{\s*"__ansible_unsafe": "\*{8}"',
                     texts['inventory: ansible-inventory -vvvv output'])
    assert facts['fleet check true rc'] == 0 and facts['fleet check false rc'] == 0
    assert facts['fleet node']['provision_state'] == 'manageable'
    assert facts['fleet invalid rc'] != 0
    invalid = texts['fleet-invalid: ansible-playbook -vvvv output']
    assert "driver_info key 'ipmi_port' must be an integer" in invalid
    assert "drvier: is not a known field (did you mean 'driver'?)" in invalid
    rollout = texts['fleet-rollout: ansible-playbook -vvvv output']
    assert facts['fleet rollout rc'] == 0, rollout[-3000:]
    # The hardware was planned and the node put in a wave (shown by name), whose secret stayed hidden.
    assert re.search(r'"SetupToken": \{\s*"after": "\*{8}"', rollout), rollout[-3000:]
    assert re.search(r'Show the waves of the rollout.*?"msg": \[\s*"%s"' % re.escape(facts['bios node']), rollout, re.S)


# One BMC password per node, at scale (issue 44): a records task of sixty nodes, each with its own password,
# at -vvvv with ANSIBLE_LOG_PATH set and diff mode. Ansible's no_log pass with one secret per node used to grow with
# the square of the nodes; the collection now does it in one pass (task/module.py), and this checks that the pass
# still hides every password from every output. Every password shares a prefix no other text holds, so that a
# password shown even in part is found.
FLEET_SIZE = 60
FLEET_TAG = 'pw%sx' % TAG

FLEET_PASSWORDS_PLAYBOOK = '''
- name: One BMC password per node
  hosts: localhost
  gather_facts: false
  module_defaults:
    group/baremetal.lifecycle.baremetal:
      cloud: "{{ cloud }}"
  tasks:
    - name: Enroll the nodes, each with its own BMC password
      baremetal.lifecycle.baremetal_node:
        nodes: "{{ nodes }}"
      diff: true
      register: enrolled

    - name: Rotate every password in check mode, with a diff
      baremetal.lifecycle.baremetal_node:
        nodes: "{{ rotated }}"
        update_secrets: always
      check_mode: true
      diff: true
      register: rotated_in_check_mode

    - name: Fail on a misspelled key next to each password
      baremetal.lifecycle.baremetal_node:
        nodes: "{{ misspelled }}"
      diff: true
      ignore_errors: true
      register: misspelled_failed

    - name: Keep the registered results
      ansible.builtin.copy:
        content: "{{ {'enrolled': enrolled, 'rotated': rotated_in_check_mode, 'misspelled': misspelled_failed}
                     | to_json }}"
        dest: "{{ results_file }}"
        mode: "0600"
'''


def fleet_password(kind, index):
    return '%s%s%04d%s' % (FLEET_TAG, kind, index, uuid.uuid4().hex[:6])


@pytest.fixture(scope='module')
def fleet_outputs(ironic, tmp_path_factory):
    """The outputs of the one-password-per-node playbook, its registered results, and the enrolled passwords."""
    tmp_path = tmp_path_factory.mktemp('fleet-passwords')
    names = ['secrets-many-%s-%03d' % (TAG, index) for index in range(FLEET_SIZE)]
    passwords = dict((name, fleet_password('a', index)) for index, name in enumerate(names))

    def node(name, password):
        return {'name': name, 'driver': 'fake-hardware', 'validate_driver_info': False,
                'driver_info': {'ipmi_address': '127.0.0.1', 'ipmi_username': 'admin', 'ipmi_password': password}}

    def misspelled(name, password):
        # Refused before any write, the password next to the misspelled key (of an ipmi node, validated).
        return {'name': name, 'driver': 'ipmi', 'driver_info': {
            'ipmi_address': '127.0.0.1', 'ipmi_username': 'admin', 'ipmi_password': password, 'ipmi_pasword': password}}

    results_file = tmp_path / 'results.json'
    rc, texts = playbook_outputs(ironic, tmp_path, 'many-passwords', FLEET_PASSWORDS_PLAYBOOK, {
        'cloud': ironic.cloud_name, 'results_file': str(results_file),
        'nodes': [node(name, passwords[name]) for name in names],
        'rotated': [node(name, fleet_password('b', index)) for index, name in enumerate(names)],
        'misspelled': [misspelled(name, fleet_password('c', index)) for index, name in enumerate(names)]})
    texts['many-passwords: registered results'] = results_file.read_text(encoding='utf-8') \
        if results_file.exists() else ''
    yield rc, texts, passwords
    for name in names:
        ironic.api('DELETE', '/nodes/%s' % name, expect=None)  # in enroll: no maintenance needed


def test_no_bmc_password_of_many_nodes_in_any_output(fleet_outputs):
    rc, texts, _passwords = fleet_outputs
    assert rc == 0, texts['many-passwords: ansible-playbook -vvvv output'][-4000:]
    for name, text in texts.items():
        assert text, 'the output %r is empty: the scenario did not run' % name
        leaked = sorted(set(re.findall(r'%s\w*' % FLEET_TAG, text)))
        assert leaked == [], '%d passwords leak into %s, such as %s' % (len(leaked), name, leaked[:3])


def test_the_passwords_reached_ironic_and_every_result_and_echo_was_there_to_hide_them(ironic, fleet_outputs):
    _rc, texts, passwords = fleet_outputs
    for name, password in passwords.items():
        node = ironic.api('GET', '/nodes/%s' % name)
        assert stored(ironic, node['uuid'], 'driver_info')['ipmi_password'] == password
    results = json.loads(texts['many-passwords: registered results'])
    enrolled = results['enrolled']
    assert enrolled['changed'] and enrolled['totals']['nodes'] == FLEET_SIZE
    assert [entry['node']['driver_info']['ipmi_password'] for entry in enrolled['nodes']] == ['********'] * FLEET_SIZE
    rotated = results['rotated']
    assert rotated['changed'] and len(rotated['diff']) == FLEET_SIZE
    misspelled = results['misspelled']
    assert misspelled['failed'] and "did you mean 'ipmi_password'?" in misspelled['msg']
    assert misspelled['changed'] is False
    # The echo of the arguments (invocation, shown from -vvv on; Ansible keeps it out of registered results): every
    # node's password hidden by value, once per node in two tasks, twice in the third.
    output = texts['many-passwords: ansible-playbook -vvvv output']
    assert output.count('"invocation": {') >= 3
    assert output.count('VALUE_SPECIFIED_IN_NO_LOG_PARAMETER') >= 4 * FLEET_SIZE
