# -*- coding: utf-8 -*-
"""baremetal_node against a real Ironic: enrolling, key-by-key updates, ports and traits, secrets, deletion, and
bad input that must fail before anything is written."""

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
import uuid

import pytest

from nodes import KERNEL, RAMDISK, RawIronic
from proxy import FaultProxy, playing_ironic_api

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


@pytest.fixture(scope='module')
def raw(ironic):
    return RawIronic(ironic)


def new_mac():
    octets = uuid.uuid4().bytes[:3]
    return '52:54:00:%02x:%02x:%02x' % tuple(octets)


def closed_loopback_url():
    """A Redfish address nothing listens on: a port that was free a moment ago, on loopback only."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return 'http://127.0.0.1:%d' % sock.getsockname()[1]


def ports_of(ironic, node_uuid):
    ports = ironic.api('GET', '/ports?node_uuid=%s&detail=true' % node_uuid)['ports']
    return sorted(({'address': port['address'], 'pxe_enabled': port['pxe_enabled'],
                    'physical_network': port['physical_network'],
                    'local_link_connection': port['local_link_connection']} for port in ports),
                  key=lambda port: port['address'])


def stored_driver_info(ironic, node_uuid):
    """driver_info as Ironic stored it, secrets in clear: the API masks them, its database does not."""
    connection = sqlite3.connect('file:%s?mode=ro' % os.path.join(ironic.base_dir, 'ironic.sqlite'), uri=True)
    try:
        row = connection.execute('SELECT driver_info FROM nodes WHERE uuid = ?', (node_uuid,)).fetchone()
    finally:
        connection.close()
    return json.loads(row[0])


def assert_no_write(ironic, mark):
    assert ironic.write_requests_since(mark) == []


# -- enrolling and updating ---------------------------------------------------------------------------------

@pytest.mark.smoke
def test_enroll_with_every_field_leaves_the_node_in_enroll_and_a_rerun_writes_nothing(ironic, run_module, new_name):
    name, node_uuid, mac1, mac2 = new_name(), str(uuid.uuid4()), new_mac(), new_mac()
    args = dict(
        name=name, uuid=node_uuid, driver='fake-hardware',
        driver_info={'deploy_kernel': KERNEL, 'deploy_ramdisk': RAMDISK},
        properties={'cpu_arch': 'x86_64', 'memory_mb': 4096}, resource_class='baremetal-small',
        interfaces={'boot': 'fake', 'deploy': 'fake', 'inspect': 'no-inspect', 'raid': 'no-raid'},
        ports=[{'address': mac1.upper(), 'physical_network': 'provisioning',
                'local_link_connection': {'switch_id': 'AA:BB:CC:DD:EE:01', 'port_id': 'Ethernet1/7'}},
               {'address': mac2, 'pxe_enabled': False}],
        traits=['CUSTOM_RACK1', 'CUSTOM_GPU'], extra={'asset_tag': 'A-1234'},
        instance_info={'image_source': 'http://127.0.0.1:9/image.qcow2'}, owner='infra', lessee='tenant-a',
        description='spare database server', automated_clean=False)

    result = run_module('baremetal_node', diff=True, **args)

    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is True and result['created'] is True
    assert result['node']['uuid'] == node_uuid and result['node']['provision_state'] == 'enroll'
    node = ironic.api('GET', '/nodes/%s' % name)
    assert node['uuid'] == node_uuid and node['provision_state'] == 'enroll'
    assert node['driver_info'] == {'deploy_kernel': KERNEL, 'deploy_ramdisk': RAMDISK}
    assert node['properties'] == {'cpu_arch': 'x86_64', 'memory_mb': 4096}
    assert (node['boot_interface'], node['deploy_interface'], node['inspect_interface'], node['raid_interface']) == (
        'fake', 'fake', 'no-inspect', 'no-raid')
    assert sorted(node['traits']) == ['CUSTOM_GPU', 'CUSTOM_RACK1']
    assert (node['resource_class'], node['owner'], node['lessee'], node['description'], node['automated_clean']) == (
        'baremetal-small', 'infra', 'tenant-a', 'spare database server', False)
    assert node['extra'] == {'asset_tag': 'A-1234'}
    assert node['instance_info'] == {'image_source': 'http://127.0.0.1:9/image.qcow2'}
    assert ports_of(ironic, node_uuid) == sorted([
        {'address': mac1, 'pxe_enabled': True, 'physical_network': 'provisioning',
         'local_link_connection': {'switch_id': 'aa:bb:cc:dd:ee:01', 'port_id': 'Ethernet1/7'}},
        {'address': mac2, 'pxe_enabled': False, 'physical_network': None, 'local_link_connection': {}}],
        key=lambda port: port['address'])
    assert result['diff']['before'] == {} and result['diff']['after']['traits'] == ['CUSTOM_GPU', 'CUSTOM_RACK1']

    for check in (True, False):
        mark = ironic.log_mark()
        again = run_module('baremetal_node', check=check, diff=True, **args)
        assert again['changed'] is False, again.get('diff')
        assert again['diff'] == {'before': {}, 'after': {}}
        assert_no_write(ironic, mark)


def test_check_mode_enroll_reports_the_node_and_writes_nothing(ironic, run_module, new_name):
    name = new_name()
    mark = ironic.log_mark()
    result = run_module('baremetal_node', check=True, diff=True, name=name, driver='fake-hardware',
                        ports=[{'address': new_mac()}])
    assert result['changed'] is True and result['created'] is True and result['node'] is None
    assert result['diff']['after']['driver'] == 'fake-hardware'
    assert_no_write(ironic, mark)
    assert ironic.api('GET', '/nodes/%s' % name, expect=(404,))


def test_dict_fields_are_updated_key_by_key_and_inspected_keys_survive(ironic, run_module, fresh_node):
    node = fresh_node(properties={'cpu_arch': 'x86_64', 'memory_mb': 1024, 'local_gb': 10, 'cpus': 8},
                      extra={'rack': 'r1', 'slot': 4})
    result = run_module('baremetal_node', diff=True, name=node['name'],
                        properties={'memory_mb': 2048, 'local_gb': None, 'cpu_arch': 'x86_64'},
                        extra={'owner_team': 'db'})
    assert result['changed'] is True
    current = ironic.api('GET', '/nodes/%s' % node['uuid'])
    assert current['properties'] == {'cpu_arch': 'x86_64', 'memory_mb': 2048, 'cpus': 8}
    assert current['extra'] == {'rack': 'r1', 'slot': 4, 'owner_team': 'db'}
    assert result['diff'] == {'before': {'properties': {'memory_mb': 1024, 'local_gb': 10}, 'extra': {}},
                              'after': {'properties': {'memory_mb': 2048}, 'extra': {'owner_team': 'db'}}}

    mark = ironic.log_mark()
    again = run_module('baremetal_node', name=node['name'],
                       properties={'memory_mb': 2048, 'local_gb': None}, extra={'owner_team': 'db'})
    assert again['changed'] is False
    assert_no_write(ironic, mark)


def test_integer_properties_given_as_strings_of_digits_are_written_as_integers_with_a_warning(
        raw, run_module, fresh_node):
    # properties=cpus=8 (key=value) or a templated value hands the module the string "8": Ironic would store it so.
    node = fresh_node(properties={'cpu_arch': 'x86_64'})
    result = run_module('baremetal_node', name=node['name'], properties={'cpus': '8', 'memory_mb': 4096})
    assert result['changed'] is True, result
    assert raw.node(node['uuid'])['properties'] == {'cpu_arch': 'x86_64', 'cpus': 8, 'memory_mb': 4096}
    # ansible-core 2.19 and later hand warnings over as WarningSummary objects.
    warnings = [warning if isinstance(warning, str) else warning['event']['msg'] for warning in result['warnings']]
    assert warnings == [
        "properties.cpus was given as the string '8' and is sent to Ironic as the integer 8: write it as a number "
        "(cpus: 8); arguments written name=value (properties=cpus=8) and templated values are strings."]
    again = run_module('baremetal_node', name=node['name'], properties={'cpus': 8, 'memory_mb': 4096})
    assert again['changed'] is False and not again.get('warnings'), again


def test_ports_and_traits_become_exactly_the_lists_given(ironic, run_module, new_name):
    name, kept, dropped, added = new_name(), new_mac(), new_mac(), new_mac()
    created = run_module('baremetal_node', name=name, driver='fake-hardware', traits=['CUSTOM_A', 'CUSTOM_B'],
                         ports=[{'address': kept}, {'address': dropped}])
    node_uuid = created['node']['uuid']

    result = run_module('baremetal_node', diff=True, name=name, traits=['CUSTOM_B', 'CUSTOM_C'],
                        ports=[{'address': kept, 'pxe_enabled': False, 'physical_network': 'storage'},
                               {'address': added}])
    assert result['changed'] is True
    assert [port['address'] for port in ports_of(ironic, node_uuid)] == sorted([kept, added])
    kept_port = next(port for port in ports_of(ironic, node_uuid) if port['address'] == kept)
    assert (kept_port['pxe_enabled'], kept_port['physical_network']) == (False, 'storage')
    assert sorted(ironic.api('GET', '/nodes/%s' % name)['traits']) == ['CUSTOM_B', 'CUSTOM_C']
    assert result['diff']['before']['traits'] == ['CUSTOM_A', 'CUSTOM_B']
    assert result['diff']['after']['traits'] == ['CUSTOM_B', 'CUSTOM_C']

    mark = ironic.log_mark()
    untouched = run_module('baremetal_node', name=name, description=None)
    assert untouched['changed'] is False and len(untouched['node']['ports']) == 2
    assert_no_write(ironic, mark)

    cleared = run_module('baremetal_node', name=name, ports=[], traits=[])
    assert cleared['changed'] is True
    assert ports_of(ironic, node_uuid) == [] and ironic.api('GET', '/nodes/%s' % name)['traits'] == []


def test_changing_the_driver_gives_the_new_one_its_default_interfaces(ironic, run_module, fresh_node):
    node = fresh_node(driver_info={'deploy_kernel': KERNEL})
    result = run_module('baremetal_node', name=node['name'], driver='redfish',
                        driver_info={'redfish_address': closed_loopback_url()})
    assert not result.get('failed'), result.get('msg')
    current = ironic.api('GET', '/nodes/%s' % node['uuid'])
    assert current['driver'] == 'redfish' and current['power_interface'] == 'redfish'
    assert current['driver_info']['deploy_kernel'] == KERNEL


def test_validate_interfaces_returns_ironics_verdict_per_interface(run_module, fresh_node):
    node = fresh_node()
    result = run_module('baremetal_node', name=node['name'], validate_interfaces=True)
    assert result['changed'] is False
    assert result['validation']['power'] == {'result': True}
    assert set(result['validation']) >= {'boot', 'deploy', 'management', 'power'}


# -- secrets ------------------------------------------------------------------------------------------------

def test_secrets_are_sent_on_create_never_compared_and_rotated_with_always(ironic, run_module, new_name):
    name, address = new_name(), closed_loopback_url()
    first, second = 'Zq-first-%s' % uuid.uuid4().hex, 'Zq-second-%s' % uuid.uuid4().hex
    driver_info = {'redfish_address': address, 'redfish_username': 'admin', 'redfish_password': first}

    created = run_module('baremetal_node', diff=True, name=name, driver='redfish', driver_info=driver_info)
    node_uuid = created['node']['uuid']
    assert stored_driver_info(ironic, node_uuid)['redfish_password'] == first
    assert created['node']['driver_info']['redfish_password'] == '********'

    mark = ironic.log_mark()
    unchanged = run_module('baremetal_node', diff=True, name=name, driver='redfish',
                           driver_info=dict(driver_info, redfish_password=second))
    assert unchanged['changed'] is False
    assert_no_write(ironic, mark)
    assert stored_driver_info(ironic, node_uuid)['redfish_password'] == first

    rotated = run_module('baremetal_node', diff=True, name=name, driver='redfish', update_secrets='always',
                         driver_info=dict(driver_info, redfish_password=second))
    assert rotated['changed'] is True
    assert rotated['diff']['after'] == {'driver_info': {'redfish_password': '********'}}
    # Nothing listens at the BMC address: the check after the write (verify_bmc) fails the task, naming the node.
    assert rotated['failed'] is True and rotated['bmc_verified'] is False
    assert rotated['msg'].startswith('node %s: Ironic cannot use its BMC with the new driver_info' % name), rotated['msg']
    assert stored_driver_info(ironic, node_uuid)['redfish_password'] == second

    for result in (created, unchanged, rotated):
        text = json.dumps(result)
        assert first not in text and second not in text


def run_playbook_verbosely(ironic, playbook):
    """ansible-playbook -vvvv --diff against the session Ironic: (process, stdout and stderr), to grep for secrets."""
    bin_dir = os.path.dirname(sys.executable)  # the ansible-core under test (tests/conftest.py)
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith('OS_'))
    env.update(ANSIBLE_CONFIG=os.path.join(REPO, 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_COLLECTIONS_PATH=os.path.join(REPO, '.work', 'collections'),
               OS_CLIENT_CONFIG_FILE=ironic.clouds_yaml, OS_CLOUD=ironic.cloud_name)
    process = subprocess.run([os.path.join(bin_dir, 'ansible-playbook'), '-vvvv', '--diff', str(playbook)],
                             cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False)
    return process, process.stdout + process.stderr


def test_secrets_never_reach_ansible_output_even_at_vvvv(ironic, new_name, tmp_path):
    name, secret = new_name(), 'Zq-vvvv-%s' % uuid.uuid4().hex
    playbook = tmp_path / 'secrets.yml'
    playbook.write_text('''
- name: Secrets in every kind of output
  hosts: localhost
  gather_facts: false
  vars:
    bmc:
      redfish_address: %(address)s
      redfish_password: %(secret)s
  tasks:
    - name: Enroll
      baremetal.lifecycle.baremetal_node:
        name: %(name)s
        driver: redfish
        driver_info: "{{ bmc }}"
    - name: Rotate, in check mode
      baremetal.lifecycle.baremetal_node:
        name: %(name)s
        driver_info: "{{ bmc }}"
        update_secrets: always
      check_mode: true
    - name: Fail on a misspelled key next to the secret
      baremetal.lifecycle.baremetal_node:
        name: %(name)s
        driver_info: "{{ bmc | combine({'redfish_usernme': 'admin'}) }}"
      ignore_errors: true
''' % {'name': name, 'secret': secret, 'address': closed_loopback_url()})
    process, output = run_playbook_verbosely(ironic, playbook)

    assert process.returncode == 0, output[-4000:]
    # the output does show the arguments and the diff, with the secret scrubbed out of them
    assert '"invocation"' in output and 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER' in output
    assert "did you mean 'redfish_username'?" in output
    assert secret not in output
    node = ironic.api('GET', '/nodes/%s' % name)
    assert stored_driver_info(ironic, node['uuid'])['redfish_password'] == secret


# -- bad input: fails with the problem and the fix, and Ironic is unchanged -----------------------------------

# Each entry: the options of one node, and texts the error must hold. tests/integration/test_node_bulk.py applies
# the same catalogue to an element of nodes.
BAD_INPUT = [
    ({'driver': 'nosuch-hardware'}, ["unknown driver 'nosuch-hardware'", 'validate_driver_info: false']),
    ({'driver': 'redfsh', 'driver_info': {'redfish_address': 'http://127.0.0.1:9'}},
     ["unknown driver 'redfsh' (did you mean 'redfish'?)"]),
    ({'driver': 'ipmi', 'driver_info': {'ipmi_address': '127.0.0.1'}},
     ["Ironic does not enable the hardware type 'ipmi'", 'fake-hardware, manual-management, redfish',
      'enabled_hardware_types']),
    ({'driver': 'ipmi', 'driver_info': {'ipmi_adress': '127.0.0.1'}},
     ["driver_info key 'ipmi_adress' is not known for hardware type 'ipmi' (did you mean 'ipmi_address'?)",
      'Set validate_driver_info: false to pass vendor-specific keys.']),
    ({'driver': 'redfish', 'driver_info': {'redfish_adress': 'http://127.0.0.1:9'}},
     ["did you mean 'redfish_address'?"]),
    ({'driver': 'redfish', 'driver_info': {'redfish_username': 'admin'}},
     ["driver_info key 'redfish_address' is required for hardware type 'redfish': add it to driver_info."]),
    ({'driver': 'redfish', 'driver_info': {'redfish_address': 'http://127.0.0.1:9', 'redfish_verify_ca': 5,
                                           'redfish_auth_type': 'kerberos'}},
     ["'redfish_verify_ca' must be a boolean or a string, got 5 (int)",
      "'redfish_auth_type' must be one of 'basic', 'session', 'auto', got 'kerberos'"]),
    ({'driver': 'fake-hardware', 'ports': [{'address': '52:54:00:zz:00:01'}]},
     ["ports[0].address '52:54:00:zz:00:01' is not a MAC address", 'for example 52:54:00:12:34:56']),
    ({'driver': 'fake-hardware', 'traits': ['custom_gpu']},
     ["trait 'custom_gpu' is not a trait name", 'CUSTOM_ followed by A-Z, 0-9 and _']),
    ({'driver': 'fake-hardware', 'protected': True, 'protected_reason': 'production'},
     ["(being created) cannot change to True: Ironic protects a node only in active or rescue, and it is 'enroll'"]),
    ({'driver': 'fake-hardware', 'retired': False, 'retired_reason': 'old'},
     ['retired_reason is only kept while retired is true', 'drop retired_reason or set retired: true']),
]


@pytest.mark.parametrize('args, expected', BAD_INPUT)
def test_bad_input_fails_before_any_write(ironic, run_module, new_name, args, expected):
    name = new_name()
    mark = ironic.log_mark()
    result = run_module('baremetal_node', name=name, **args)
    assert result['failed'] is True
    for text in expected:
        assert text in result['msg']
    assert_no_write(ironic, mark)
    assert ironic.api('GET', '/nodes/%s' % name, expect=(404,))


def test_a_record_ironic_refuses_halfway_is_taken_back(ironic, run_module, new_name):
    # Shaped like a standard trait, but os-traits has no such name: only Ironic can tell, after the POST.
    name = new_name()
    result = run_module('baremetal_node', name=name, driver='fake-hardware', traits=['HW_NO_SUCH_TRAIT'])
    assert result['failed'] is True and 'HW_NO_SUCH_TRAIT' in result['msg']
    assert (result['changed'], result['created'], result['node']) == (False, False, None)
    assert ironic.api('GET', '/nodes/%s' % name, expect=(404,))


def test_a_mac_address_of_another_node_is_refused_naming_that_node(ironic, run_module, fresh_node, new_name):
    other, mac = fresh_node(), new_mac()
    port = ironic.api('POST', '/ports', {'node_uuid': other['uuid'], 'address': mac})
    existing, missing = fresh_node(), new_name()
    for name in (missing, existing['name']):
        mark = ironic.log_mark()
        result = run_module('baremetal_node', name=name, driver='fake-hardware', ports=[{'address': mac.upper()}])
        assert result['failed'] is True
        assert 'MAC %s is already used by port %s of node %s' % (mac, port['uuid'], other['name']) in result['msg']
        assert 'Remove that port' in result['msg']
        assert_no_write(ironic, mark)
    assert ironic.api('GET', '/nodes/%s' % missing, expect=(404,))
    assert ports_of(ironic, existing['uuid']) == []


def test_vendor_keys_pass_with_validate_driver_info_false(ironic, run_module, new_name):
    name = new_name()
    result = run_module('baremetal_node', name=name, driver='fake-hardware', validate_driver_info=False,
                        driver_info={'vendor_boot_quirk': 'on'})
    assert not result.get('failed'), result.get('msg')
    assert ironic.api('GET', '/nodes/%s' % name)['driver_info'] == {'vendor_boot_quirk': 'on'}
    # the day-to-day declaration, validated, names the same driver and no driver_info: the vendor key is the node's
    # own, not one left from another hardware type
    mark = ironic.log_mark()
    again = run_module('baremetal_node', name=name, driver='fake-hardware')
    assert not again.get('failed'), again.get('msg')
    assert again['changed'] is False
    assert_no_write(ironic, mark)


def test_without_jsonschema_a_node_without_driver_info_enrolls_and_driver_info_names_the_pip_command(
        ironic, run_playbook, new_name, tmp_path):
    """A user with ansible-core alone (issue 27): jsonschema is needed only to check driver_info keys, and its absence
    is reported with the command that installs the collection's requirements, before anything is written."""
    blocker = tmp_path / 'no-jsonschema'
    blocker.mkdir()
    (blocker / 'sitecustomize.py').write_text("import sys\nsys.modules['jsonschema'] = None  # as if not installed\n",
                                              encoding='utf-8')
    plain, ipmi = new_name(), new_name()
    rc, output = run_playbook('''
- hosts: localhost
  gather_facts: false
  environment:
    PYTHONPATH: %s
  tasks:
    - name: Enroll a fake-hardware node without driver_info
      baremetal.lifecycle.baremetal_node:
        name: %s
        driver: fake-hardware
    - name: Enroll an ipmi node with driver_info to check
      baremetal.lifecycle.baremetal_node:
        name: %s
        driver: ipmi
        driver_info:
          ipmi_address: 127.0.0.1
''' % (blocker, plain, ipmi))
    assert rc == 2, output
    assert ironic.api('GET', '/nodes/%s' % plain)['driver'] == 'fake-hardware'
    assert ironic.api('GET', '/nodes/%s' % ipmi, expect=(404,)) is not None
    message = ' '.join(output.split())
    assert 'Validating driver_info needs the Python library jsonschema, which this Python (' in message, output
    assert (' -m pip install -r ~/.ansible/collections/ansible_collections/baremetal/lifecycle/requirements.txt (that is '
            "where ansible-galaxy installs the collection by default; 'ansible-galaxy collection list "
            "baremetal.lifecycle' shows where it is). Or set validate_driver_info: false" in message), output


