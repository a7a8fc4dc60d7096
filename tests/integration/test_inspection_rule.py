# -*- coding: utf-8 -*-
"""Inspection rules against a real Ironic: declared with baremetal_inspection_rule (idempotent by name, check and diff
mode, absent, bulk, sensitive rules, refusals before any write), and a rule that acts: an inspection by Ironic's own
'agent' inspect interface, in which the test plays the agent at POST /v1/continue_inspection, and the rule gives the
node a trait and a property."""

import json
import time
import uuid

import pytest

from nodes import RawIronic
from proxy import FaultProxy, playing_ironic_api

MASK = '********'

# An Ironic that inspects with its own 'agent' interface: boot left to the test (fake boot cannot manage the
# inspection ramdisk, so Ironic powers the node on to PXE, which fake power and management only record), and a
# built-in rule file that the module can neither see nor change.
BUILT_IN_RULE = 'built-in: every inspected node gets CUSTOM_BUILT_IN'
BUILT_IN_RULES_YAML = '''
- description: "%s"
  actions:
    - op: add-trait
      args: {name: CUSTOM_BUILT_IN}
''' % BUILT_IN_RULE


def agent_inspection_overrides(built_in_rules):
    return {'DEFAULT': {'enabled_inspect_interfaces': 'fake,no-inspect,agent'},
            'inspector': {'require_managed_boot': 'false'},
            'inspection_rules': {'built_in_rules': built_in_rules}}


def rule_name():
    return 'rule-%s' % uuid.uuid4().hex[:8]


TRAIT_ACTION = {'op': 'add-trait', 'args': {'name': 'CUSTOM_X86'}}
X86 = {'op': 'eq', 'args': {'values': ['{inventory[cpu][architecture]}', 'x86_64']}}


def stored_rule(ironic, name):
    found = [rule for rule in ironic.api('GET', '/inspection_rules?detail=true')['inspection_rules']
             if rule['description'] == name]
    assert len(found) <= 1
    return found[0] if found else None


def test_a_rule_is_declared_once_a_rerun_and_check_mode_write_nothing_a_change_shows_its_diff_and_absent_deletes_it(
        ironic, run_module):
    name = rule_name()
    declaration = dict(name=name, priority=10, conditions=[X86], actions=[TRAIT_ACTION])
    mark = ironic.log_mark()
    preview = run_module('baremetal_inspection_rule', check=True, diff=True, **declaration)
    assert not preview.get('failed'), preview.get('msg')
    assert preview['changed'] is True and preview['diff']['before'] == {}
    assert preview['diff']['after']['name'] == name and preview['rule']['actions'] == [TRAIT_ACTION]
    assert ironic.write_requests_since(mark) == []
    assert stored_rule(ironic, name) is None

    created = run_module('baremetal_inspection_rule', diff=True, **declaration)
    assert not created.get('failed'), created.get('msg')
    assert created['changed'] is True
    stored = stored_rule(ironic, name)
    assert (stored['priority'], stored['phase'], stored['sensitive']) == (10, 'main', False)
    assert stored['conditions'] == [X86] and stored['actions'] == [TRAIT_ACTION]
    assert created['rule']['uuid'] == stored['uuid'] and created['rule']['name'] == name

    mark = ironic.log_mark()
    again = run_module('baremetal_inspection_rule', diff=True, **declaration)
    assert again['changed'] is False and again['diff']['before'] == again['diff']['after']
    assert ironic.write_requests_since(mark) == []
    assert again['api_calls'] == 2  # Ironic's root (its API version) and one list of its rules

    changed = dict(declaration, priority=20)
    mark = ironic.log_mark()
    preview = run_module('baremetal_inspection_rule', check=True, diff=True, **changed)
    assert preview['changed'] is True and ironic.write_requests_since(mark) == []
    updated = run_module('baremetal_inspection_rule', diff=True, **changed)
    assert updated['changed'] is True
    assert (updated['diff']['before']['priority'], updated['diff']['after']['priority']) == (10, 20)
    assert updated['diff']['before']['actions'] == updated['diff']['after']['actions']
    assert [request.method for request in ironic.write_requests_since(mark)] == ['PATCH']
    assert stored_rule(ironic, name)['priority'] == 20 and stored_rule(ironic, name)['uuid'] == stored['uuid']

    mark = ironic.log_mark()
    deleted = run_module('baremetal_inspection_rule', name=name, state='absent', diff=True)
    assert deleted['changed'] is True and deleted['rule'] is None and deleted['diff']['after'] == {}
    assert [request.method for request in ironic.write_requests_since(mark)] == ['DELETE']
    assert stored_rule(ironic, name) is None
    assert run_module('baremetal_inspection_rule', name=name, state='absent')['changed'] is False


