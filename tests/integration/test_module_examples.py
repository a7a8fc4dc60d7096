# -*- coding: utf-8 -*-
"""Every example of the modules' EXAMPLES (what ``ansible-doc`` shows a reader, who copies it) runs in check mode
against the session's Ironic, so that an example that no longer validates, or that a module can no longer plan, fails
``make test``. test_examples.py runs the examples of the README and docs/ for real; these run in check mode, in the
order of their module's EXAMPLES, one play a module: check mode writes nothing (Ironic's API log shows no write), so every example meets the nodes as
the test made them, whatever the examples before it would have done.

What the test changes, and nothing else (as test_examples.py does):

- the clouds the examples name are the test's Ironic; ``OS_CLOUD`` stands for an example that names none;
- ``vault_*`` variables are given as extra vars, and an inventory gives the group ``rack1`` the examples loop on;
- the runbook the examples run exists (``RUNBOOK``), and rack1-node07 has its trait: check mode declares neither;
- the nodes the examples name exist (``NODES``): fake-hardware nodes in the state a reader would have them, and
  rack1-node07 on a Redfish emulator, whose address stands for the examples' ``http://127.0.0.1:8000``, but for
  the examples of OTHER_RACK1_NODE07, which meet a fake-hardware rack1-node07 in the state they need.

An example that cannot run here is in ``NOT_RUN``, by its module and task name, with the reason; the examples of IPMI
servers (``IPMI_EXAMPLES``) run in test_ipmi.py, on an Ironic that enables the ipmi hardware type, against an IPMI BMC
emulator; ``test_every_module_example_is_run_or_marked`` fails for a mark that names no example.
"""

from __future__ import annotations

import ast
import glob
import os
import uuid

import pytest
import yaml

from test_examples import EXAMPLE_BMC, EXAMPLE_CLOUD, ROOT, ansible, delete_nodes, write_clouds
from nodes import RawIronic

MODULES = sorted(os.path.basename(path)[:-3] for path in glob.glob(os.path.join(ROOT, 'plugins', 'modules', '*.py'))
                 if not os.path.basename(path).startswith('_'))

# The clouds the examples name besides EXAMPLE_CLOUD: all of them are the test's Ironic.
OTHER_CLOUDS = ('old-ironic', 'new-ironic')

# Name: (the state the test puts the node in, fields besides fake-hardware's). rack1-node07 gets the Redfish
# emulator's driver_info besides.
NODES = {
    'rack1-node07': ('manageable', {'resource_class': 'baremetal.large'}),
    'rack1-node01': ('manageable', {}),
    'rack1-node02': ('manageable', {}),
    'rack1-node08': ('manageable', {'maintenance': True}),
    'rack1-node09': ('manageable', {}),
    'rack3-node09': ('manageable', {}),
    'legacy-db01': ('manageable', {}),
    'rack2-node04': ('active', {}),
    'db01': ('active', {}),
}

# The examples that need rack1-node07 otherwise than on the Redfish emulator: a fake-hardware node in the state
# given, which the test puts in its place for them (a deployed node; BIOS and firmware interfaces that offer steps,
# and an inspect interface, which the Redfish hardware type has none of in the tests' Ironic: its inspect_interface
# is no-inspect, refused before any write). They run in plays of their own.
OTHER_RACK1_NODE07 = {
    ('baremetal_provision_state', 'Enroll to available, inspecting the hardware of nodes never inspected'): 'manageable',
    ('baremetal_node', 'Protect a deployed node from being torn down, saying why'): 'active',
    ('baremetal_hardware', 'Set BIOS settings on a node in manageable, in one manual clean'): 'manageable',
    ('baremetal_hardware', 'Bring the BMC firmware up to 2.76, with BIOS settings, in the same cycle'): 'manageable',
    ('baremetal_hardware', 'Show what would change on a whole rack, without changing anything'): 'manageable',
}

# The runbook the examples run (baremetal_provision_state's, baremetal_runbook's): Ironic holds it, and rack1-node07
# has its trait; check mode neither declares it nor gives the trait.
RUNBOOK = 'CUSTOM_FIRMWARE_UPDATE'
RUNBOOK_STEP = {'interface': 'vendor', 'step': 'log_passthrough', 'args': {}, 'order': 1}

INVENTORY = ('localhost ansible_connection=local ansible_python_interpreter="{{ ansible_playbook_python }}"\n'
             '\n[rack1]\nrack1-node01\nrack1-node02\nrack1-node07\n')

NOT_RUN = {
    ('baremetal_allocation', 'Deploy the node Ironic picked'):
        'it deploys the node the allocation before it picked, and check mode picks none',
    ('baremetal_hardware', 'Declare a mirrored root volume and the rest as RAID 5, then return the node to available'):
        "the tests' Ironic enables no RAID interface that offers RAID steps (fake and no-raid offer none; redfish "
        "RAID needs a storage controller, test_examples.py's deploy template example has one)",
}

# The examples of IPMI servers: the ipmi hardware type, which the tests' Ironic does not enable (tests rely on that),
# runs them on the IPMI Ironic of tests/integration/test_ipmi.py, against its BMC emulator, in check mode as here.
IPMI_EXAMPLES = (
    ('baremetal_node', 'Enroll an IPMI server (here a virtualbmc) and check what Ironic thinks of its interfaces'),
    ('baremetal_node', 'Set the image to deploy; keys not named stay as they are'),
    ('baremetal_node', 'Declare a whole rack in one task; only the nodes that differ are written'),
)


