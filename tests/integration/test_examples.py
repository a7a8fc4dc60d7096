# -*- coding: utf-8 -*-
"""Every YAML example of README.md, roles/*/README.md and docs/*.md runs as written, against the session's Ironic
(and sushy-tools' Redfish emulator where an example names a BMC), so that an example that stops working fails
``make test``.

Each fenced ```yaml block is one example, classified by its shape (``kind``):

- ``tasks``: a list of tasks, not runnable alone: the test wraps it into a play on localhost;
- ``playbook``: plays on localhost; ``inventory-playbook``: plays on the hosts of the inventory example
  (README.md's ``nodes.ironic.yml``), run with ``-i`` and a ``--limit`` to the test's nodes (the session's Ironic
  holds other tests' nodes, which an example must not move: that is what ``--limit`` is for);
- ``inventory``: a ``plugin: baremetal.lifecycle.ironic`` file, read with ``ansible-inventory --list``;
- ``static-inventory``: a YAML inventory file (``all:`` and its groups), run with the playbooks of its page;
- ``fleet``: a fleet file, written as ``fleet.yml`` beside the playbooks of the same page, which read it;
- ``bifrost``: a Bifrost inventory (a mapping of node name to node), written as ``baremetal.yml`` likewise.

A block that cannot run (it needs real servers) is marked right before it with
``<!-- example: not-run (the reason) -->``; ``test_every_example_is_run_or_marked`` fails for any other block that
no test below runs (``RUN``).

What the test changes, and nothing else:

- the cloud: the examples say ``cloud: baremetal-lifecycle-local`` (``make demo``'s) or ``production``; the test's
  own clouds.yaml (``OS_CLIENT_CONFIG_FILE``) gives those names to the test's Ironic, and ``OS_CLOUD`` is
  ``baremetal-lifecycle-local`` for the examples that name no cloud;
- the BMC: the examples name a Redfish BMC at ``http://127.0.0.1:8000`` (sushy-tools' default port); that port may
  be taken on a shared machine, so the test replaces that address with the one of the emulator it started, on a
  free port;
- variables: ``vault_bmc_password`` and ``vault_new_bmc_password`` are given as extra vars (as a vault would give
  them), and so are the ``ironic_standalone_*`` paths and port of the role's example (extra vars win over the
  example's ``vars:``), so that its Ironic runs on a free port, from the tests' Ironic virtualenv, in a temporary
  directory;
- the nodes: the test creates the nodes an example expects (``rack1-node07``, manageable nodes, a web tier), in
  the state a reader would have them, and deletes them afterwards.
"""

from __future__ import annotations

import base64
import glob
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
import uuid

import pytest
import yaml

from nodes import RawIronic
from proxy import ImageServer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)  # the ansible-core under test (tests/conftest.py)
COLLECTIONS = os.path.join(ROOT, '.work', 'collections')
IRONIC_VENV = os.environ.get('BAREMETAL_LIFECYCLE_IRONIC_VENV') or os.path.join(ROOT, '.work', 'ironic-venv')

EXAMPLE_BMC = 'http://127.0.0.1:8000'
EXAMPLE_CLOUD = 'baremetal-lifecycle-local'
FLEET_BMC_PASSWORD = 'example-only'  # the password roles/fleet/README.md's fleet file gives its BMC

# A web node is active with an image, as a deployed server is (Ironic 39 fails a rebuild with HTTP 500 when the
# node has none: an unbound local variable in conductor/deployments.py). Port 9 is closed: the fake deploy
# interface never downloads it anyway.
WEB_IMAGE = {'image_source': 'http://127.0.0.1:9/web.img'}

FENCE = re.compile(r'^```yaml\n(.*?)^```', re.S | re.M)
NOT_RUN = re.compile(r'<!-- example: not-run \((?P<reason>[^)]*\S[^)]*)\) -->\s*\Z')