def test_an_existing_node_needs_no_driver_but_a_new_one_does(ironic, run_module, new_name):
    name = new_name()
    mark = ironic.log_mark()
    result = run_module('baremetal_node', name=name, properties={'cpu_arch': 'x86_64'})
    assert result['failed'] is True and 'does not exist; set driver to enroll it' in result['msg']
    assert_no_write(ironic, mark)


# -- deleting -----------------------------------------------------------------------------------------------

def test_absent_deletes_an_enrolled_node_and_its_ports_and_then_is_a_no_op(ironic, run_module, new_name):
    name = new_name()
    address = new_mac()
    node_uuid = run_module('baremetal_node', name=name, driver='fake-hardware',
                           ports=[{'address': address}])['node']['uuid']
    mark = ironic.log_mark()
    assert run_module('baremetal_node', check=True, name=name, state='absent')['changed'] is True
    assert_no_write(ironic, mark)

    result = run_module('baremetal_node', name=name, state='absent')
    assert result['changed'] is True and result['plan'] == []
    # One DELETE, which takes the node's port with it: a refused DELETE leaves the node with its ports.
    assert [(request.method, request.path) for request in ironic.write_requests_since(mark)] == [
        ('DELETE', '/v1/nodes/%s' % node_uuid)]
    assert ironic.api('GET', '/nodes/%s' % node_uuid, expect=(404,))
    assert ironic.api('GET', '/ports?address=%s' % address)['ports'] == []

    mark = ironic.log_mark()
    again = run_module('baremetal_node', name=name, state='absent')
    assert again['changed'] is False
    assert_no_write(ironic, mark)