def module_examples(module):
    """The tasks of the module's EXAMPLES, as ansible-doc reads them (the string literal assigned to EXAMPLES)."""
    with open(os.path.join(ROOT, 'plugins', 'modules', module + '.py'), encoding='utf-8') as stream:
        tree = ast.parse(stream.read())
    (text,) = [node.value.value for node in tree.body
               if isinstance(node, ast.Assign) and [target.id for target in node.targets] == ['EXAMPLES']]
    return yaml.safe_load(text)


def test_every_module_example_is_run_or_marked():
    names = set((module, task['name']) for module in MODULES for task in module_examples(module))
    for table in (NOT_RUN, OTHER_RACK1_NODE07, IPMI_EXAMPLES):
        assert set(table) <= names, 'examples that do not exist (any more): %s' % sorted(set(table) - names)


@pytest.fixture(scope='module')
def example_nodes(ironic, tmp_path_factory):
    """The nodes of NODES and the runbook RUNBOOK, for every test of this file (check mode changes none of them),
    deleted afterwards; rack1-node07 on a started Redfish emulator (returned), stopped afterwards."""
    from redfish import RedfishBMC  # pylint: disable=import-outside-toplevel
    raw = RawIronic(ironic)
    bmc = RedfishBMC(tmp_path_factory.mktemp('redfish-bmc'))
    made = []
    runbook = ironic.api('POST', '/runbooks', {'name': RUNBOOK, 'steps': [RUNBOOK_STEP]})
    try:
        # From API 1.112 a runbook's traits say which nodes may run it (before, its name does).
        ironic.api('PUT', '/runbooks/%s/traits' % runbook['uuid'], {'traits': [RUNBOOK]}, expect=None)
        bmc.start()
        for name, (state, fields) in NODES.items():
            node = raw.node_in(state)
            made.append(node['uuid'])
            raw.patch(node['uuid'], name=name, **fields)
            if name == 'rack1-node07':
                ironic.api('PATCH', '/nodes/%s?reset_interfaces=true' % node['uuid'], [
                    {'op': 'add', 'path': '/driver', 'value': 'redfish'},
                    {'op': 'add', 'path': '/driver_info', 'value': bmc.driver_info()}])
                ironic.api('PUT', '/nodes/%s/traits/%s' % (node['uuid'], RUNBOOK))
        yield bmc
    finally:
        ironic.api('DELETE', '/runbooks/%s' % runbook['uuid'], expect=None)
        delete_nodes(ironic, made)
        bmc.stop()


def run_examples(ironic, tmp_path, tasks, substitutions):
    """Run the tasks in check mode as a play on localhost, each text of ``substitutions`` replaced with its value (the
    examples' BMC addresses with the emulators'); asserts that every one passed, that Ironic received no write, and
    that no vault variable's value is in the output."""
    clouds = write_clouds(tmp_path / 'clouds.yaml', dict((name, ironic) for name in (EXAMPLE_CLOUD,) + OTHER_CLOUDS))
    (tmp_path / 'inventory').write_text(INVENTORY, encoding='utf-8')
    text = yaml.safe_dump([{'name': 'The examples', 'hosts': 'localhost', 'gather_facts': False, 'check_mode': True,
                            'tasks': tasks}], sort_keys=False, width=1000)
    for example, value in substitutions.items():
        text = text.replace(example, value)
    (tmp_path / 'examples.yml').write_text(text, encoding='utf-8')
    secrets = dict((name, 'example-%s' % uuid.uuid4().hex)
                   for name in ('vault_bmc_password', 'vault_new_bmc_password', 'vault_ipmi_password'))
    mark = ironic.log_mark()

    rc, output = ansible(['ansible-playbook', '-i', 'inventory', 'examples.yml'], tmp_path, clouds, extra_vars=secrets)

    assert rc == 0, output
    assert 'failed=0' in output, output
    assert ironic.write_requests_since(mark) == []
    assert not any(secret in output for secret in secrets.values())


def examples_to_run(module, rack1_node07=None):
    """The module's examples but those NOT_RUN and the IPMI_EXAMPLES (test_ipmi.py runs them): those
    OTHER_RACK1_NODE07 runs with rack1-node07 in that state, or (None) the others."""
    return [task for task in module_examples(module) if (module, task['name']) not in NOT_RUN
            and (module, task['name']) not in IPMI_EXAMPLES
            and OTHER_RACK1_NODE07.get((module, task['name'])) == rack1_node07]


@pytest.mark.parametrize('module', MODULES)
def test_the_examples_of_each_module_run_in_check_mode(module, ironic, example_nodes, tmp_path):
    run_examples(ironic, tmp_path, examples_to_run(module), {EXAMPLE_BMC: example_nodes.address})


@pytest.mark.parametrize('state', sorted(set(OTHER_RACK1_NODE07.values())))
def test_the_examples_for_a_fake_hardware_node_run_in_check_mode(state, ironic, example_nodes, tmp_path):
    """OTHER_RACK1_NODE07's examples of that state, with a fake-hardware node in it as rack1-node07 and the Redfish
    one put aside."""
    raw = RawIronic(ironic)
    aside = raw.patch('rack1-node07', name='rack1-node07-aside')
    other = raw.node_in(state)
    try:
        raw.patch(other['uuid'], name='rack1-node07')
        run_examples(ironic, tmp_path, [task for module in MODULES for task in examples_to_run(module, state)],
                     {EXAMPLE_BMC: example_nodes.address})
    finally:
        delete_nodes(ironic, [other['uuid']])
        raw.patch(aside['uuid'], name='rack1-node07')
