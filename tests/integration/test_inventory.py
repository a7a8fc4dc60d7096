# -*- coding: utf-8 -*-
"""The inventory plugin baremetal.lifecycle.ironic against a real Ironic: hosts, groups, variables, secrets,
constructed options, caching, the address and connection of the hosts, and the ad-hoc command of the issue."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest

from nodes import RawIronic

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)  # the ansible-core under test (tests/conftest.py)
COLLECTIONS = os.path.join(ROOT, '.work', 'collections')

# Ironic returns these unmasked (its own masking only knows "password", "token" and the like): only the plugin
# stands between them and the inventory.
SECRET_CREDENTIAL = 'inventory-credential-%s' % uuid.uuid4().hex[:8]
SECRET_IMAGE = 'http://127.0.0.1:9/inventory-private-%s.img' % uuid.uuid4().hex[:8]
SSH_ADDRESS = '192.0.2.17'
DOCUMENTED_VARS = {'ironic_%s' % field for field in (
    'uuid', 'name', 'provision_state', 'power_state', 'maintenance', 'maintenance_reason', 'resource_class',
    'conductor_group', 'driver', 'driver_info', 'traits', 'properties', 'extra', 'owner', 'lessee', 'description',
    'health')}


def run(ironic, tmp_path, command, config):
    """Run an ansible command with an inventory file of the plugin; the cloud only comes from OS_CLOUD."""
    inventory = tmp_path / 'nodes.ironic.yml'
    inventory.write_text(json.dumps(dict(config, plugin='baremetal.lifecycle.ironic')), encoding='utf-8')
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith(('OS_', 'ANSIBLE_')))
    env.update(ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_COLLECTIONS_PATH=COLLECTIONS,
               ANSIBLE_NOCOLOR='1', OS_CLIENT_CONFIG_FILE=ironic.clouds_yaml, OS_CLOUD=ironic.cloud_name,
               # Unparsable inventories are errors, not warnings followed by an empty inventory.
               ANSIBLE_INVENTORY_UNPARSED_FAILED='true')
    process = subprocess.run([os.path.join(BIN, command[0])] + command[1:] + ['-i', str(inventory)], env=env,
                             cwd=str(tmp_path), capture_output=True, text=True, timeout=600, check=False)
    return process


def inventory_list(ironic, tmp_path, **config):
    process = run(ironic, tmp_path, ['ansible-inventory', '--list'], config)
    assert process.returncode == 0, process.stderr
    return process.stdout, json.loads(process.stdout)


def plain(value):
    """ansible-inventory marks strings read from Ironic as unsafe: {"__ansible_unsafe": "..."}."""
    if isinstance(value, dict):
        if set(value) == {'__ansible_unsafe'}:
            return value['__ansible_unsafe']
        return dict((key, plain(item)) for key, item in value.items())
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def hosts_of(data, group):
    return set(data.get(group, {}).get('hosts', []))


@pytest.fixture
def rack(ironic, fresh_node):
    """Nodes of one new resource class: only they are listed, with filters, whatever else the Ironic holds."""
    resource_class = 'inv-%s' % uuid.uuid4().hex[:8]
    raw = RawIronic(ironic)
    gpu = fresh_node(resource_class=resource_class, properties={'cpu_arch': 'x86_64'},
                     extra={'rack': 'r1', 'note': '{{ 7 * 6 }}', 'ssh_address': '198.51.100.4'},
                     description='GPU box',
                     driver_info={'deploy_kernel': 'http://127.0.0.1:9/k', 'bmc_credential': SECRET_CREDENTIAL},
                     instance_info={'image_source': SECRET_IMAGE, 'ssh_address': SSH_ADDRESS})
    ironic.api('PUT', '/nodes/%s/traits' % gpu['uuid'], {'traits': ['CUSTOM_INV_GPU']})
    raw.patch(gpu['uuid'], owner='infra')  # Ironic refuses an owner on creation under noauth
    broken = fresh_node(resource_class=resource_class)
    ironic.api('PUT', '/nodes/%s/maintenance' % broken['uuid'], {'reason': 'fan'})
    nameless = ironic.api('POST', '/nodes', {'driver': 'fake-hardware', 'resource_class': resource_class})
    raw.verb(nameless['uuid'], 'manage')
    # A state with a space in its name.
    failed = raw.node_in('clean failed')
    raw.patch(failed['uuid'], resource_class=resource_class)
    yield {'resource_class': resource_class, 'gpu': gpu, 'broken': broken, 'nameless': nameless, 'failed': failed}
    for node in (nameless, failed):
        ironic.api('PUT', '/nodes/%s/maintenance' % node['uuid'], {'reason': 'test cleanup'}, expect=None)
        ironic.api('DELETE', '/nodes/%s' % node['uuid'], expect=None)


def test_hosts_groups_and_variables(ironic, tmp_path, rack):
    _output, data = inventory_list(ironic, tmp_path, filters={'resource_class': rack['resource_class']})
    hostvars = plain(data['_meta']['hostvars'])
    gpu, broken, nameless, failed = (rack[key] for key in ('gpu', 'broken', 'nameless', 'failed'))
    assert set(hostvars) == {gpu['name'], broken['name'], nameless['uuid'], failed['name']}

    assert hosts_of(data, 'ironic') == set(hostvars)
    assert hosts_of(data, 'provision_state_enroll') == {gpu['name'], broken['name']}
    assert hosts_of(data, 'provision_state_manageable') == {nameless['uuid']}
    assert hosts_of(data, 'provision_state_clean_failed') == {failed['name']}
    assert hosts_of(data, 'in_maintenance') == {broken['name']}
    assert hosts_of(data, 'not_in_maintenance') == {gpu['name'], nameless['uuid'], failed['name']}
    assert hosts_of(data, 'resource_class_%s' % rack['resource_class'].replace('-', '_')) == set(hostvars)
    assert hosts_of(data, 'trait_CUSTOM_INV_GPU') == {gpu['name']}
    # The default (empty) conductor group makes no group; fake-hardware reports no health, which makes none either
    # (the health_<health> groups are unit-tested).
    assert not [group for group in data if group.startswith(('conductor_group_', 'health_'))]

    variables = hostvars[gpu['name']]
    # No connection and no address: the hosts are the servers, reached by their names.
    assert set(variables) == DOCUMENTED_VARS
    assert 'vars' not in data.get('ironic', {})
    assert variables['ironic_uuid'] == gpu['uuid']
    assert variables['ironic_provision_state'] == 'enroll'
    assert variables['ironic_traits'] == ['CUSTOM_INV_GPU']
    assert variables['ironic_properties'] == {'cpu_arch': 'x86_64'}
    assert variables['ironic_owner'] == 'infra' and variables['ironic_description'] == 'GPU box'
    assert variables['ironic_driver_info'] == {'deploy_kernel': 'http://127.0.0.1:9/k', 'bmc_credential': '********'}
    assert hostvars[broken['name']]['ironic_maintenance_reason'] == 'fan'
    assert hostvars[nameless['uuid']]['ironic_name'] is None
    assert variables['ironic_health'] is None


def test_the_controller_connection_runs_every_host_on_the_controller(ironic, tmp_path, rack):
    _output, data = inventory_list(ironic, tmp_path, filters={'resource_class': rack['resource_class']},
                                   controller_connection=True)
    variables = plain(data['_meta']['hostvars'][rack['gpu']['name']])
    assert set(variables) == DOCUMENTED_VARS | {'ansible_connection', 'ansible_python_interpreter'}
    assert variables['ansible_connection'] == 'local'
    assert variables['ansible_python_interpreter'] == '{{ ansible_playbook_python }}'


def test_group_vars_override_the_controller_connection(ironic, tmp_path, rack):
    (tmp_path / 'group_vars').mkdir()
    (tmp_path / 'group_vars' / 'ironic.yml').write_text('ansible_connection: ssh\n', encoding='utf-8')
    _output, data = inventory_list(ironic, tmp_path, filters={'resource_class': rack['resource_class']},
                                   controller_connection=True,
                                   compose={'ansible_python_interpreter': "'/usr/bin/python3'"})
    variables = plain(data['_meta']['hostvars'][rack['gpu']['name']])
    assert variables['ansible_connection'] == 'ssh'
    assert variables['ansible_python_interpreter'] == '/usr/bin/python3'


def test_no_secret_reaches_the_output(ironic, tmp_path, rack):
    output, _data = inventory_list(ironic, tmp_path, filters={'resource_class': rack['resource_class']})
    assert rack['gpu']['name'] in output
    assert SECRET_CREDENTIAL not in output
    assert SECRET_IMAGE not in output and 'instance_info' not in output


def test_the_address_comes_from_the_key_the_user_chooses(ironic, tmp_path, rack):
    filters = {'resource_class': rack['resource_class']}
    gpu, broken = rack['gpu']['name'], rack['broken']['name']
    _output, data = inventory_list(ironic, tmp_path, filters=filters, host_address='extra:ssh_address')
    hostvars = plain(data['_meta']['hostvars'])
    assert hostvars[gpu]['ansible_host'] == '198.51.100.4'
    # A node without the key is reached by its name.
    assert 'ansible_host' not in hostvars[broken]
    # compose wins over host_address; where its expression fails, host_address stays.
    _output, data = inventory_list(ironic, tmp_path, filters=filters, host_address='extra:ssh_address',
                                   compose={'ansible_host': "ironic_extra.rack ~ '.example.com'"})
    hostvars = plain(data['_meta']['hostvars'])
    assert hostvars[gpu]['ansible_host'] == 'r1.example.com' and 'ansible_host' not in hostvars[broken]


def test_an_address_from_instance_info_brings_no_other_key_of_it(ironic, tmp_path, rack):
    cache_dir = tmp_path / 'cache'
    config = {'filters': {'resource_class': rack['resource_class']}, 'host_address': 'instance_info:ssh_address',
              'cache': True, 'cache_plugin': 'ansible.builtin.jsonfile', 'cache_connection': str(cache_dir)}
    for _read in ('from Ironic', 'from the cache'):
        output, data = inventory_list(ironic, tmp_path, **config)
        variables = plain(data['_meta']['hostvars'][rack['gpu']['name']])
        assert variables['ansible_host'] == SSH_ADDRESS
        assert set(variables) == DOCUMENTED_VARS | {'ansible_host'}
        assert SECRET_IMAGE not in output and 'image_source' not in output and 'instance_info' not in output
    cached = ''.join((cache_dir / name).read_text(encoding='utf-8') for name in os.listdir(str(cache_dir)))
    assert SSH_ADDRESS in cached
    assert SECRET_IMAGE not in cached and 'image_source' not in cached and 'instance_info' not in cached


def test_a_secret_named_instance_info_key_is_refused_before_ironic_is_asked(ironic, tmp_path):
    mark = ironic.log_mark()
    process = run(ironic, tmp_path, ['ansible-inventory', '--list'], {'host_address': 'instance_info:image_pull_secret'})
    assert process.returncode != 0
    assert "host_address names instance_info key 'image_pull_secret', which is named like a secret" \
        in ' '.join(process.stderr.split())
    assert [request for request in ironic.requests_since(mark) if '?sync=' not in request.path] == []


def test_compose_groups_and_keyed_groups(ironic, tmp_path, rack):
    config = {
        'filters': {'resource_class': rack['resource_class']},
        'compose': {'rack': "ironic_extra.rack | default('none')"},
        'groups': {'gpu': "'CUSTOM_INV_GPU' in ironic_traits"},
        'keyed_groups': [{'key': 'rack', 'prefix': 'rack'}, {'key': 'ironic_owner', 'prefix': 'owner',
                                                             'default_value': 'nobody'}],
    }
    _output, data = inventory_list(ironic, tmp_path, **config)
    hostvars = plain(data['_meta']['hostvars'])
    gpu = rack['gpu']['name']
    assert hostvars[gpu]['rack'] == 'r1' and hostvars[rack['broken']['name']]['rack'] == 'none'
    assert hosts_of(data, 'gpu') == {gpu}
    assert hosts_of(data, 'rack_r1') == {gpu}
    assert hosts_of(data, 'owner_infra') == {gpu}
    assert len(hosts_of(data, 'owner_nobody')) == 3


def test_strings_from_ironic_are_never_templated(ironic, tmp_path, rack):
    process = run(ironic, tmp_path, ['ansible', rack['gpu']['name'], '-m', 'ansible.builtin.debug', '-a',
                                     'msg={{ ironic_extra.note }}'],
                  {'filters': {'resource_class': rack['resource_class']}})
    assert process.returncode == 0, process.stdout + process.stderr
    assert '"msg": "{{ 7 * 6 }}"' in process.stdout


def test_cache_serves_the_second_read_without_asking_ironic(ironic, tmp_path, rack, fresh_node):
    cache_dir = tmp_path / 'cache'
    config = {'filters': {'resource_class': rack['resource_class']}, 'cache': True,
              'cache_plugin': 'ansible.builtin.jsonfile', 'cache_connection': str(cache_dir)}
    _output, first = inventory_list(ironic, tmp_path, **config)
    assert os.listdir(str(cache_dir))
    for name in os.listdir(str(cache_dir)):
        content = (cache_dir / name).read_text(encoding='utf-8')
        assert SECRET_CREDENTIAL not in content and SECRET_IMAGE not in content

    late = fresh_node(resource_class=rack['resource_class'])
    mark = ironic.log_mark()
    _output, cached = inventory_list(ironic, tmp_path, **config)
    assert [request for request in ironic.requests_since(mark) if '?sync=' not in request.path] == []
    assert set(cached['_meta']['hostvars']) == set(first['_meta']['hostvars'])

    process = run(ironic, tmp_path, ['ansible-inventory', '--list', '--flush-cache'], config)
    assert process.returncode == 0, process.stderr
    assert set(json.loads(process.stdout)['_meta']['hostvars']) == set(first['_meta']['hostvars']) | {late['name']}


def test_unreachable_ironic_fails_with_the_reason(ironic, tmp_path):
    process = run(ironic, tmp_path, ['ansible-inventory', '--list'], {'endpoint': 'http://127.0.0.1:9'})
    assert process.returncode != 0
    assert 'cannot reach Ironic at http://127.0.0.1:9' in process.stderr


def manageable_and_enrolled(ironic, fresh_node):
    """Three manageable nodes and an enrolled one, of a resource class of their own."""
    resource_class = 'adhoc-%s' % uuid.uuid4().hex[:8]
    raw = RawIronic(ironic)
    manageable = [fresh_node(resource_class=resource_class) for _index in range(3)]
    for node in manageable:
        raw.verb(node['uuid'], 'manage')
    return resource_class, manageable, fresh_node(resource_class=resource_class)


def test_a_command_on_a_host_runs_on_the_server_and_not_on_the_controller(ironic, tmp_path, fresh_node):
    node = fresh_node(resource_class='ssh-%s' % uuid.uuid4().hex[:8], extra={'ssh_address': '127.0.0.1'})
    process = run(ironic, tmp_path, ['ansible', node['name'], '-m', 'ansible.builtin.command', '-a', 'hostname'],
                  {'filters': {'resource_class': node['resource_class']}, 'host_address': 'extra:ssh_address',
                   # Nothing listens on port 9: the refusal shows where Ansible went.
                   'compose': {'ansible_port': '9'}})
    assert process.returncode == 4, process.stdout + process.stderr
    assert 'UNREACHABLE' in process.stdout and '127.0.0.1 port 9' in process.stdout, process.stdout


def test_lifecycle_tasks_delegated_to_localhost(ironic, tmp_path, fresh_node):
    resource_class, manageable, enrolled = manageable_and_enrolled(ironic, fresh_node)
    (tmp_path / 'provide.yml').write_text(json.dumps([{
        'hosts': 'provision_state_manageable', 'gather_facts': False,
        'tasks': [{'baremetal.lifecycle.baremetal_provision_state': {'node': '{{ inventory_hostname }}',
                                                                     'state': 'available'},
                   'delegate_to': 'localhost'}]}]), encoding='utf-8')
    process = run(ironic, tmp_path, ['ansible-playbook', 'provide.yml'], {'filters': {'resource_class': resource_class}})
    assert process.returncode == 0, process.stdout + process.stderr
    assert process.stdout.count('changed=1') == 3, process.stdout
    raw = RawIronic(ironic)
    assert [raw.node(node['uuid'])['provision_state'] for node in manageable] == ['available'] * 3
    assert raw.node(enrolled['uuid'])['provision_state'] == 'enroll'


def test_the_ad_hoc_command_of_the_issue(ironic, tmp_path, fresh_node):
    resource_class, manageable, enrolled = manageable_and_enrolled(ironic, fresh_node)
    process = run(ironic, tmp_path, [
        'ansible', 'provision_state_manageable', '-m', 'baremetal.lifecycle.baremetal_provision_state',
        '-a', 'node={{ inventory_hostname }} state=available'],
        {'filters': {'resource_class': resource_class}, 'controller_connection': True})
    assert process.returncode == 0, process.stdout + process.stderr
    assert process.stdout.count('CHANGED') == 3, process.stdout
    raw = RawIronic(ironic)
    assert [raw.node(node['uuid'])['provision_state'] for node in manageable] == ['available'] * 3
    assert raw.node(enrolled['uuid'])['provision_state'] == 'enroll'