# (page, kind) of every example a test below runs.
RUN = {
    ('README.md', 'tasks'), ('docs/engine.md', 'tasks'), ('docs/changing-a-live-fleet.md', 'tasks'),
    ('docs/fleet-report.md', 'tasks'),
    ('README.md', 'inventory'), ('README.md', 'inventory-playbook'),
    ('docs/changing-a-live-fleet.md', 'inventory-playbook'),
    ('README.md', 'playbook'),
    ('roles/fleet/README.md', 'fleet'), ('roles/fleet/README.md', 'playbook'),
    ('roles/ironic_standalone/README.md', 'playbook'),
    ('docs/credential-rotation.md', 'playbook'),
    ('docs/inspection-rules.md', 'tasks'),
    ('docs/moving-a-node.md', 'tasks'),
    ('docs/migrating-from-openstack-cloud.md', 'tasks'),
    ('docs/deploy-templates.md', 'tasks'),
    ('docs/moving-from-bifrost.md', 'bifrost'), ('docs/moving-from-bifrost.md', 'playbook'),
    # Run by test_firmware_campaign.py, against the Ironic whose Redfish firmware interface updates in seconds.
    ('docs/firmware-campaigns.md', 'tasks'),
    # Run by test_job_slices.py, as AWX job slices against a split Ironic.
    ('docs/awx-job-slicing.md', 'static-inventory'), ('docs/awx-job-slicing.md', 'inventory-playbook'),
}


def pages():
    found = (sorted(glob.glob(os.path.join(ROOT, 'roles', '*', 'README.md')))
             + sorted(glob.glob(os.path.join(ROOT, 'docs', '*.md'))))
    return ['README.md'] + [os.path.relpath(path, ROOT) for path in found]


def kind_of(data):
    if isinstance(data, dict) and str(data.get('plugin', '')).endswith('.ironic'):
        return 'inventory'
    if isinstance(data, dict) and list(data) == ['all']:
        return 'static-inventory'
    if isinstance(data, dict) and data and all(isinstance(item, dict) and 'driver' in item for item in data.values()):
        return 'bifrost'
    if isinstance(data, list) and data and all(isinstance(item, dict) for item in data):
        if all('hosts' in item for item in data):
            return 'playbook' if all(item['hosts'] == 'localhost' for item in data) else 'inventory-playbook'
        if all('driver' in item for item in data):
            return 'fleet'
        return 'tasks'
    return 'unknown'


def examples(page):
    """Every ```yaml block of ``page``: dicts with ``page``, ``line``, ``text``, ``kind`` and ``not_run`` (the
    reason of its marker, or None)."""
    with open(os.path.join(ROOT, page), encoding='utf-8') as stream:
        text = stream.read()
    found = []
    for match in FENCE.finditer(text):
        marker = NOT_RUN.search(text[:match.start()])
        found.append({'page': page, 'line': text.count('\n', 0, match.start()) + 1, 'text': match.group(1),
                      'kind': kind_of(yaml.safe_load(match.group(1))),
                      'not_run': marker.group('reason') if marker else None})
    return found


def claim(page, kind):
    """The texts of the examples of ``kind`` on ``page`` that are to run (RUN lists them)."""
    assert (page, kind) in RUN
    texts = [example['text'] for example in examples(page) if example['kind'] == kind and not example['not_run']]
    assert texts, 'no %s example left on %s: update RUN' % (kind, page)
    return texts


def test_every_example_is_run_or_marked():
    seen = set()
    for page in pages():
        for example in examples(page):
            where = '%s:%d' % (page, example['line'])
            assert example['kind'] != 'unknown', '%s: an example of no known shape' % where
            if example['not_run'] is None:
                assert (page, example['kind']) in RUN, (
                    '%s: a %s example no test runs: run it in %s, or mark it <!-- example: not-run (why) -->'
                    % (where, example['kind'], __file__))
                seen.add((page, example['kind']))
    assert seen == RUN, 'RUN names examples that do not exist (any more): %s' % sorted(RUN - seen)


# --- running them --------------------------------------------------------------------------------------------

def write_clouds(path, instances):
    """A clouds.yaml giving each name the cloud of an ``IronicInstance``."""
    clouds = {}
    for name, instance in instances.items():
        with open(instance.clouds_yaml, encoding='utf-8') as stream:
            clouds[name] = yaml.safe_load(stream)['clouds'][instance.cloud_name]
    path.write_text(yaml.safe_dump({'clouds': clouds}), encoding='utf-8')
    return str(path)