def test_a_bad_operator_or_action_is_refused_before_any_write_naming_the_valid_ones(ironic, run_module):
    name = rule_name()
    mark = ironic.log_mark()
    result = run_module('baremetal_inspection_rule', name=name,
                        conditions=[{'op': 'is_empty', 'args': {'value': '{inventory[bmc_address]}'}}],
                        actions=[{'op': 'add-trait', 'args': {'trait': 'CUSTOM_X'}}, {'op': 'set-trait', 'args': {}}])
    assert result['failed']
    assert "conditions[0].op 'is_empty' is not an operator of Ironic's inspection rules (did you mean 'is-empty'?)" in result['msg']
    assert 'valid ones: contains, eq, gt, in-net, is-empty' in result['msg']
    assert 'actions[0].args of add-trait lacks name' in result['msg'] and 'has trait, which add-trait does not take' in result['msg']
    assert "actions[1].op 'set-trait' is not an action" in result['msg'] and 'add-trait, api-call, del-attribute' in result['msg']
    assert ironic.write_requests_since(mark) == []
    assert stored_rule(ironic, name) is None


def test_a_sensitive_rule_never_shows_its_conditions_and_actions_and_cannot_become_visible(ironic, run_module):
    name, secret = rule_name(), 'bmc-pw-%s' % uuid.uuid4().hex
    action = {'op': 'set-attribute', 'args': {'path': '/extra/bmc_note', 'value': secret}}
    declaration = dict(name=name, sensitive=True, actions=[action])
    created = run_module('baremetal_inspection_rule', diff=True, _ansible_verbosity=3, **declaration)
    assert not created.get('failed'), created.get('msg')
    assert created['changed'] is True and created['rule']['actions'] == MASK and created['rule']['conditions'] == MASK
    assert secret not in json.dumps(created)
    assert stored_rule(ironic, name)['actions'] is None  # Ironic hides it too

    mark = ironic.log_mark()
    again = run_module('baremetal_inspection_rule', diff=True, **dict(declaration, actions=[TRAIT_ACTION]))
    assert again['changed'] is False and ironic.write_requests_since(mark) == []
    rewritten = run_module('baremetal_inspection_rule', update_sensitive='always', **declaration)
    assert rewritten['changed'] is True and secret not in json.dumps(rewritten)
    assert [request.method for request in ironic.write_requests_since(mark)] == ['PATCH']

    mark = ironic.log_mark()
    refused = run_module('baremetal_inspection_rule', **dict(declaration, sensitive=False))
    assert refused['failed'] and 'is sensitive, and Ironic never makes a sensitive rule visible again' in refused['msg']
    assert ironic.write_requests_since(mark) == []
    assert run_module('baremetal_inspection_rule', name=name, state='absent')['changed'] is True


def test_several_rules_are_declared_in_one_task_reading_ironics_rules_once(ironic, run_module):
    first, second, gone = rule_name(), rule_name(), rule_name()
    assert run_module('baremetal_inspection_rule', name=gone, actions=[TRAIT_ACTION])['changed'] is True
    rules = [{'name': first, 'actions': [TRAIT_ACTION]},
             {'name': second, 'priority': 5, 'conditions': [X86],
              'actions': [{'op': 'set-plugin-data', 'args': {'path': 'seen', 'value': True}}]},
             {'name': gone, 'state': 'absent'}]
    mark = ironic.log_mark()
    result = run_module('baremetal_inspection_rule', rules=rules)
    assert not result.get('failed'), result.get('msg')
    assert [(entry['name'], entry['changed']) for entry in result['rules']] == [
        (first, True), (second, True), (gone, True)]
    requests = [request for request in ironic.requests_since(mark) if '/inspection_rules' in request.path]
    assert [request.method for request in requests] == ['GET', 'POST', 'POST', 'DELETE']
    assert stored_rule(ironic, gone) is None and stored_rule(ironic, second)['priority'] == 5

    mark = ironic.log_mark()
    again = run_module('baremetal_inspection_rule', rules=rules)
    assert again['changed'] is False and ironic.write_requests_since(mark) == []
    assert again['api_calls'] == 2  # one list for the three rules
    run_module('baremetal_inspection_rule', rules=[{'name': first, 'state': 'absent'}, {'name': second, 'state': 'absent'}])