def test_absent_refuses_to_tear_down_an_active_node_without_allow_destructive(ironic, raw, run_module):
    node = raw.node_in('active')
    mark = ironic.log_mark()
    refused = run_module('baremetal_node', name=node['name'], state='absent')
    assert refused['failed'] is True and refused['changed'] is False
    assert 'undeploy (active -> available)' in refused['msg'] and 'allow_destructive: true' in refused['msg']
    assert_no_write(ironic, mark)
    assert raw.node(node['uuid'])['provision_state'] == 'active'

    preview = run_module('baremetal_node', check=True, name=node['name'], state='absent', allow_destructive=True)
    assert [(step['verb'], step['to']) for step in preview['plan']] == [
        ('deleted', 'available'), ('manage', 'manageable')]
    assert_no_write(ironic, mark)

    deleted = run_module('baremetal_node', name=node['name'], state='absent', allow_destructive=True)
    assert not deleted.get('failed'), deleted.get('msg')
    assert [(step['verb'], step['to']) for step in deleted['transitions']] == [
        ('deleted', 'available'), ('manage', 'manageable')]
    assert ironic.api('GET', '/nodes/%s' % node['uuid'], expect=(404,))


def test_absent_manages_an_available_node_first_which_needs_no_opt_in(ironic, raw, run_module):
    node = raw.node_in('available')
    result = run_module('baremetal_node', name=node['name'], state='absent')
    assert not result.get('failed'), result.get('msg')
    assert [(step['verb'], step['cleans_disks'], step['destructive']) for step in result['plan']] == [
        ('manage', False, False)]
    assert [(step['from'], step['to']) for step in result['transitions']] == [('available', 'manageable')]
    assert ironic.api('GET', '/nodes/%s' % node['uuid'], expect=(404,))