def ansible_argv(command, clouds_yaml, extra_vars=None, args=()):
    """(argv, env) of an ansible command of the ansible-core under test, with the installed collection and
    ``clouds_yaml``'s EXAMPLE_CLOUD."""
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith(('OS_', 'ANSIBLE_')))
    env.update(ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_COLLECTIONS_PATH=COLLECTIONS,
               ANSIBLE_NOCOLOR='1', ANSIBLE_INVENTORY_UNPARSED_FAILED='true',
               OS_CLIENT_CONFIG_FILE=clouds_yaml, OS_CLOUD=EXAMPLE_CLOUD,
               PATH=BIN + os.pathsep + os.environ.get('PATH', ''))
    argv = [os.path.join(BIN, command[0])] + list(command[1:]) + list(args)
    if extra_vars:
        argv += ['-e', json.dumps(extra_vars)]
    return argv, env


def ansible(command, cwd, clouds_yaml, extra_vars=None, args=()):
    """Run an ansible command of the ansible-core under test in ``cwd``; returns (rc, output)."""
    argv, env = ansible_argv(command, clouds_yaml, extra_vars, args)
    process = subprocess.run(argv, cwd=str(cwd), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=900, check=False)
    return process.returncode, process.stdout


def wrap(tasks):
    """Task examples as one play on localhost, in the order of the list."""
    return '- name: The task examples\n  hosts: localhost\n  gather_facts: false\n  tasks:\n' + ''.join(
        '\n'.join('    ' + line if line else line for line in text.splitlines()) + '\n' for text in tasks)


def with_bmc(text, bmc):
    assert EXAMPLE_BMC in text
    return text.replace(EXAMPLE_BMC, bmc.address)


def free_loopback_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def delete_nodes(ironic, names):
    for name in names:
        if ironic.api('DELETE', '/nodes/%s' % name, expect=None) is not None:
            ironic.api('PUT', '/nodes/%s/maintenance' % name, {'reason': 'test cleanup'}, expect=None)
            ironic.api('DELETE', '/nodes/%s' % name, expect=None)


def state_of(ironic, name):
    return ironic.api('GET', '/nodes/%s' % name)['provision_state']


@pytest.fixture
def clouds(ironic, tmp_path):
    return write_clouds(tmp_path / 'clouds.yaml', {EXAMPLE_CLOUD: ironic})


@pytest.fixture
def raw(ironic):
    return RawIronic(ironic)


@pytest.fixture
def nodes(ironic, raw):
    """``nodes(state, name=None, **fields)``: a fake-hardware node resting in ``state`` (named ``name``, or
    RawIronic's unique name), deleted after the test."""
    made = []

    def make(state, name=None, **fields):
        node = raw.node_in(state)
        made.append(node['uuid'])
        changes = dict(fields, **({'name': name} if name else {}))
        if changes:
            node = ironic.api('PATCH', '/nodes/%s' % node['uuid'], [
                {'op': 'add', 'path': '/%s' % key, 'value': value} for key, value in changes.items()])
        return node

    yield make
    delete_nodes(ironic, made)


def test_the_task_examples_run_in_a_play(ironic, nodes, clouds, tmp_path):
    """README.md's and docs/engine.md's deploy of rack1-node07, docs/changing-a-live-fleet.md's re-image of the
    web tier in waves, docs/fleet-report.md's report, in one play."""
    nodes('available', name='rack1-node07')
    web = nodes('active', resource_class='web', instance_info=WEB_IMAGE)
    tasks = (claim('README.md', 'tasks') + claim('docs/engine.md', 'tasks')
             + claim('docs/changing-a-live-fleet.md', 'tasks') + claim('docs/fleet-report.md', 'tasks'))
    (tmp_path / 'tasks.yml').write_text(wrap(tasks), encoding='utf-8')

    rc, output = ansible(['ansible-playbook', 'tasks.yml'], tmp_path, clouds)

    assert rc == 0, output
    assert state_of(ironic, 'rack1-node07') == 'active'
    assert state_of(ironic, web['uuid']) == 'active'
    assert 'wave 1/1' in output, output  # the web tier was re-imaged, in one wave of its one node


