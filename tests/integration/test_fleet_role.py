# -*- coding: utf-8 -*-
"""The role baremetal.lifecycle.fleet against a real Ironic, beyond its Molecule scenario (extensions/molecule/fleet):
an invalid description fails before anything is sent, naming node and field, check mode changes nothing, and a fleet
file may hold vault values."""

from __future__ import annotations

import json
import textwrap
import uuid

from ansible.parsing.vault import VaultLib, VaultSecret

PLAYBOOK = '''
- name: Converge a fleet
  hosts: localhost
  gather_facts: false
  check_mode: %(check)s
  roles:
    - role: baremetal.lifecycle.fleet
'''

BMC_PASSWORD = 'role-bmc-%s' % uuid.uuid4().hex[:8]


def converge(run_playbook, nodes, check=False, **role_vars):
    return run_playbook(PLAYBOOK % {'check': 'true' if check else 'false'}, dict(role_vars, fleet_nodes=nodes))


def test_an_invalid_description_names_node_and_field_and_sends_nothing(ironic, run_playbook):
    tag = uuid.uuid4().hex[:6]
    nodes = [
        {'name': 'role-ok-%s' % tag, 'driver': 'fake-hardware'},
        {'name': 'role-bad-%s' % tag, 'driver': 'fake-hardware', 'ports': [{'address': '52:54:00:zz:00:01'}],
         'provision_state': 'deployed'},
        {'name': 'role-ipmi-%s' % tag, 'driver': 'ipmi',
         'driver_info': {'ipmi_address': '127.0.0.1', 'ipmi_port': 'six', 'ipmi_password': [BMC_PASSWORD]}},
        {'name': 'role-ok-%s' % tag, 'driver': 'fake-hardware', 'drvier': 'typo'},
    ]
    mark = ironic.log_mark()
    rc, output = converge(run_playbook, nodes)
    assert rc != 0
    assert ironic.write_requests_since(mark) == []
    assert 'nothing was sent to Ironic' in output
    for message in (
            "fleet[1] (role-bad-%s): ports[0].address '52:54:00:zz:00:01' is not a MAC address; write six "
            "hexadecimal octets separated by colons, for example 52:54:00:12:34:56." % tag,
            "fleet[1] (role-bad-%s): provision_state: must be one of enroll, manageable, available, active, rescue, "
            "got 'deployed'" % tag,
            "fleet[2] (role-ipmi-%s): driver_info key 'ipmi_port' must be an integer" % tag,
            "fleet[3] (role-ok-%s): drvier: is not a known field (did you mean 'driver'?)" % tag,
            "fleet[3] (role-ok-%s): name: 'role-ok-%s' is also declared by fleet[0] (role-ok-%s)" % (tag, tag, tag)):
        assert message in output, output
    assert BMC_PASSWORD not in output


def test_check_mode_changes_nothing_and_shows_the_plan(ironic, run_playbook, fresh_node):
    existing = fresh_node()
    new_name = 'role-new-%s' % uuid.uuid4().hex[:6]
    nodes = [{'name': existing['name'], 'driver': 'fake-hardware', 'provision_state': 'manageable'},
             {'name': new_name, 'driver': 'fake-hardware', 'maintenance': True, 'maintenance_reason': 'rack move'}]
    mark = ironic.log_mark()
    rc, output = converge(run_playbook, nodes, check=True)
    assert rc == 0, output
    assert ironic.write_requests_since(mark) == []
    assert ironic.api('GET', '/nodes/%s' % new_name, expect=(404,))
    summary = [line.strip(' ",') for line in output.splitlines() if existing['name'] in line or new_name in line]
    assert any(line.split()[:5] == [existing['name'], 'ok', '-', 'enroll', '->'] and line.endswith('manage')
               for line in summary), summary
    assert any(line.split()[:2] == [new_name, 'would'] for line in summary), summary


def test_converge_fails_after_reporting_every_node_when_too_many_fail(ironic, run_playbook, fresh_node):
    good = 'role-good-%s' % uuid.uuid4().hex[:6]
    held = fresh_node()
    ironic.api('PUT', '/nodes/%s/maintenance' % held['uuid'], {'reason': 'out of band'})
    nodes = [{'name': good, 'driver': 'fake-hardware', 'provision_state': 'manageable'},
             {'name': held['name'], 'driver': 'fake-hardware', 'provision_state': 'manageable'}]
    try:
        rc, output = converge(run_playbook, nodes)
        assert rc != 0
        assert ironic.api('GET', '/nodes/%s' % good)['provision_state'] == 'manageable'
        summary = json.dumps([line for line in output.splitlines() if held['name'] in line])
        assert 'is in maintenance (reason: out of band)' in summary
        assert '1 of the 2 nodes to change failed' in output
    finally:
        ironic.api('DELETE', '/nodes/%s' % good, expect=None)


