# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A module loads only the code its plain task uses: on a host every file it imports is compiled on every run
(AnsiballZ ships them in a zip, bench/bench_startup.py), so the code of a facet (port groups, virtual media, waves,
the BMC check, removal, the engine...) is imported on the path that uses it, not when the module starts."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import errors

MODULE_UTILS = 'ansible_collections.baremetal.lifecycle.plugins.module_utils'
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
# Where the unit tests import the collection from (tests/unit/conftest.py): the directory of ansible_collections.
COLLECTIONS = errors.__file__[:errors.__file__.index(os.sep + 'ansible_collections' + os.sep)]

ENGINE = ('engine.provision', 'engine.scheduler', 'engine.planner', 'engine.waiter', 'engine.diagnosis')
WAVES = ('fleet.waves',)
STEPS = ('common.steps',)  # the checks of step lists and config drives, for a task that gives them
RECORD = ('node.record', 'node.record_checks', 'node.wiring')

# What importing each module must not load: the code its plain task (one node, none of the facets) never runs.
NOT_LOADED = {
    'baremetal_node': ENGINE + WAVES + STEPS + (
        'node.port_groups', 'node.virtual_media', 'ironic.wiring', 'node.bmc_check', 'node.removal', 'node.power',
        'node.maintenance', 'engine.progress'),
    'baremetal_provision_state': WAVES + STEPS,
    'baremetal_power': ENGINE + WAVES + STEPS,
    'baremetal_maintenance': ENGINE + WAVES + STEPS + ('engine.progress',),
    'baremetal_hardware': ENGINE + WAVES + STEPS,
    'baremetal_fleet_report': ENGINE + WAVES + STEPS,
    'baremetal_node_info': ENGINE + WAVES + STEPS + RECORD,
    'baremetal_allocation': ENGINE + WAVES + STEPS + RECORD,
    'baremetal_deploy_template': ENGINE + WAVES + RECORD,
    'baremetal_runbook': ENGINE + WAVES + RECORD,
    'baremetal_inspection_rule': ENGINE + WAVES + RECORD,
}


def loaded_by(module):
    """The module_utils a fresh Python loads importing the module (as the unit tests see the collection)."""
    code = ('import json, sys; import ansible_collections.baremetal.lifecycle.plugins.modules.%s; '
            'print(json.dumps(sorted(sys.modules)))' % module)
    output = subprocess.run([sys.executable, '-c', code], env=dict(os.environ, PYTHONPATH=COLLECTIONS),
                            check=True, capture_output=True, text=True).stdout
    prefix = MODULE_UTILS + '.'
    return set(name[len(prefix):] for name in json.loads(output) if name.startswith(prefix))


def test_every_module_is_listed():
    modules = sorted(name[:-3] for name in os.listdir(os.path.join(ROOT, 'plugins', 'modules'))
                     if name.endswith('.py') and not name.startswith('_'))
    assert sorted(NOT_LOADED) == modules


@pytest.mark.parametrize('module', sorted(NOT_LOADED))
def test_a_module_does_not_load_what_its_plain_task_does_not_use(module):
    for name in NOT_LOADED[module]:  # a renamed file would make this test pass for nothing
        assert os.path.exists(os.path.join(ROOT, 'plugins', 'module_utils', *name.split('.')) + '.py'), name
    loaded = loaded_by(module)
    assert 'task.module' in loaded
    assert sorted(loaded & set(NOT_LOADED[module])) == []