def test_the_inspection_rule_examples_declare_their_rules(ironic, clouds, tmp_path):
    """docs/inspection-rules.md's rules, declared, then declared again without a change; deleted afterwards."""
    (tmp_path / 'tasks.yml').write_text(wrap(claim('docs/inspection-rules.md', 'tasks')), encoding='utf-8')
    rules = ('x86 nodes', 'large memory', 'BMC password')
    secret = {'vault_bmc_password': 'pw-%s' % uuid.uuid4().hex}
    try:
        rc, output = ansible(['ansible-playbook', 'tasks.yml'], tmp_path, clouds, extra_vars=secret)
        assert rc == 0, output
        stored = dict((rule['description'], rule) for rule in
                      ironic.api('GET', '/inspection_rules?detail=true')['inspection_rules'])
        assert stored['x86 nodes']['actions'][0] == {'op': 'add-trait', 'args': {'name': 'CUSTOM_X86'}}
        assert stored['BMC password']['sensitive'] is True and stored['large memory']['priority'] == 0
        rc, output = ansible(['ansible-playbook', 'tasks.yml'], tmp_path, clouds, extra_vars=secret)
        assert rc == 0 and 'changed=0' in output, output
        assert secret['vault_bmc_password'] not in output
    finally:
        for rule in ironic.api('GET', '/inspection_rules')['inspection_rules']:
            if rule['description'] in rules:
                ironic.api('DELETE', '/inspection_rules/%s' % rule['uuid'])


def inventory_file(tmp_path):
    (inventory,) = claim('README.md', 'inventory')
    path = tmp_path / 'nodes.ironic.yml'
    path.write_text(inventory, encoding='utf-8')
    return path


def test_the_inventory_example_lists_the_nodes_as_hosts_with_their_address(ironic, nodes, clouds, tmp_path):
    node = nodes('manageable', extra={'ssh_address': '192.0.2.17'})

    rc, output = ansible(['ansible-inventory', '-i', str(inventory_file(tmp_path)), '--host', node['name']],
                         tmp_path, clouds)

    assert rc == 0, output
    assert json.loads(output)['ansible_host'] == '192.0.2.17'


def test_the_inventory_examples_move_only_the_nodes_within_the_limit(ironic, nodes, clouds, tmp_path):
    """README.md's plays on provision_state_manageable, and docs/changing-a-live-fleet.md's waves of a play on
    resource_class_web, with the inventory example and a --limit that leaves one manageable node out: that node is
    not moved (the README's second play took every node of the group, --limit or not)."""
    inside = nodes('manageable', name='rack1-node11-%s' % uuid.uuid4().hex[:6])
    outside = nodes('manageable', name='rack1-node12-%s' % uuid.uuid4().hex[:6])
    web = nodes('active', resource_class='web', instance_info=WEB_IMAGE)
    inventory = inventory_file(tmp_path)
    for number, text in enumerate(claim('README.md', 'inventory-playbook')
                                  + claim('docs/changing-a-live-fleet.md', 'inventory-playbook')):
        (tmp_path / ('site-%d.yml' % number)).write_text(text, encoding='utf-8')
    playbooks = sorted(path.name for path in tmp_path.glob('site-*.yml'))

    # The limit names localhost as well, as it must for a playbook with a play on localhost (the README's example had
    # one: it took groups['provision_state_manageable'], which --limit does not change).
    rc, output = ansible(['ansible-playbook', '-i', str(inventory), '--limit',
                          '%s,%s,localhost' % (inside['name'], web['name'])] + playbooks, tmp_path, clouds)

    assert rc == 0, output
    assert state_of(ironic, inside['uuid']) == 'available'
    assert state_of(ironic, outside['uuid']) == 'manageable'
    assert state_of(ironic, web['uuid']) == 'active'  # the waves are shown in check mode
    assert '"plan.waves": [\n        [\n            "%s"' % web['name'] in output, output


