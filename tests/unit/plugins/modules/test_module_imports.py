# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a module does not load when it starts: the optional libraries (keystoneauth1, openstacksdk, jsonschema,
PyYAML), which a task imports only when it uses them, and the files whose deferral bench/README.md lists with the
start-up time it saves (issue 41: every other import is at the top of its file). On a host every file a module
imports is compiled on every run (AnsiballZ ships them in a zip, bench/bench_startup.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
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
RECORD = ('node.record', 'node.record_checks', 'node.wiring')
HARDWARE = ('node.hardware', 'node.hardware_declaration')  # not hardware_difference: the report orders versions by it
# The optional libraries no module loads at its start: keystone's and openstacksdk's (a task with endpoint needs
# neither), jsonschema (node/driver_schemas.py), PyYAML (a named cloud's clouds.yaml, ironic/clouds_file.py).
OPTIONAL_LIBRARIES = ('keystoneauth1', 'openstack', 'jsonschema', 'yaml')
# What no module loads at its start: ironic/keystone.py (a task with endpoint, or a standalone cloud, needs none of
# it) and common/free_text.py (read only at a text that names a secret); bench/README.md measures the deferrals.
EVERY = ('ironic.keystone', 'common.free_text')

# What importing each module must not load: the code its plain task (one node, none of the facets) never runs.
NOT_LOADED = {
    # The stages after the record (only for a node that declares maintenance, power or a provision state), port
    # groups and virtual media, the writes of a record that changes, the BMC check after a write and the removal of a
    # node: bench/README.md measures what deferring each saves.
    'baremetal_node': ENGINE + (
        'node.port_groups', 'node.virtual_media', 'ironic.wiring', 'node.record_writes', 'engine.writes',
        'node.bmc_check', 'node.removal', 'node.power', 'node.maintenance', 'node.stages'),
    'baremetal_provision_state': (),
    'baremetal_power': ENGINE,
    'baremetal_maintenance': ENGINE,
    # The cycle that applies hardware steps and the engine it runs (only for a node whose hardware must change).
    'baremetal_hardware': ENGINE + ('node.hardware_cycle',),
    'baremetal_firmware_campaign': ENGINE + ('node.hardware_cycle',),
    'baremetal_fleet_report': ENGINE + RECORD + HARDWARE + ('node.network_data',),
    'baremetal_node_info': ENGINE + RECORD,
    'baremetal_allocation': ENGINE + RECORD,
    'baremetal_deploy_template': ENGINE + RECORD,
    'baremetal_runbook': ENGINE + RECORD,
    'baremetal_inspection_rule': ENGINE + RECORD,
}

# Python's own modules that no module loads at its start, and the optional libraries: uuid's parsing of a UUID is
# common/validate.is_uuid_like's.
NOT_LOADED_STDLIB = ('uuid',) + OPTIONAL_LIBRARIES


@functools.lru_cache(maxsize=None)
def loaded_modules(module):
    """Every module a fresh Python has loaded once it imported the module (as the unit tests see the collection);
    one Python per module, whichever test asks first."""
    code = ('import json, sys; import ansible_collections.baremetal.lifecycle.plugins.modules.%s; '
            'print(json.dumps(sorted(sys.modules)))' % module)
    output = subprocess.run([sys.executable, '-c', code], env=dict(os.environ, PYTHONPATH=COLLECTIONS),
                            check=True, capture_output=True, text=True).stdout
    return frozenset(json.loads(output))


def loaded_by(module):
    """The module_utils a fresh Python loads importing the module."""
    prefix = MODULE_UTILS + '.'
    return set(name[len(prefix):] for name in loaded_modules(module) if name.startswith(prefix))


def test_every_module_is_listed():
    modules = sorted(name[:-3] for name in os.listdir(os.path.join(ROOT, 'plugins', 'modules'))
                     if name.endswith('.py') and not name.startswith('_'))
    assert sorted(NOT_LOADED) == modules


@pytest.mark.parametrize('module', sorted(NOT_LOADED))
def test_a_module_does_not_load_what_its_plain_task_does_not_use(module):
    for name in NOT_LOADED[module] + EVERY:  # a renamed file would make this test pass for nothing
        assert os.path.exists(os.path.join(ROOT, 'plugins', 'module_utils', *name.split('.')) + '.py'), name
    loaded = loaded_by(module)
    assert 'task.module' in loaded
    assert sorted(loaded & set(NOT_LOADED[module] + EVERY)) == []


@pytest.mark.parametrize('module', sorted(NOT_LOADED))
def test_a_module_does_not_load_the_python_modules_its_plain_task_does_not_use(module):
    loaded = loaded_modules(module)
    assert 'json' in loaded
    assert sorted(loaded & set(NOT_LOADED_STDLIB)) == []
