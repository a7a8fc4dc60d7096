# -*- coding: utf-8 -*-
"""Runbooks against a real Ironic (fake-hardware): declared with baremetal_runbook, run by name with
baremetal_provision_state as a manual clean on a manageable node and by servicing on an active one."""

from step_sets import absent_deletes_once, unique_trait

LOG_PASSTHROUGH = {'interface': 'vendor', 'step': 'log_passthrough', 'order': 1}


def steps_run(ironic, mark, node_uuid, marker):
    """The conductor's 'Executing <step> on node' lines since mark for the node, of steps named marker."""
    return [line for line in ironic.log_since(mark).splitlines()
            if 'Executing {' in line and line.endswith('on node %s' % node_uuid) and marker in line]


def test_a_runbook_is_declared_once_a_rerun_and_check_mode_write_nothing_and_absent_deletes_it(ironic, run_module):
    name = unique_trait('RB')
    declaration = dict(name=name, steps=[LOG_PASSTHROUGH], traits=[name], extra={'ticket': '4711'})
    mark = ironic.log_mark()
    preview = run_module('baremetal_runbook', check=True, diff=True, **declaration)
    assert not preview.get('failed'), preview.get('msg')
    assert preview['changed'] is True and preview['diff']['before'] == {} and preview['diff']['after']['name'] == name
    assert ironic.write_requests_since(mark) == []

    created = run_module('baremetal_runbook', diff=True, **declaration)
    assert not created.get('failed'), created.get('msg')
    assert created['changed'] is True
    stored = ironic.api('GET', '/runbooks/%s' % name)
    assert stored['traits'] == [name] and stored['extra'] == {'ticket': '4711'}
    assert stored['steps'] == [dict(LOG_PASSTHROUGH, args={})]
    assert created['runbook']['uuid'] == stored['uuid']

    mark = ironic.log_mark()
    again = run_module('baremetal_runbook', diff=True, **declaration)
    assert again['changed'] is False and again['diff']['before'] == again['diff']['after']
    assert ironic.write_requests_since(mark) == []

    changed = dict(declaration, steps=[dict(LOG_PASSTHROUGH, args={'note': 'second'})], public=True)
    mark = ironic.log_mark()
    assert run_module('baremetal_runbook', check=True, **changed)['changed'] is True
    assert ironic.write_requests_since(mark) == []
    updated = run_module('baremetal_runbook', **changed)
    assert updated['changed'] is True and [request.method for request in ironic.write_requests_since(mark)] == ['PATCH']
    stored = ironic.api('GET', '/runbooks/%s' % name)
    assert stored['public'] is True and stored['steps'][0]['args'] == {'note': 'second'}

    absent_deletes_once(ironic, run_module, 'baremetal_runbook', name, 'runbook', '/runbooks/%s' % name)


def test_a_bad_step_is_refused_before_any_write_with_every_problem_named(ironic, run_module):
    name = unique_trait('RB')
    mark = ironic.log_mark()
    result = run_module('baremetal_runbook', name=name, steps=[
        {'interface': 'vendor', 'step': 'log_passthrough'},
        {'interface': 'network', 'step': 'x', 'order': 2}])
    assert result['failed']
    assert "steps[0] lacks 'order'" in result['msg']
    assert "steps[1].interface 'network' is not an interface of runbook steps" in result['msg']
    assert ironic.write_requests_since(mark) == []
    assert ironic.api('GET', '/runbooks/%s' % name, expect=(404,))


def test_a_runbook_runs_as_a_manual_clean_on_a_manageable_node_and_by_servicing_on_an_active_one(raw, ironic, run_module):
    name = unique_trait('RB')
    assert not run_module('baremetal_runbook', name=name, steps=[LOG_PASSTHROUGH], traits=[name]).get('failed')
    manageable, active = raw.node_in('manageable'), raw.node_in('active')
    for node in (manageable, active):
        ironic.api('PUT', '/nodes/%s/traits/%s' % (node['uuid'], name))

    mark = ironic.log_mark()
    preview = run_module('baremetal_provision_state', node=manageable['name'], state='manageable', runbook=name,
                         check=True)
    assert [(step['verb'], step['from'], step['to'], step['action']) for step in preview['plan']] == [
        ('clean', 'manageable', 'manageable', 'clean runbook')]
    assert ironic.write_requests_since(mark) == []

    cleaned = run_module('baremetal_provision_state', node=manageable['name'], state='manageable', runbook=name)
    assert not cleaned.get('failed'), cleaned.get('msg')
    assert [(t['verb'], t['to'], t['action']) for t in cleaned['transitions']] == [
        ('clean', 'manageable', 'clean runbook')]
    assert len(steps_run(ironic, mark, manageable['uuid'], 'log_passthrough')) == 1

    mark = ironic.log_mark()
    serviced = run_module('baremetal_provision_state', node=active['name'], state='active', runbook=name)
    assert not serviced.get('failed'), serviced.get('msg')
    assert [(t['verb'], t['from'], t['to'], t['action']) for t in serviced['transitions']] == [
        ('service', 'active', 'active', 'service runbook')]
    assert raw.node(active['uuid'])['provision_state'] == 'active'
    assert len(steps_run(ironic, mark, active['uuid'], 'log_passthrough')) == 1

    # per element of nodes: the declared state chooses clean or service
    both = run_module('baremetal_provision_state', state='manageable', nodes=[
        {'node': manageable['name'], 'runbook': name}, {'node': active['name'], 'state': 'active', 'runbook': name}])
    assert not both.get('failed'), both.get('msg')
    actions = [[step['action'] for step in entry['plan']] for entry in both['nodes']]
    assert actions == [['clean runbook'], ['service runbook']]


def test_a_node_without_the_runbooks_trait_is_refused_before_any_write_and_the_task_says_why(raw, ironic, run_module):
    # Ironic refuses it only when the runbook's step is sent, after the steps before it (an undeploy) have run.
    name = unique_trait('RB')
    assert not run_module('baremetal_runbook', name=name, steps=[LOG_PASSTHROUGH], traits=[name]).get('failed')
    node = raw.node_in('active')
    mark = ironic.log_mark()
    result = run_module('baremetal_provision_state', node=node['name'], state='manageable', runbook=name,
                        allow_destructive=True)
    assert result['failed'] and ('runbook %s runs only on a node with the trait %s, and this node has none. Give the '
                                 'node one with baremetal.lifecycle.baremetal_node (traits).' % (name, name)) in result['msg']
    assert raw.node(node['uuid'])['provision_state'] == 'active'
    assert ironic.write_requests_since(mark) == []