def test_the_readme_enrolls_a_redfish_server_and_makes_it_manageable(ironic, redfish_bmc, clouds, tmp_path):
    bmc = redfish_bmc()
    (playbook,) = claim('README.md', 'playbook')
    (tmp_path / 'enroll.yml').write_text(with_bmc(playbook, bmc), encoding='utf-8')
    names = re.findall(r'name: (rack1-node\d+)', playbook)
    try:
        rc, output = ansible(['ansible-playbook', 'enroll.yml'], tmp_path, clouds,
                             extra_vars={'vault_bmc_password': bmc.password})

        assert rc == 0, output
        node = ironic.api('GET', '/nodes/%s' % names[0])
        assert (node['driver'], node['provision_state'], node['power_state']) == ('redfish', 'manageable', 'power off')
        assert bmc.password not in output
    finally:
        delete_nodes(ironic, names)


def test_the_fleet_role_converges_the_vault_encrypted_fleet_file(ironic, redfish_bmc, clouds, tmp_path):
    bmc = redfish_bmc(password=FLEET_BMC_PASSWORD)
    (fleet,) = claim('roles/fleet/README.md', 'fleet')
    (playbook,) = claim('roles/fleet/README.md', 'playbook')
    (tmp_path / 'fleet.yml').write_text(with_bmc(fleet, bmc), encoding='utf-8')
    (tmp_path / 'site.yml').write_text(playbook, encoding='utf-8')
    vault_password = tmp_path / 'vault-password'
    vault_password.write_text('vault-%s\n' % uuid.uuid4().hex, encoding='utf-8')
    vault = ['--vault-password-file', str(vault_password)]
    names = [node['name'] for node in yaml.safe_load(fleet)]
    try:
        # as the README says: ansible-vault encrypt fleet.yml
        rc, output = ansible(['ansible-vault', 'encrypt', 'fleet.yml'], tmp_path, clouds, args=vault)
        assert rc == 0, output
        assert FLEET_BMC_PASSWORD not in (tmp_path / 'fleet.yml').read_text(encoding='utf-8')

        rc, output = ansible(['ansible-playbook', 'site.yml'], tmp_path, clouds, args=vault)

        assert rc == 0, output
        assert [(node['driver'], node['provision_state'], node['maintenance'])
                for node in (ironic.api('GET', '/nodes/%s' % name) for name in names)] == [
            ('redfish', 'manageable', False), ('fake-hardware', 'available', False), ('fake-hardware', 'enroll', True)]
        assert FLEET_BMC_PASSWORD not in output
    finally:
        delete_nodes(ironic, names)


def test_the_bifrost_inventory_is_enrolled_and_a_second_run_writes_nothing(ironic, redfish_bmc, clouds, tmp_path):
    """docs/moving-from-bifrost.md: the role reads the Bifrost inventory, flattens its legacy driver_info, maps its
    nics and properties, and a second run writes nothing."""
    bmc = redfish_bmc(password=FLEET_BMC_PASSWORD)
    (inventory,) = claim('docs/moving-from-bifrost.md', 'bifrost')
    (playbook,) = claim('docs/moving-from-bifrost.md', 'playbook')
    (tmp_path / 'baremetal.yml').write_text(with_bmc(inventory, bmc), encoding='utf-8')
    (tmp_path / 'site.yml').write_text(playbook, encoding='utf-8')
    names = list(yaml.safe_load(inventory))
    try:
        rc, output = ansible(['ansible-playbook', 'site.yml'], tmp_path, clouds)

        assert rc == 0, output
        redfish, legacy = (ironic.api('GET', '/nodes/%s' % name) for name in names)
        assert (redfish['driver'], redfish['provision_state']) == ('redfish', 'manageable')
        assert redfish['properties']['memory_mb'] == 65536
        assert redfish['extra'] == {'ipv4_address': '192.0.2.21', 'host_groups': ['compute']}
        assert legacy['driver_info'] == {'deploy_kernel': 'http://192.0.2.1:8080/ipa.kernel',
                                         'deploy_ramdisk': 'http://192.0.2.1:8080/ipa.initramfs'}
        assert [port['address'] for port in ironic.api('GET', '/ports?node=%s' % names[1])['ports']] == [
            '52:54:00:22:00:01']
        assert FLEET_BMC_PASSWORD not in output

        mark = ironic.log_mark()
        rc, output = ansible(['ansible-playbook', 'site.yml'], tmp_path, clouds)
        assert rc == 0, output
        assert ironic.write_requests_since(mark) == []
    finally:
        delete_nodes(ironic, names)