def test_keep_workload_detaches_an_active_node_without_an_undeploy_and_another_ironic_adopts_it(
        ironic, shared_ironic, run_module, new_name):
    # The move between two Ironic instances: deployed on the session's Ironic, detached there, adopted on another
    # (a second Ironic of the default configuration, shared with test_examples.py's move: its node is deleted).
    name, mac = new_name(), new_mac()
    record = {'name': name, 'driver': 'fake-hardware', 'ports': [{'address': mac}],
              'instance_info': {'image_source': 'http://127.0.0.1:9/workload.img'}}
    enrolled = run_module('baremetal_node', **record)
    assert not enrolled.get('failed'), enrolled.get('msg')
    node_uuid = enrolled['node']['uuid']
    deployed = run_module('baremetal_provision_state', node=name, state='active')
    assert deployed['node']['provision_state'] == 'active', deployed.get('msg')

    mark = ironic.log_mark()
    preview = run_module('baremetal_node', check=True, diff=True, name=name, state='absent', keep_workload=True)
    assert preview['changed'] is True and preview['plan'] == [], preview.get('msg')
    assert preview['detach']['provision_state'] == 'active' and preview['detach']['maintenance_set'] is True
    assert preview['diff']['before']['name'] == name and preview['diff']['after'] == {}
    assert_no_write(ironic, mark)

    detached = run_module('baremetal_node', name=name, state='absent', keep_workload=True)
    assert detached['changed'] is True and detached['plan'] == [] and detached['transitions'] == [], detached.get('msg')
    # No provision-state PUT (no undeploy, no cleaning): the maintenance PUT, then the DELETE that takes the port.
    assert [(request.method, request.path) for request in ironic.write_requests_since(mark)] == [
        ('PUT', '/v1/nodes/%s/maintenance' % node_uuid), ('DELETE', '/v1/nodes/%s' % node_uuid)]
    assert ironic.api('GET', '/nodes/%s' % node_uuid, expect=(404,))
    assert ironic.api('GET', '/ports?address=%s' % mac)['ports'] == []
    assert run_module('baremetal_node', name=name, state='absent', keep_workload=True)['changed'] is False

    other = shared_ironic()
    enrolled = run_module('baremetal_node', endpoint=other.endpoint, **record)
    assert enrolled['created'] is True, enrolled.get('msg')
    try:
        adopted = run_module('baremetal_provision_state', endpoint=other.endpoint, node=name, state='active',
                             adopt=True)
        assert [step['verb'] for step in adopted['transitions']] == ['manage', 'adopt'], adopted.get('msg')
        assert other.api('GET', '/v1/nodes/%s' % name)['provision_state'] == 'active'
    finally:
        other.api('PUT', '/v1/nodes/%s/maintenance' % name, {'reason': 'test over'})  # deletes it in any state
        other.api('DELETE', '/v1/nodes/%s' % name)


