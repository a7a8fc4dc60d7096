# -*- coding: utf-8 -*-
"""playbooks/prepare_rack.yml against the real Ironic: enrolled nodes get their BIOS settings and become available."""

PLAYBOOK = 'playbooks/prepare_rack.yml'


def test_a_rack_is_configured_and_made_available_and_a_rerun_changes_nothing(ironic, run_playbook, fresh_node):
    nodes = [fresh_node(), fresh_node()]
    extra_vars = {'rack_nodes': [node['name'] for node in nodes],
                  'rack_bios_settings': {'ProcTurboMode': 'Disabled', 'NumCores': 4}}

    rc, output = run_playbook(PLAYBOOK, extra_vars)
    assert rc == 0, output[-4000:]
    for node in nodes:
        assert '%s: bios.apply_configuration' % node['name'] in output
        assert ironic.api('GET', '/nodes/%s' % node['uuid'])['provision_state'] == 'available'
        settings = ironic.api('GET', '/nodes/%s/bios' % node['uuid'])['bios']
        assert dict((entry['name'], entry['value']) for entry in settings) == {'ProcTurboMode': 'Disabled',
                                                                               'NumCores': '4'}

    mark = ironic.log_mark()
    rc, output = run_playbook(PLAYBOOK, extra_vars)
    assert rc == 0, output[-4000:]
    assert 'changed=0' in output
    assert ironic.write_requests_since(mark) == []


def test_rack_inspection_once_inspects_each_node_on_its_way_and_a_rerun_changes_nothing(ironic, run_playbook, fresh_node):
    nodes = [fresh_node(), fresh_node()]
    extra_vars = {'rack_nodes': [node['name'] for node in nodes], 'rack_inspection': 'once'}

    rc, output = run_playbook(PLAYBOOK, extra_vars)
    assert rc == 0, output[-4000:]
    for node in nodes:
        current = ironic.api('GET', '/nodes/%s' % node['uuid'])
        assert current['provision_state'] == 'available' and current['inspection_finished_at'], current

    mark = ironic.log_mark()
    rc, output = run_playbook(PLAYBOOK, extra_vars)
    assert rc == 0, output[-4000:]
    assert 'changed=0' in output
    assert ironic.write_requests_since(mark) == []
