# -*- coding: utf-8 -*-
"""A fleet report page of any size without an Ironic that holds the fleet: the report built by the collection's own
code (fleet/report.build_report) from nodes as Ironic lists them, and the page written by Ansible's template module
from the playbook's own template, as playbooks/fleet_report.yml writes it.

The fleet: racks of 40 nodes named rackR-nodeNN over three resource classes. One node in ten drifts from its
declaration (its resource class), one in 25 is in maintenance, one in 50 failed its deployment with an error, and
the fleet declares one node that Ironic lacks. test_fleet_report.py opens the page of 10,000 nodes in Chromium;
bench/bench_fleet_report.py --page-sizes times how long Chromium takes to load pages of growing size.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.report import build_report

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATE = os.path.join(ROOT, 'playbooks', 'templates', 'fleet-report.html.j2')
CLASSES = ('gold', 'silver', 'bronze')

PLAYBOOK = '''---
- name: Write a fleet report page from a report in JSON, as playbooks/fleet_report.yml writes it
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Write fleet-report.html
      ansible.builtin.template:
        src: %(template)s
        dest: %(page)s
        mode: "0644"
      vars:
        report: "{{ lookup('ansible.builtin.file', '%(report)s') | ansible.builtin.from_json }}"
        report_source: fleet.yml
'''


def name_of(index):
    return 'rack%d-node%02d' % (index // 40 + 1, index % 40 + 1)


def ironic_node(index):
    """Node number index as Ironic lists it with the report's fields."""
    failed = index % 50 == 7
    return {'uuid': str(uuid.UUID(int=index + 1)), 'name': name_of(index),
            'provision_state': 'deploy failed' if failed else ('active' if index % 3 == 0 else 'available'),
            'target_provision_state': None, 'power_state': 'power on' if index % 3 == 0 else 'power off',
            'target_power_state': None, 'maintenance': index % 25 == 4,
            'maintenance_reason': 'Replacing a fan' if index % 25 == 4 else None, 'fault': None, 'retired': False,
            'retired_reason': None, 'protected': False, 'protected_reason': None, 'inspection_finished_at': None,
            'last_error': 'Deploy step deploy.deploy failed: the image checksum does not match' if failed else None,
            'disable_power_off': False, 'health': None, 'resource_class': CLASSES[index % 3], 'owner': None,
            'firmware_interface': 'no-firmware', 'properties': {'cpu_arch': 'x86_64'},
            'traits': ['CUSTOM_RACK%d' % (index // 40 + 1)], 'raid_config': {}, 'target_raid_config': {}}


def declared_node(index):
    """Node number index as the fleet file declares it: one node in ten declared in another resource class."""
    return {'name': name_of(index), 'driver': 'fake-hardware',
            'resource_class': 'gold-declared' if index % 10 == 3 else CLASSES[index % 3],
            'traits': ['CUSTOM_RACK%d' % (index // 40 + 1)]}


def report_of(size):
    """The report of a fleet of size nodes, built by the collection's code, with its drift from the fleet file."""
    read = {'nodes': [ironic_node(index) for index in range(size)], 'firmware': {}, 'bios': {},
            'firmware_read': False, 'firmware_note': None}
    fleet = [declared_node(index) for index in range(size)] + [{'name': 'rack999-ghost', 'driver': 'fake-hardware'}]
    return build_report(read, fleet, generated_at='2026-11-30T00:00:00Z', api_version='1.115')


def write_page(report, directory, env):
    """fleet-report.html of the report, written into directory by ansible-playbook with env (the installed
    collection's settings); returns its path."""
    report_path = os.path.join(str(directory), 'fleet-report.json')
    page = os.path.join(str(directory), 'fleet-report.html')
    with open(report_path, 'w', encoding='utf-8') as handle:
        json.dump(report, handle)
    playbook = os.path.join(str(directory), 'write-page.yml')
    with open(playbook, 'w', encoding='utf-8') as handle:
        handle.write(PLAYBOOK % {'template': TEMPLATE, 'page': page, 'report': report_path})
    process = subprocess.run([os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'), playbook],
                             env=env, capture_output=True, text=True, timeout=600, check=False)
    if process.returncode:
        raise AssertionError('writing the page failed:\n%s' % (process.stdout[-3000:] + process.stderr[-2000:]))
    return page