def test_a_fleet_file_is_read_with_the_vault_secrets_of_the_play(ironic, run_playbook, tmp_path, monkeypatch):
    """An inline !vault value is decrypted, and so is a file encrypted as a whole; no string of the file is templated."""
    name = 'role-vault-%s' % uuid.uuid4().hex[:6]
    password = tmp_path / 'vault-password'
    password.write_text('fleet-vault-%s' % uuid.uuid4().hex, encoding='utf-8')
    monkeypatch.setenv('ANSIBLE_VAULT_PASSWORD_FILE', str(password))
    vault = VaultLib([('default', VaultSecret(password.read_bytes()))])
    inline = tmp_path / 'inline.yml'
    inline.write_text('- name: %s\n  driver: fake-hardware\n  provision_state: enroll\n  extra: {note: "{{ 7 * 6 }}"}\n'
                      '  description: !vault |\n%s'
                      % (name, textwrap.indent(vault.encrypt('Described in a vault').decode(), '    ')),
                      encoding='utf-8')
    whole = tmp_path / 'whole.yml'
    whole.write_bytes(vault.encrypt(json.dumps([{'name': name, 'driver': 'fake-hardware', 'provision_state': 'enroll',
                                                 'description': 'Encrypted as a whole', 'extra': {'note': '{{ 7 * 6 }}'}}])))
    try:
        for fleet_file, description in ((inline, 'Described in a vault'), (whole, 'Encrypted as a whole')):
            rc, output = run_playbook(PLAYBOOK % {'check': 'false'}, {'fleet_file': str(fleet_file)})
            assert rc == 0, output
            node = ironic.api('GET', '/nodes/%s' % name)
            assert (node['description'], node['extra']) == (description, {'note': '{{ 7 * 6 }}'})
    finally:
        ironic.api('DELETE', '/nodes/%s' % name, expect=None)


WAVE_CHECK = '''
- name: Record the nodes of the wave the role checks
  ansible.builtin.lineinfile:
    path: %(log)s
    line: "{{ fleet_wave_number }}: {{ fleet_wave_nodes | join(',') }}"
    create: true
    mode: "0600"

- name: Fail the check of wave %(failing)s, as a load balancer that does not see its nodes back would
  ansible.builtin.fail:
    msg: "wave {{ fleet_wave_number }} is not serving"
  when: fleet_wave_number | int == %(failing)s
'''


def test_a_rollout_runs_the_fleets_own_check_after_each_wave_and_stops_when_it_fails(ironic, run_playbook, fresh_node, tmp_path):
    nodes = [fresh_node() for _index in range(6)]
    log = tmp_path / 'waves.log'
    check = tmp_path / 'check.yml'
    check.write_text(WAVE_CHECK % {'log': log, 'failing': 2}, encoding='utf-8')
    fleet = [{'name': node['name'], 'driver': 'fake-hardware', 'provision_state': 'manageable'} for node in nodes]
    names = [node['name'] for node in nodes]

    rc, output = converge(run_playbook, fleet, fleet_wave_size='2', fleet_wave_check=str(check))
    assert rc != 0, output
    assert "wave 2 is not serving" in output
    # The check saw each wave that ran, with its nodes in the fleet's order; the third wave never started.
    assert log.read_text(encoding='utf-8').splitlines() == ['1: %s' % ','.join(names[:2]), '2: %s' % ','.join(names[2:4])]
    assert [ironic.api('GET', '/nodes/%s' % name)['provision_state'] for name in names] == ['manageable'] * 4 + ['enroll'] * 2
    summary = [line for line in output.splitlines() if names[5] in line]
    assert any('not started' in line for line in summary), summary

    # A rerun with a check that passes carries on with the last wave only.
    check.write_text(WAVE_CHECK % {'log': log, 'failing': 0}, encoding='utf-8')
    log.unlink()
    rc, output = converge(run_playbook, fleet, fleet_wave_size='2', fleet_wave_check=str(check))
    assert rc == 0, output
    assert log.read_text(encoding='utf-8').splitlines() == ['1: %s' % ','.join(names[4:])]
    assert [ironic.api('GET', '/nodes/%s' % name)['provision_state'] for name in names] == ['manageable'] * 6


