# -*- coding: utf-8 -*-
"""The README's demo, against the session's Ironic: it converges the nodes, and a second run changes nothing."""

import re


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
