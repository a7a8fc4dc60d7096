# -*- coding: utf-8 -*-
"""The README's demo, against the session's Ironic: it converges the nodes, and a second run changes nothing; it
ends saying where its cloud is defined, with an ad-hoc command and the fleet report's playbook, each of which runs as
printed."""

import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def test_demo_converges_then_changes_nothing(ironic, run_playbook):
    rc, output = run_playbook('playbooks/demo.yml', ironic.role_vars)
    assert rc == 0, output
    for name, path, final in [
            ('demo-node-01', 'enroll -> manageable -> available', 'available'),
            ('demo-node-03', 'enroll -> manageable -> available -> active', 'active'),
            ('demo-node-04', 'enroll -> manageable', 'manageable'),
            ('demo-node-05', 'enroll -> manageable -> active', 'active')]:
        assert re.search(r'%s\s+%s\s+%s\s+\d+\.\d\d' % (name, re.escape(path), final), output), output
    assert 'Converged: nodes moved as shown above.' in output

    rc, output = run_playbook('playbooks/demo.yml', ironic.role_vars)
    assert rc == 0, output
    assert 'Nothing to change: every node already rests in its declared state.' in output
    assert re.search(r'localhost\s+: ok=\d+\s+changed=0\s', output), output
    assert output.count('(already there)') == 5

    assert '"The cloud %s is defined in %s (OS_CLIENT_CONFIG_FILE names that file to the modules)."' % (
        ironic.cloud_name, ironic.clouds_yaml) in output, output
    assert '"Try next, in this directory:"' in output, output
    command, report_command = re.findall(r'"(OS_CLIENT_CONFIG_FILE=[^"]*)"', output)
    words = shlex.split(command)
    assert words[:1] + words[2:] == ['OS_CLIENT_CONFIG_FILE=%s' % ironic.clouds_yaml, 'localhost', '-m',
                                     'baremetal.lifecycle.baremetal_node_info', '-a', 'cloud=%s' % ironic.cloud_name]
    # The ansible beside the ansible-playbook that ran the demo (make demo: .work/demo-venv's).
    assert os.path.realpath(words[1]) == os.path.realpath(os.path.join(os.path.dirname(sys.executable), 'ansible'))
    # As a user types it in the directory make demo ran in: no OS_* or ANSIBLE_* variable of the tests' own.
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith(('OS_', 'ANSIBLE_')))
    process = subprocess.run(['bash', '-c', command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
                             check=False)
    assert process.returncode == 0, process.stdout + process.stderr
    assert 'localhost | SUCCESS' in process.stdout, process.stdout
    for number in range(1, 6):
        assert '"name": "demo-node-0%d"' % number in process.stdout, process.stdout

    # Then the fleet report it prints, as typed: a page of the demo's nodes, where the demo said it would be.
    report_dir = os.path.join(os.path.dirname(ironic.clouds_yaml), 'fleet-report')
    assert '"Then the fleet report, a page to open in a browser (%s/fleet-report.html):"' % report_dir in output, output
    words = shlex.split(report_command)
    assert words[:1] + words[2:] == ['OS_CLIENT_CONFIG_FILE=%s' % ironic.clouds_yaml, 'playbooks/fleet_report.yml',
                                     '-e', 'fleet_cloud=%s' % ironic.cloud_name, '-e', 'report_dir=%s' % report_dir]
    assert os.path.realpath(words[1]) == os.path.realpath(
        os.path.join(os.path.dirname(sys.executable), 'ansible-playbook'))
    process = subprocess.run(['bash', '-c', report_command], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=300, check=False)
    assert process.returncode == 0, process.stdout + process.stderr
    with open(os.path.join(report_dir, 'fleet-report.html'), encoding='utf-8') as handle:
        page = handle.read()
    for number in range(1, 6):
        assert 'demo-node-0%d' % number in page