def test_the_ironic_standalone_example_starts_an_ironic_and_enrolls_a_node_there(tmp_path):
    base_dir = tmp_path / 'ironic'
    clouds_yaml = str(tmp_path / 'standalone-clouds.yaml')
    role_vars = {'ironic_standalone_port': free_loopback_port(), 'ironic_standalone_base_dir': str(base_dir),
                 'ironic_standalone_venv': IRONIC_VENV, 'ironic_standalone_clouds_yaml': clouds_yaml}
    (playbook,) = claim('roles/ironic_standalone/README.md', 'playbook')
    (tmp_path / 'site.yml').write_text(playbook, encoding='utf-8')
    try:
        rc, output = ansible(['ansible-playbook', 'site.yml'], tmp_path, clouds_yaml, extra_vars=role_vars)

        assert rc == 0, output
        assert 'http://127.0.0.1:%d (Ironic API' % role_vars['ironic_standalone_port'] in output
        endpoint = 'http://127.0.0.1:%d' % role_vars['ironic_standalone_port']
        request = urllib.request.Request(endpoint + '/v1/nodes/dev-node-01',
                                         headers={'X-OpenStack-Ironic-API-Version': 'latest'})  # names: 1.5
        with urllib.request.urlopen(request, timeout=60) as response:
            assert json.loads(response.read())['driver'] == 'fake-hardware'
    finally:
        rc, output = ansible(['ansible-playbook', os.path.join(ROOT, 'playbooks', 'ironic_stop.yml')], tmp_path,
                             clouds_yaml, extra_vars=role_vars)
        assert rc == 0, output


def test_the_credential_rotation_example_rotates_the_password_of_rack2(make_ironic, redfish_bmc, tmp_path):
    """docs/credential-rotation.md's playbook on an Ironic whose conductor serves the conductor group rack2 (a node
    of a group no conductor serves cannot be changed), with the cloud ``production``."""
    rack2 = make_ironic()
    rack2.role_vars['ironic_standalone_conductor_groups'] = ['rack2']
    rack2.start()
    old, new = 'Zq-old-%s' % uuid.uuid4().hex, 'Zq-new-%s' % uuid.uuid4().hex
    bmc = redfish_bmc(systems=2, password=old)
    for index in range(2):
        rack2.api('POST', '/nodes', {'name': 'rack2-node%02d' % (index + 1), 'driver': 'redfish',
                                     'conductor_group': 'rack2', 'driver_info': bmc.driver_info(index)})
    bmc.set_password(new)
    clouds_yaml = write_clouds(tmp_path / 'clouds.yaml', {'production': rack2})
    (playbook,) = claim('docs/credential-rotation.md', 'playbook')
    (tmp_path / 'rotate.yml').write_text(playbook, encoding='utf-8')

    rc, output = ansible(['ansible-playbook', 'rotate.yml'], tmp_path, clouds_yaml,
                         extra_vars={'vault_new_bmc_password': new})

    assert rc == 0, output
    assert '"msg": [\n        "rack2-node01",\n        "rack2-node02"\n    ]' in output, output
    assert new not in output and old not in output


def power_on(bmc, index=0):
    """Power system ``index`` on at the BMC itself, as the running workload has it."""
    system = '%s/redfish/v1/Systems/%s' % (bmc.address, bmc.system_ids[index])
    request = urllib.request.Request(system + '/Actions/ComputerSystem.Reset', method='POST',
                                     data=json.dumps({'ResetType': 'On'}).encode(),
                                     headers={'Content-Type': 'application/json'})
    credentials = base64.b64encode(('admin:%s' % bmc.password).encode()).decode()
    request.add_unredirected_header('Authorization', 'Basic ' + credentials)
    with urllib.request.urlopen(request, timeout=10):
        pass
    deadline = time.monotonic() + 60  # the emulator applies a power change 1 to 11 s later, as hardware does
    while bmc.power_state(index) != 'On' and time.monotonic() < deadline:
        time.sleep(0.5)
    assert bmc.power_state(index) == 'On'


