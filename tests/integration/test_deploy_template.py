# -*- coding: utf-8 -*-
"""Deploy templates against a real Ironic: declared with baremetal_deploy_template, and run by a deploy whose instance
traits name them (baremetal_provision_state with instance_info traits), on fake-hardware nodes. A Redfish node of
sushy-tools' emulator deploying with a template's RAID step is docs/deploy-templates.md's example, run by
test_examples.py."""

from step_sets import absent_deletes_once, unique_trait

# The one deploy step of fake-hardware's interfaces (ironic/drivers/modules/fake.py: deploy.deploy, priority 100).
FAKE_DEPLOY = {'interface': 'deploy', 'step': 'deploy', 'priority': 150}


def steps_run(ironic, mark, node_uuid):
    """The conductor's 'Executing <deploy step> on node' lines since mark for the node (not its verify steps)."""
    return [line for line in ironic.log_since(mark).splitlines() if ' ironic.conductor.deployments ' in line
            and 'Executing {' in line and line.endswith('on node %s' % node_uuid)]


def test_a_template_is_declared_once_a_rerun_and_check_mode_write_nothing_and_absent_deletes_it(ironic, run_module):
    name = unique_trait('DT')
    declaration = dict(name=name, steps=[FAKE_DEPLOY], extra={'ticket': '4711'})
    mark = ironic.log_mark()
    preview = run_module('baremetal_deploy_template', check=True, diff=True, **declaration)
    assert not preview.get('failed'), preview.get('msg')
    assert preview['changed'] is True and preview['diff']['before'] == {} and preview['diff']['after']['name'] == name
    assert ironic.write_requests_since(mark) == []
    assert ironic.api('GET', '/deploy_templates/%s' % name, expect=(404,))

    created = run_module('baremetal_deploy_template', diff=True, **declaration)
    assert not created.get('failed'), created.get('msg')
    assert created['changed'] is True
    stored = ironic.api('GET', '/deploy_templates/%s' % name)
    assert stored['steps'] == [dict(FAKE_DEPLOY, args={})] and stored['extra'] == {'ticket': '4711'}
    assert created['deploy_template']['uuid'] == stored['uuid']

    mark = ironic.log_mark()
    again = run_module('baremetal_deploy_template', diff=True, **declaration)
    assert again['changed'] is False and again['diff']['before'] == again['diff']['after']
    assert ironic.write_requests_since(mark) == []

    changed = dict(declaration, steps=[dict(FAKE_DEPLOY, priority=120)])
    mark = ironic.log_mark()
    shown = run_module('baremetal_deploy_template', check=True, diff=True, **changed)
    assert shown['changed'] is True and shown['diff']['after']['steps'][0]['priority'] == 120
    assert ironic.write_requests_since(mark) == []
    updated = run_module('baremetal_deploy_template', **changed)
    assert updated['changed'] is True and [request.method for request in ironic.write_requests_since(mark)] == ['PATCH']
    assert ironic.api('GET', '/deploy_templates/%s' % name)['steps'][0]['priority'] == 120

    absent_deletes_once(ironic, run_module, 'baremetal_deploy_template', name, 'deploy_template',
                        '/deploy_templates/%s' % name)


def test_several_templates_in_one_task(ironic, run_module):
    first, second = unique_trait('DT'), unique_trait('DT')
    templates = [{'name': first, 'steps': [FAKE_DEPLOY]}, {'name': second, 'steps': [dict(FAKE_DEPLOY, priority=0)]}]
    mark = ironic.log_mark()
    assert run_module('baremetal_deploy_template', templates=templates, check=True)['changed'] is True
    assert ironic.write_requests_since(mark) == []
    result = run_module('baremetal_deploy_template', templates=templates, diff=True)
    assert not result.get('failed'), result.get('msg')
    assert [item['name'] for item in result['deploy_templates']] == [first, second]
    assert sorted(result['diff']['after']) == sorted([first, second])
    assert [request.method for request in ironic.write_requests_since(mark)] == ['POST', 'POST']
    mark = ironic.log_mark()
    assert run_module('baremetal_deploy_template', templates=templates)['changed'] is False
    assert ironic.write_requests_since(mark) == []
    gone = run_module('baremetal_deploy_template', state='absent', templates=[{'name': first}, {'name': second}])
    assert gone['changed'] is True and gone['deploy_templates'] == [None, None]