def test_keep_workload_refuses_a_protected_node_before_any_write_and_without_it_an_active_node_is_refused_as_before(
        ironic, raw, run_module):
    node = raw.node_in('active')
    raw.patch(node['uuid'], protected=True)
    mark = ironic.log_mark()
    refused = run_module('baremetal_node', nodes=[{'name': node['name'], 'state': 'absent', 'keep_workload': True}])
    assert refused['failed'] is True and not refused.get('changed')
    assert ('node %s cannot be deleted: Ironic deletes no protected node, and it is protected. Set protected: false'
            % node['name']) in refused['msg']
    assert_no_write(ironic, mark)
    raw.patch(node['uuid'], protected=False)
    mark = ironic.log_mark()
    without = run_module('baremetal_node', name=node['name'], state='absent')
    assert without['failed'] is True and 'allow_destructive: true' in without['msg']
    assert_no_write(ironic, mark)
    assert raw.node(node['uuid'])['maintenance'] is False

    detached = run_module('baremetal_node', nodes=[{'name': node['name'], 'state': 'absent'}], keep_workload=True)
    assert not detached.get('failed'), detached.get('msg')
    assert detached['nodes'][0]['detach']['maintenance_set'] is True
    assert ironic.api('GET', '/nodes/%s' % node['uuid'], expect=(404,))