def test_the_move_between_two_ironic_instances_keeps_the_workload(shared_ironic, ironic, redfish_bmc, tmp_path):
    """docs/moving-a-node.md's tasks, in one play, between two Ironic processes (each its own port and database):
    rack1-node07, deployed on old-ironic, is detached there without an undeploy, then enrolled on new-ironic and
    adopted as active with the same instance_info; nobody touches its power. old-ironic is a second Ironic of the
    default configuration (shared with test_node.py's move), new-ironic the session's; the node is deleted from both
    at the end."""
    old, new = shared_ironic(), ironic
    try:
        move_rack1_node07(old, new, redfish_bmc, tmp_path)
    finally:
        delete_nodes(old, ['rack1-node07'])
        delete_nodes(new, ['rack1-node07'])


def move_rack1_node07(old, new, redfish_bmc, tmp_path):
    bmc = redfish_bmc()
    power_on(bmc)
    tasks = claim('docs/moving-a-node.md', 'tasks')
    image = re.search(r'image_source: (\S+)', tasks[1]).group(1)
    raw = RawIronic(old)
    node = raw.api('POST', '/nodes', {'name': 'rack1-node07', 'driver': 'fake-hardware',
                                      'instance_info': {'image_source': image}})
    raw.api('POST', '/ports', {'address': '52:54:00:12:34:56', 'node_uuid': node['uuid']})
    raw.verb(node['uuid'], 'manage')
    raw.verb(node['uuid'], 'provide')
    assert raw.verb(node['uuid'], 'active')['provision_state'] == 'active'
    old.api('PUT', '/nodes/%s/states/power' % node['uuid'], {'target': 'power on'})  # the fake deploy leaves it unset
    deadline = time.monotonic() + 60
    while old.api('GET', '/nodes/%s' % node['uuid'])['power_state'] != 'power on' and time.monotonic() < deadline:
        time.sleep(0.2)
    before = old.api('GET', '/nodes/%s' % node['uuid'])
    assert before['power_state'] == 'power on'
    clouds_yaml = write_clouds(tmp_path / 'clouds.yaml', {'old-ironic': old, 'new-ironic': new})
    (tmp_path / 'move.yml').write_text(with_bmc(wrap(tasks), bmc), encoding='utf-8')
    old_mark, new_mark = old.log_mark(), new.log_mark()
    bmc_mark = os.path.getsize(bmc.log_path)

    rc, output = ansible(['ansible-playbook', 'move.yml'], tmp_path, clouds_yaml,
                         extra_vars={'vault_bmc_password': bmc.password})

    assert rc == 0, output
    assert 'left in active, maintenance set first: True' in output, output
    # The old Ironic never undeployed: no provision-state request at all, only maintenance and the delete.
    assert [(request.method, request.path) for request in old.write_requests_since(old_mark)] == [
        ('PUT', '/v1/nodes/%s/maintenance' % node['uuid']), ('DELETE', '/v1/nodes/%s' % node['uuid'])]
    assert old.api('GET', '/nodes/rack1-node07', expect=(404,))
    # The new Ironic adopted it: active, with the same instance_info, without any power request.
    moved = new.api('GET', '/nodes/rack1-node07')
    assert (moved['driver'], moved['provision_state'], moved['power_state']) == ('redfish', 'active', 'power on')
    assert moved['instance_info'] == before['instance_info']
    written = [(request.method, request.path) for request in new.write_requests_since(new_mark)]
    assert [path for _method, path in written if path.endswith('/states/provision')] == [
        '/v1/nodes/%s/states/provision' % moved['uuid']] * 2  # manage, adopt
    assert not [path for _method, path in written if '/states/power' in path], written
    # The server kept running: the BMC was never asked to reset or power off.
    assert bmc.power_state() == 'On'
    with open(bmc.log_path, encoding='utf-8') as stream:
        stream.seek(bmc_mark)
        assert 'ComputerSystem.Reset' not in stream.read()
    assert bmc.password not in output