def test_bad_templates_are_refused_before_any_write_with_every_problem_named(ironic, run_module):
    name = unique_trait('DT')
    mark = ironic.log_mark()
    result = run_module('baremetal_deploy_template', templates=[
        {'name': 'hyperthreading-off', 'steps': [FAKE_DEPLOY]},
        {'name': name, 'steps': [{'interface': 'deploy', 'step': 'deploy'},
                                 {'interface': 'network', 'step': 'x', 'priority': -1, 'args': 'a'}]}])
    assert result['failed']
    for words in ("templates[0].name 'hyperthreading-off' must be a trait",
                  "templates[1].steps[0] lacks 'priority'",
                  "templates[1].steps[1].interface 'network' is not an interface of deploy template steps",
                  'templates[1].steps[1].priority must be a whole number, 0 or more',
                  'templates[1].steps[1].args must be a dictionary'):
        assert words in result['msg']
    assert ironic.write_requests_since(mark) == []
    assert ironic.api('GET', '/deploy_templates/%s' % name, expect=(404,))


def test_a_deploy_applies_the_steps_of_the_template_its_instance_traits_name(raw, ironic, run_module):
    # fake-hardware's interfaces have one deploy step, the fake deploy interface's core deploy.deploy, which a
    # template may only disable (priority 0; Ironic refuses any other priority for a core step). The node whose
    # instance traits name the template deploys without it, so Ironic finds no step to run; the node without the
    # instance trait runs it.
    name = unique_trait('DT')
    assert not run_module('baremetal_deploy_template', name=name, steps=[dict(FAKE_DEPLOY, priority=0)]).get('failed')
    with_template, without = raw.node_in('available'), raw.node_in('available')
    for node in (with_template, without):
        assert not run_module('baremetal_node', name=node['name'], traits=[name]).get('failed')

    mark = ironic.log_mark()
    plain = run_module('baremetal_provision_state', node=without['name'], state='active',
                       instance_info={'image_source': 'http://127.0.0.1:9/image.raw'})
    assert not plain.get('failed'), plain.get('msg')
    templated = run_module('baremetal_provision_state', node=with_template['name'], state='active',
                           instance_info={'image_source': 'http://127.0.0.1:9/image.raw', 'traits': [name]})
    assert templated['failed']
    assert "ended in 'deploy failed'" in templated['msg'] and 'No deploy steps returned' in templated['msg'], templated['msg']
    assert raw.node(with_template['uuid'])['instance_info']['traits'] == [name]

    ran = steps_run(ironic, mark, without['uuid'])
    assert len(ran) == 1 and "'step': 'deploy'" in ran[0] and "'priority': 100" in ran[0], ran
    assert steps_run(ironic, mark, with_template['uuid']) == []


def test_ironic_checks_the_templates_steps_against_the_nodes_interfaces_when_it_deploys(raw, ironic, run_module):
    # A step the node's interfaces have is checked at once: an argument it does not take refuses the deploy, naming
    # the template. A step they lack is left for the deploy ramdisk to offer (Ironic skips it until the agent runs):
    # with the fake deploy interface no agent ever does, and the node deploys without it.
    refused, skipped = unique_trait('DT'), unique_trait('DT')
    templates = [{'name': refused, 'steps': [dict(FAKE_DEPLOY, priority=0, args={'bogus': True})]},
                 {'name': skipped, 'steps': [{'interface': 'bios', 'step': 'apply_configuration', 'priority': 150,
                                              'args': {'settings': [{'name': 'LogicalProc', 'value': 'Disabled'}]}}]}]
    assert not run_module('baremetal_deploy_template', templates=templates).get('failed')
    first, second = raw.node_in('available'), raw.node_in('available')
    assert not run_module('baremetal_node', nodes=[{'name': first['name'], 'traits': [refused]},
                                                   {'name': second['name'], 'traits': [skipped]}]).get('failed')

    result = run_module('baremetal_provision_state', node=first['name'], state='active',
                        instance_info={'image_source': 'http://127.0.0.1:9/image.raw', 'traits': [refused]})
    assert result['failed']
    assert 'deploy templates matching this node' in result['msg'] and refused in result['msg'], result['msg']
    assert 'unexpected arguments' in result['msg'], result['msg']
    assert raw.node(first['uuid'])['provision_state'] == 'available'

    mark = ironic.log_mark()
    result = run_module('baremetal_provision_state', node=second['name'], state='active',
                        instance_info={'image_source': 'http://127.0.0.1:9/image.raw', 'traits': [skipped]})
    assert not result.get('failed'), result.get('msg')
    assert not [line for line in steps_run(ironic, mark, second['uuid']) if 'apply_configuration' in line]