def test_a_node_is_put_in_a_conductor_group_its_conductor_serves(shared_ironic, run_module):
    # An Ironic whose only conductor serves the group rack1 (shared with test_ironic_standalone.py, which creates no
    # node on it). Ironic looks up the conductors of a new node's group as the POST spells it, so the module sends it
    # in lower case, as Ironic stores it.
    instance = shared_ironic(ironic_standalone_conductor_groups=['rack1'])
    name = 'grouped-%s' % uuid.uuid4().hex[:8]
    declared = {'name': name, 'driver': 'fake-hardware', 'conductor_group': 'RACK1'}

    created = run_module('baremetal_node', endpoint=instance.endpoint, **declared)
    assert created['changed'] is True, created.get('msg')
    assert instance.api('GET', '/v1/nodes/%s' % name)['conductor_group'] == 'rack1'

    mark = instance.log_mark()
    again = run_module('baremetal_node', endpoint=instance.endpoint, nodes=[declared])
    assert again['changed'] is False, again.get('msg')
    assert instance.write_requests_since(mark) == []

    # Spelled as declared: the filter finds the group Ironic stored in lower case.
    listed = run_module('baremetal_node_info', endpoint=instance.endpoint, conductor_group='RACK1')
    assert [node['name'] for node in listed['nodes']] == [name]
    assert run_module('baremetal_node_info', endpoint=instance.endpoint, conductor_group='')['nodes'] == []

    # The conductor of rack1 verifies it: the group is the one that drives the node.
    moved = run_module('baremetal_provision_state', endpoint=instance.endpoint, node=name, state='manageable')
    assert moved['node']['provision_state'] == 'manageable', moved.get('msg')

    # A group no conductor serves: Ironic refuses the PATCH, and the result says nothing changed.
    refused = run_module('baremetal_node', endpoint=instance.endpoint, name=name, conductor_group='rack9')
    assert refused['failed'] is True and 'rack9' in refused['msg']
    assert refused['changed'] is False and refused['node']['conductor_group'] == 'rack1'
    assert instance.api('GET', '/v1/nodes/%s' % name)['conductor_group'] == 'rack1'

    # ... nor does it create a node in that group: nothing was created, nothing changed.
    other = 'grouped-%s' % uuid.uuid4().hex[:8]
    refused = run_module('baremetal_node', endpoint=instance.endpoint,
                         nodes=[{'name': other, 'driver': 'fake-hardware', 'conductor_group': 'rack9'}])
    assert refused['failed'] is True and 'rack9' in refused['msg']
    assert refused['changed'] is False and refused['totals']['changed'] == 0
    assert [(entry['created'], entry['changed'], entry['node']) for entry in refused['nodes']] == [(False, False, None)]
    assert instance.api('GET', '/v1/nodes/%s' % other, expect=(404,))