def test_the_migration_page_from_openstack_cloud_runs_in_a_play(ironic, nodes, redfish_bmc, clouds, tmp_path):
    """docs/migrating-from-openstack-cloud.md's tasks (this collection's, not openstack.cloud's), in one play:
    rack3-node01 enrolled from its Redfish BMC to manageable, rack3-node02 deployed, powered off, undeployed and
    inspected, the node of a MAC address read, a deploy template declared."""
    bmc = redfish_bmc()
    nodes('available', name='rack3-node02')
    (tmp_path / 'migrated.yml').write_text(with_bmc(wrap(claim('docs/migrating-from-openstack-cloud.md', 'tasks')),
                                                    bmc), encoding='utf-8')
    try:
        rc, output = ansible(['ansible-playbook', 'migrated.yml'], tmp_path, clouds,
                             extra_vars={'vault_bmc_password': bmc.password})

        assert rc == 0, output
        enrolled = ironic.api('GET', '/nodes/rack3-node01')
        assert (enrolled['driver'], enrolled['provision_state'], enrolled['properties']['memory_mb']) == (
            'redfish', 'manageable', 65536)
        moved = ironic.api('GET', '/nodes/rack3-node02')
        assert (moved['provision_state'], moved['power_state']) == ('manageable', 'power off')
        assert moved['inspection_finished_at'] is not None
        template = ironic.api('GET', '/deploy_templates/CUSTOM_HYPERTHREADING_OFF')
        assert [(step['interface'], step['step'], step['priority']) for step in template['steps']] == [
            ('bios', 'apply_configuration', 150)]
        assert bmc.password not in output
    finally:
        delete_nodes(ironic, ['rack3-node01'])
        ironic.api('DELETE', '/deploy_templates/CUSTOM_HYPERTHREADING_OFF', expect=None)


def test_the_deploy_template_example_deploys_a_redfish_server_with_the_templates_step(make_ironic, redfish_bmc,
                                                                                      tmp_path):
    """docs/deploy-templates.md's tasks, in one play, on an Ironic with the redfish RAID interface enabled (as the page
    says) and its virtual media served by an image server of the test: rack4-node01, a system of sushy-tools'
    emulator with a storage controller without volumes, deploys its ISO with the template's RAID step."""
    bmc = redfish_bmc(raid_controller=True)
    (tasks,) = claim('docs/deploy-templates.md', 'tasks')
    iso = re.search(r'boot_iso: (\S+)', tasks).group(1)
    with ImageServer(tmp_path) as images:
        ironic = images.start_ironic(make_ironic, raid=True)
        clouds_yaml = write_clouds(tmp_path / 'clouds.yaml', {EXAMPLE_CLOUD: ironic})
        (tmp_path / 'deploy.yml').write_text(with_bmc(wrap([tasks]), bmc).replace(iso, images.url()),
                                             encoding='utf-8')
        mark = ironic.log_mark()

        rc, output = ansible(['ansible-playbook', 'deploy.yml'], tmp_path, clouds_yaml,
                             extra_vars={'vault_bmc_password': bmc.password})

        assert rc == 0, output
        node = ironic.api('GET', '/nodes/rack4-node01')
        assert (node['provision_state'], node['instance_info']['traits']) == ('active', ['CUSTOM_RAID_CLEARED'])
        assert node['raid_config']['logical_disks'] == [] and node['raid_config']['last_updated'], node['raid_config']
        # The template's step ran before the deploy itself, on this node: it read the emulated BMC's (empty) RAID
        # volumes and recorded them in raid_config (the ramdisk deploy interface boots the ISO through virtual
        # media and needs no agent; a node whose instance traits name no template runs only deploy.deploy, shown on
        # fake hardware by test_deploy_template.py).
        ran = [line.split('Executing ', 1)[1] for line in ironic.log_since(mark).splitlines()
               if ' ironic.conductor.deployments ' in line and 'Executing {' in line
               and line.endswith('on node %s' % node['uuid'])]
        assert len(ran) == 2, ran
        assert ran[0].startswith("{'interface': 'raid', 'step': 'delete_configuration', 'args': {}, 'priority': 150}")
        assert "'step': 'deploy'" in ran[1] and "'interface': 'deploy'" in ran[1], ran
        assert '"GET /redfish/v1/Systems/%s/Storage/RAID/Volumes HTTP/1.1" 200' % bmc.system_ids[0] in bmc.log()
        assert bmc.password not in output
        ironic.stop()