def test_a_rollout_stops_once_its_failures_are_over_the_budget(ironic, run_playbook, fresh_node, tmp_path):
    nodes = [fresh_node() for _index in range(4)]
    ironic.api('PUT', '/nodes/%s/maintenance' % nodes[1]['uuid'], {'reason': 'out of band'})
    check = tmp_path / 'check.yml'
    log = tmp_path / 'waves.log'
    check.write_text(WAVE_CHECK % {'log': log, 'failing': 0}, encoding='utf-8')
    fleet = [{'name': node['name'], 'driver': 'fake-hardware', 'provision_state': 'manageable'} for node in nodes]
    rc, output = converge(run_playbook, fleet, fleet_wave_size='2', fleet_wave_check=str(check))
    assert rc != 0, output
    assert '1 of the 4 nodes of the rollout failed (fleet_max_fail_percentage is 0): %s' % nodes[1]['name'] in output
    assert not log.exists()  # the check never ran: the wave failed first
    assert [ironic.api('GET', '/nodes/%s' % node['uuid'])['provision_state'] for node in nodes] == (
        ['manageable', 'enroll', 'enroll', 'enroll'])


def test_port_groups_and_network_data_of_a_fleet_file_reach_ironic_and_a_rerun_changes_nothing(ironic, run_playbook):
    tag = uuid.uuid4().hex[:6]
    name, mac = 'role-wired-%s' % tag, '52:54:00:%s:%s:%s' % (tag[0:2], tag[2:4], tag[4:6])
    node = {'name': name, 'driver': 'fake-hardware', 'provision_state': 'enroll',
            'port_groups': [{'name': 'bond-%s' % tag, 'mode': '802.3ad'}],
            'ports': [{'address': mac, 'port_group': 'bond-%s' % tag}],
            'network_data': {'links': [{'id': 'port0', 'type': 'phy', 'ethernet_mac_address': mac}],
                             'networks': [], 'services': []}}
    try:
        rc, output = converge(run_playbook, [node])
        assert rc == 0, output
        group = ironic.api('GET', '/portgroups/bond-%s' % tag)
        assert group['mode'] == '802.3ad'
        assert ironic.api('GET', '/ports?address=%s&fields=portgroup_uuid' % mac)['ports'][0]['portgroup_uuid'] == \
            group['uuid']
        assert ironic.api('GET', '/nodes/%s' % name)['network_data'] == node['network_data']
        mark = ironic.log_mark()
        rc, output = converge(run_playbook, [node])
        assert rc == 0, output
        assert ironic.write_requests_since(mark) == []
    finally:
        ironic.api('DELETE', '/nodes/%s' % name, expect=None)


def summary_of(output):
    """The lines of the role's summary task, as the debug callback prints them (one JSON string a line)."""
    lines = output.splitlines()
    task = next(index for index, line in enumerate(lines) if 'Show the fleet summary' in line)
    start = next(index for index in range(task, len(lines)) if lines[index].strip() == '"msg": [')
    end = next(index for index in range(start, len(lines)) if lines[index].strip() == ']')
    return [line.strip(' ",') for line in lines[start + 1:end]]


def test_a_task_that_fails_ends_the_role_with_its_summary_naming_the_failed_and_the_not_reached_and_the_play_fails(
        ironic, run_playbook, raw, new_name):
    """The records task fails on one node (Ironic changes no resource_class of an active node); the provision task
    never runs. The summary still comes, and the play fails."""
    # Ironic refuses a new resource_class to an active node that has one (conductor/manager.py, update_node).
    active = raw.create(prefix='role-active', resource_class='summary-old')
    for verb in ('manage', 'provide', 'active'):
        active = raw.verb(active['uuid'], verb)
    assert active['provision_state'] == 'active', active
    new = new_name()
    nodes = [{'name': new, 'driver': 'fake-hardware', 'provision_state': 'manageable'},
             {'name': active['name'], 'driver': 'fake-hardware', 'provision_state': 'active',
              'resource_class': 'summary-%s' % uuid.uuid4().hex[:6]}]
    rc, output = converge(run_playbook, nodes)
    assert rc != 0, output
    assert 'failed=1' in output.split('PLAY RECAP')[-1]
    summary = summary_of(output)
    assert summary[0].split()[:6] == ['NODE', 'RECORD', 'MAINTENANCE', 'PROVISION', 'STATE', 'STEPS'], summary
    # The node that failed is named with Ironic's reason; the new node was never moved to manageable.
    assert any(active['name'] in line and 'resource_class' in line for line in summary), summary
    assert any(line.startswith(new) and 'not reached' in line for line in summary), summary
    assert any('not reached' in line and line.split()[0] == '2' for line in summary), summary
    assert ironic.api('GET', '/nodes/%s' % active['uuid'])['resource_class'] == 'summary-old'
    assert ironic.api('GET', '/nodes/%s' % new, expect=(200, 404)).get('provision_state', 'enroll') == 'enroll'