# -- fields of newer APIs: disable_power_off (1.95), health (1.109), history (1.78) ---------------------------------

def test_disable_power_off_is_declared_and_a_rerun_writes_nothing(ironic, run_module, fresh_node):
    node = fresh_node()
    result = run_module('baremetal_node', name=node['name'], disable_power_off=True)
    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is True and result['node']['disable_power_off'] is True
    assert ironic.api('GET', '/nodes/%s' % node['uuid'])['disable_power_off'] is True
    mark = ironic.log_mark()
    again = run_module('baremetal_node', name=node['name'], disable_power_off=True)
    assert again['changed'] is False
    assert_no_write(ironic, mark)


def test_every_view_has_health_and_disable_power_off_on_an_ironic_that_has_them(run_module, fresh_node):
    node = fresh_node(disable_power_off=True)
    listed = run_module('baremetal_node_info', node=node['name'])['nodes'][0]
    # fake-hardware reports no health: Ironic knows none.
    assert listed['disable_power_off'] is True and 'health' in listed and listed['health'] is None
    assert 'history' not in listed


def test_an_older_ironic_gives_views_without_the_newer_fields_and_refuses_them_declared(ironic, run_module, fresh_node):
    node = fresh_node()
    mark = ironic.log_mark()
    with FaultProxy(ironic.port, answer=playing_ironic_api('1.94')) as proxy:
        listed = run_module('baremetal_node_info', node=node['name'], endpoint=proxy.endpoint)
        declared = run_module('baremetal_node', name=node['name'], disable_power_off=True, endpoint=proxy.endpoint)
    assert not listed.get('failed'), listed.get('msg')
    assert 'disable_power_off' not in listed['nodes'][0] and 'health' not in listed['nodes'][0]
    assert declared['failed'] and 'disable_power_off needs Ironic API 1.95 or newer; this server supports up to 1.94' in declared['msg']
    assert_no_write(ironic, mark)


# -- instance_name (1.104): a record field declared by its row of node/record_fields.py alone ---------------------

def test_instance_name_is_set_read_back_and_a_rerun_writes_nothing(ironic, run_module, fresh_node):
    node = fresh_node()
    mark = ironic.log_mark()
    planned = run_module('baremetal_node', check=True, diff=True, name=node['name'], instance_name='db-primary')
    assert not planned.get('failed'), planned.get('msg')
    assert planned['changed'] is True
    assert planned['diff'] == {'before': {'instance_name': None}, 'after': {'instance_name': 'db-primary'}}
    assert_no_write(ironic, mark)
    assert ironic.api('GET', '/nodes/%s' % node['uuid'])['instance_name'] is None

    result = run_module('baremetal_node', name=node['name'], instance_name='db-primary')
    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is True and result['node']['instance_name'] == 'db-primary'
    assert ironic.api('GET', '/nodes/%s' % node['uuid'])['instance_name'] == 'db-primary'
    mark = ironic.log_mark()
    again = run_module('baremetal_node', nodes=[{'name': node['name'], 'instance_name': 'db-primary'}])
    assert not again.get('failed'), again.get('msg')
    assert again['changed'] is False and again['nodes'][0]['node']['instance_name'] == 'db-primary'
    assert_no_write(ironic, mark)


def test_instance_name_is_given_to_a_node_created_with_it(ironic, run_module, new_name):
    name = new_name()
    result = run_module('baremetal_node', nodes=[{'name': name, 'driver': 'fake-hardware', 'instance_name': 'web-1'}])
    assert not result.get('failed'), result.get('msg')
    assert result['nodes'][0]['created'] is True and result['nodes'][0]['node']['instance_name'] == 'web-1'
    assert ironic.api('GET', '/nodes/%s' % name)['instance_name'] == 'web-1'


