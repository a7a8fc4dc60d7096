# -*- coding: utf-8 -*-
"""Progress where AWX and AAP run playbooks: through ansible-runner, the lines the action plugins show while a
task waits are in the job's stdout and its event stream (the runner's artifacts)."""

import os

import ansible_runner

from test_node import closed_loopback_url
from test_power import wait_until_ironic_gives_up

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PLAYBOOK = """
- hosts: localhost
  gather_facts: false
  tasks:
    - name: Manage a fleet
      baremetal.lifecycle.baremetal_provision_state:
        nodes: {fleet}
        state: manageable
    - name: Soft power off a node whose BMC never answers
      baremetal.lifecycle.baremetal_power:
        node: {silent}
        state: soft_powered_off
        timeout: 2
      ignore_errors: true
"""


def test_progress_lines_and_heartbeats_are_in_the_runners_stdout_and_events(ironic, fresh_node, tmp_path):
    fleet = [fresh_node()['name'], fresh_node()['name']]
    silent = fresh_node(driver='redfish', driver_info={'redfish_address': closed_loopback_url(),
                                                       'redfish_username': 'admin', 'redfish_password': 'unused'})
    project = tmp_path / 'project'
    project.mkdir()
    (project / 'progress.yml').write_text(PLAYBOOK.format(fleet=fleet, silent=silent['name']), encoding='utf-8')
    # The environment of the other integration tests (the repository's ansible.cfg, the installed collection, the
    # session Ironic) and a heartbeat every second: the power task waits about 7 s (timeout and Ironic's verdict).
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith('OS_'))
    env.update(ANSIBLE_CONFIG=os.path.join(ROOT, 'ansible.cfg'), ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, '.work', 'collections'),
               PATH=os.path.join(ROOT, '.work', 'venv', 'bin') + os.pathsep + os.environ.get('PATH', ''),
               OS_CLIENT_CONFIG_FILE=ironic.clouds_yaml, OS_CLOUD=ironic.cloud_name, ANSIBLE_NOCOLOR='1',
               BAREMETAL_LIFECYCLE_HEARTBEAT_INTERVAL='1')
    try:
        runner = ansible_runner.run(private_data_dir=str(tmp_path), playbook='progress.yml', envvars=env, quiet=True,
                                    timeout=300)
    finally:
        wait_until_ironic_gives_up(ironic, silent)
    with open(os.path.join(runner.config.artifact_dir, 'stdout'), encoding='utf-8') as stream:
        stdout = stream.read()
    assert runner.rc == 0, stdout[-3000:]
    events = '\n'.join(event.get('stdout', '') for event in runner.events)
    for text in (stdout, events):
        assert 'Manage a fleet: done, 2 nodes: 2 manageable; 0 failed' in text, text[-3000:]
        assert 'Soft power off a node whose BMC never answers: %s still unknown (soft power off) for ' % silent['name'] in text, \
            text[-3000:]