def test_an_ironic_older_than_api_1_96_is_refused_before_any_write_naming_the_version(ironic, run_module):
    mark = ironic.log_mark()
    with FaultProxy(ironic.port, answer=playing_ironic_api('1.95')) as proxy:
        result = run_module('baremetal_inspection_rule', name=rule_name(), actions=[TRAIT_ACTION],
                            endpoint=proxy.endpoint)
    assert result['failed']
    assert 'inspection rules needs Ironic API 1.96 or newer; this server supports up to 1.95' in result['msg']
    assert ironic.write_requests_since(mark) == []


# -- a rule that acts -------------------------------------------------------------------------------------------------

MAC = '52:54:00:6a:11:01'
INVENTORY = {
    'interfaces': [{'name': 'eth0', 'mac_address': MAC}],
    'cpu': {'count': 8, 'architecture': 'x86_64'},
    'memory': {'physical_mb': 16384},
    'disks': [{'name': '/dev/sda', 'size': 480 * 2 ** 30}],
    'bmc_address': '',
}


def wait_for(raw, node_uuid, done, seconds=120):
    deadline = time.monotonic() + seconds
    while True:
        node = raw.node(node_uuid)
        if done(node):
            return node
        assert time.monotonic() < deadline, 'node %s stayed in %s' % (node_uuid, node['provision_state'])
        time.sleep(0.2)


@pytest.fixture(scope='module')
def inspecting_ironic(shared_ironic, tmp_path_factory):
    built_in = tmp_path_factory.mktemp('built-in-rules') / 'rules.yaml'
    built_in.write_text(BUILT_IN_RULES_YAML, encoding='utf-8')
    return shared_ironic(ironic_standalone_config_overrides=agent_inspection_overrides(str(built_in)))


def test_a_declared_rule_gives_a_node_a_trait_and_a_property_when_ironic_inspects_it(inspecting_ironic, run_module):
    ironic, raw = inspecting_ironic, RawIronic(inspecting_ironic)
    name = rule_name()
    declared = run_module('baremetal_inspection_rule', endpoint=ironic.endpoint, name=name, conditions=[X86], actions=[
        TRAIT_ACTION, {'op': 'set-attribute', 'args': {'path': '/properties/rack_cpus', 'value': 'cpus-{inventory[cpu][count]}'}}])
    assert not declared.get('failed'), declared.get('msg')
    # The built-in rule is not in Ironic's API: the module neither reports nor deletes it.
    assert stored_rule(ironic, BUILT_IN_RULE) is None
    assert run_module('baremetal_inspection_rule', endpoint=ironic.endpoint, name=BUILT_IN_RULE,
                      state='absent')['changed'] is False

    node = raw.create(inspect_interface='agent', boot_interface='fake')
    raw.verb(node['uuid'], 'manage')
    ironic.api('POST', '/ports', {'node_uuid': node['uuid'], 'address': MAC})
    ironic.api('PUT', '/nodes/%s/states/provision' % node['uuid'], {'target': 'inspect'})
    waiting = wait_for(raw, node['uuid'], lambda node: node['provision_state'] != 'inspecting')
    assert waiting['provision_state'] == 'inspect wait', waiting['last_error']

    # The test is the agent: it posts the inventory it "found" (no authentication with noauth), found by its MAC.
    ironic.api('POST', '/continue_inspection', {'inventory': INVENTORY})
    inspected = wait_for(raw, node['uuid'], lambda node: node['provision_state'] != 'inspect wait'
                         and node['target_provision_state'] is None)
    assert inspected['provision_state'] == 'manageable', inspected['last_error']
    assert 'CUSTOM_X86' in inspected['traits'] and inspected['properties']['rack_cpus'] == 'cpus-8'
    assert 'CUSTOM_BUILT_IN' in inspected['traits']
    run_module('baremetal_inspection_rule', endpoint=ironic.endpoint, name=name, state='absent')