def test_an_ironic_older_than_instance_name_refuses_it_before_any_write_and_views_lack_it(
        ironic, run_module, fresh_node):
    node = fresh_node()
    mark = ironic.log_mark()
    with FaultProxy(ironic.port, answer=playing_ironic_api('1.103')) as proxy:
        declared = run_module('baremetal_node', name=node['name'], owner='team-a', instance_name='db-primary',
                              endpoint=proxy.endpoint)
        checked = run_module('baremetal_node', check=True, name=node['name'], instance_name='db-primary',
                             endpoint=proxy.endpoint)
        viewed = run_module('baremetal_node', name=node['name'], endpoint=proxy.endpoint)
    assert declared['failed'] and not declared.get('changed')
    assert 'instance_name needs Ironic API 1.104 or newer; this server supports up to 1.103' in declared['msg']
    assert checked['failed'] and 'instance_name needs Ironic API 1.104' in checked['msg']
    assert_no_write(ironic, mark)
    assert ironic.api('GET', '/nodes/%s' % node['uuid'])['owner'] is None
    assert not viewed.get('failed'), viewed.get('msg')
    assert 'instance_name' not in viewed['node'] and viewed['node']['owner'] is None


def wait_for_state(ironic, node, state, seconds=60):
    deadline = time.monotonic() + seconds
    while ironic.api('GET', '/nodes/%s' % node['uuid'])['provision_state'] != state:
        assert time.monotonic() < deadline, 'node %s never reached %s' % (node['name'], state)
        time.sleep(0.2)


def test_history_lists_each_nodes_events_with_their_state_and_duration(ironic, run_module, fresh_node):
    node = fresh_node()
    # A failed clean is an event Ironic records.
    ironic.api('PUT', '/nodes/%s/states/provision' % node['uuid'], {'target': 'manage'})
    wait_for_state(ironic, node, 'manageable')
    ironic.api('PUT', '/nodes/%s/states/provision' % node['uuid'],
               {'target': 'clean', 'clean_steps': [{'interface': 'deploy', 'step': 'no_such_step'}]})
    wait_for_state(ironic, node, 'clean failed')
    result = run_module('baremetal_node_info', node=node['name'], history=True)
    assert not result.get('failed'), result.get('msg')
    events = result['nodes'][0]['history']
    recorded = ironic.api('GET', '/nodes/%s/history?detail=true' % node['uuid'])['history']
    assert any('no_such_step' in event['event'] for event in events)
    assert [event['uuid'] for event in events] == [event['uuid'] for event in recorded]
    for event in events:
        assert {'uuid', 'created_at', 'event', 'state', 'duration_seconds'} <= set(event) and 'links' not in event


def test_history_on_an_ironic_without_it_is_refused_before_any_node_is_read(ironic, run_module, fresh_node):
    fresh_node()
    mark = ironic.log_mark()
    with FaultProxy(ironic.port, answer=playing_ironic_api('1.77')) as proxy:
        result = run_module('baremetal_node_info', history=True, endpoint=proxy.endpoint)
    assert result['failed']
    assert 'history needs Ironic API 1.78 or newer; this server supports up to 1.77' in result['msg']
    assert [request.path for request in ironic.requests_since(mark) if request.path.startswith('/v1/nodes')] == []


def test_node_info_finds_a_node_by_name_as_by_node_and_by_the_mac_address_of_a_port(ironic, run_module, fresh_node):
    node = fresh_node()
    ironic.api('POST', '/v1/ports', {'node_uuid': node['uuid'], 'address': '52:54:00:7e:57:01'})
    by_node = run_module('baremetal_node_info', node=node['name'])
    by_name = run_module('baremetal_node_info', name=node['name'])  # as openstack.cloud's module says it
    assert not by_name.get('failed'), by_name.get('msg')
    assert by_name['nodes'] == by_node['nodes'] and by_name['nodes'][0]['uuid'] == node['uuid']
    by_mac = run_module('baremetal_node_info', mac='52:54:00:7E:57:01')  # in any case
    assert not by_mac.get('failed'), by_mac.get('msg')
    assert [listed['uuid'] for listed in by_mac['nodes']] == [node['uuid']]
    # No port has it: no node, as openstack.cloud's module answers, and no failure.
    unknown = run_module('baremetal_node_info', mac='52:54:00:7e:57:99')
    assert not unknown.get('failed') and unknown['changed'] is False and unknown['nodes'] == [], unknown
    mark = ironic.log_mark()
    malformed = run_module('baremetal_node_info', mac='52-54-00-7e-57-01')
    assert malformed['failed'] and malformed['msg'] == ("mac '52-54-00-7e-57-01' is not a MAC address; write six "
                                                        "hexadecimal octets separated by colons, for example "
                                                        "52:54:00:12:34:56.")
    assert [request for request in ironic.requests_since(mark) if '?sync=' not in request.path] == []  # not even a read


def test_baremetal_node_takes_node_as_the_other_modules_do(ironic, run_module, fresh_node):
    node = fresh_node()
    result = run_module('baremetal_node', diff=True, node=node['name'], description='racked by the vocabulary test')
    assert not result.get('failed'), result.get('msg')
    assert result['changed'] is True
    assert ironic.api('GET', '/v1/nodes/%s' % node['uuid'])['description'] == 'racked by the vocabulary test'
