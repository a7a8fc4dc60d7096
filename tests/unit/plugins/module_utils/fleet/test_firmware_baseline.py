# -*- coding: utf-8 -*-
"""The firmware baseline: its checks before any read, version comparison, and each node's compliance and plan."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.firmware_baseline import (
    baseline_problems, check_baseline, compare_versions, compliance_section, node_compliance, node_identity)

BMC_URL = 'http://127.0.0.1:8080/bmc-2.10.bin'


def r640(**bmc):
    return {'name': 'Contoso R640', 'match': {'vendor': 'Contoso', 'model': 'R640'}, 'components': [
        dict({'component': 'bmc', 'version': '2.10', 'url': BMC_URL,
              'stepping_stones': [{'version': '2.5', 'url': 'http://127.0.0.1:8080/bmc-2.5.bin'},
                                  {'version': '2.8', 'url': 'http://127.0.0.1:8080/bmc-2.8.bin'}]}, **bmc),
        {'component': 'bios', 'version': '1.4.2', 'url': 'http://127.0.0.1:8080/bios-1.4.2.bin'}]}


def node(name, vendor=None, interface='redfish', **properties):
    if vendor:
        properties['vendor'] = vendor
    return {'uuid': 'uuid-' + name, 'name': name, 'properties': properties, 'firmware_interface': interface}


def recorded(bmc=None, bios=None, model='R640', vendor=None):
    return [{'component': name, 'current_version': version, 'vendor': vendor, 'model': model}
            for name, version in (('bmc', bmc), ('bios', bios)) if version is not None]


@pytest.mark.parametrize('left, right, order', [
    ('2.10', '2.9', 1), ('2.9', '2.10', -1), ('2.10', '2.10', 0), ('2.10.0', '2.10', 0), ('2.10.1', '2.10', 1),
    ('U30 v2.76', 'U30 v2.8', 1), ('u30_V2.8', 'U30 v2.8', 0), ('1.0-beta', '1.0', None), ('A12', '2.1', None),
    ('U30 v2.76', 'U31 v1.0', -1), ('U30 v2.76', 'U30 r2.76', None), ('', '1.0', None), ('---', '1.0', None),
    ('1.2.3', '1.10', -1),
])
def test_versions_compare_in_natural_order_only_when_of_one_shape(left, right, order):
    assert compare_versions(left, right) == order


def test_a_valid_baseline_has_no_problem():
    assert baseline_problems([r640(), {'match': {'properties': {'hw': 'fx2'}}, 'components': [
        {'component': 'nic:NIC.Slot.1', 'version': '22.31.6', 'url': 'file:///srv/nic.bin',
         'allow_downgrade': True}]}]) == []
    check_baseline([r640()])
    # Ansible gives an option's suboptions not set as None.
    assert baseline_problems([dict(r640(), name=None)]) == []
    assert baseline_problems([dict(r640(), name=' ')]) == ['firmware_baseline[0].name must be a non-empty string.']


@pytest.mark.parametrize('baseline, problem', [
    ([], 'firmware_baseline is empty: give at least one model, each with match and components '
         '(or leave the option out).'),
    (None, 'firmware_baseline is empty'),
    ([r640(component='drive')],
     "firmware_baseline[0] (Contoso R640).components[0].component 'drive' is not a component Ironic records; use "
     "bios, bmc or nic:<id>"),
    ([r640(component='nic:')], "components[0].component 'nic:' is not a component Ironic records"),
    ([r640(stepping_stones=[{'version': '2.10', 'url': BMC_URL}])],
     "components[0].stepping_stones[0].version '2.10' is not below the target '2.10': the path cannot reach the "
     "target."),
    ([r640(stepping_stones=[{'version': '3.0', 'url': BMC_URL}])], "'3.0' is not below the target '2.10'"),
    ([r640(stepping_stones=[{'version': '2.8', 'url': BMC_URL}, {'version': '2.5', 'url': BMC_URL}])],
     "stepping_stones[1].version '2.5' does not come after '2.8': the path goes down. List the stepping stones lowest "
     "first, each once."),
    ([r640(stepping_stones=[{'version': '2.8', 'url': BMC_URL}, {'version': '2.8', 'url': BMC_URL}])],
     "'2.8' does not come after '2.8'"),
    ([r640(stepping_stones=[{'version': '2.rc8', 'url': BMC_URL}])],
     "stepping_stones[0].version '2.rc8' cannot be compared with the target '2.10'"),
    ([r640(stepping_stones='2.8')], 'stepping_stones must be a list of {version, url}, lowest version first.'),
    ([r640(version='')], 'components[0].version is required: the target version, a non-empty string.'),
    ([r640(url=None)], 'components[0].url is required'),
    ([r640(version=2.1)], 'components[0].version is the number 2.1, not text: YAML reads 2.10 as 2.1. Quote the '
                          'version as the vendor writes it, for example version: "2.10".'),
    ([r640(stepping_stones=[{'version': 2, 'url': BMC_URL}])], 'stepping_stones[0].version is the number 2, not text'),
    ([r640(stepping_stones=[{'url': BMC_URL}])],
     'stepping_stones[0].version is required: the version passed through, a non-empty string.'),
    ([r640(allow_downgrade='yes')], 'components[0].allow_downgrade must be true or false.'),
    ([r640(colour='red')], 'components[0].colour is not a key of a component; allowed: component, version, url, '
                           'stepping_stones, allow_downgrade.'),
    ([dict(r640(), components=r640()['components'] + [{'component': 'bmc', 'version': '2.8', 'url': BMC_URL}])],
     "components[2].component 'bmc' is declared twice in this model"),
    ([r640(), dict(r640(), name='Again', match={'vendor': 'contoso', 'model': 'R640'})],
     'firmware_baseline[1] (Again).match is the match of firmware_baseline[0] (Contoso R640) too: a model is declared '
     'once. Merge the two.'),
    ([dict(r640(), match={})], 'match is required: a dictionary with vendor and model'),
    ([dict(r640(), match={'properties': {}})], 'match is required'),
    ([dict(r640(), match={'properties': {'hw': ['a']}})], 'match.properties must be a dictionary of node property'),
    ([dict(r640(), match={'vendor': 'Contoso', 'serial': 'x'})], 'match.serial is not a key of a match'),
    ([dict(r640(), components=[])], 'components is required: a non-empty list of {component, version, url}.'),
    (['r640'], 'firmware_baseline[0] must be a dictionary with match and components.'),
])
def test_each_bad_baseline_is_refused_naming_the_problem_and_the_fix(baseline, problem):
    problems = baseline_problems(baseline)
    assert any(problem in text for text in problems), problems
    with pytest.raises(BaremetalError) as caught:
        check_baseline(baseline)
    assert str(caught.value).startswith('The firmware baseline is not valid; nothing was read: ')


@pytest.mark.parametrize('url', ['http://admin:s3cretpw@127.0.0.1/bmc.bin',
                                 'http://127.0.0.1/bmc.bin?temp_url_sig=s3cretpw&temp_url_expires=1'])
def test_a_url_with_a_secret_is_refused_without_showing_it(url):
    for baseline in ([r640(url=url)], [r640(stepping_stones=[{'version': '2.8', 'url': url}])]):
        problems = baseline_problems(baseline)
        assert len(problems) == 1 and 'holds a secret' in problems[0] and '********' in problems[0], problems
        assert 's3cretpw' not in problems[0]


def test_a_node_is_identified_by_what_ironic_reports():
    assert node_identity(node('a', 'Contoso'), recorded(bmc='2.10')) == ('Contoso', 'R640')
    assert node_identity(node('a'), recorded(bmc='2.10', vendor='Contoso')) == ('Contoso', 'R640')
    assert node_identity(node('a', model='R650'), []) == (None, 'R650')
    assert node_identity(node('a'), [{'component': 'nic:1', 'current_version': '1', 'vendor': 'Mellanox',
                                      'model': 'CX6'}]) == (None, None)


def test_per_component_at_target_behind_through_stepping_stones_ahead_and_unknown():
    baseline = [r640()]
    at_target = node_compliance(baseline, node('a', 'Contoso'), recorded(bmc='2.10', bios='1.4.2'))
    assert at_target == {'model': 'Contoso R640', 'status': 'at_target', 'reason': None, 'plan': [], 'components': [
        {'component': 'bmc', 'baseline_component': 'bmc', 'target': '2.10', 'current': '2.10', 'status': 'at_target',
         'behind_by': None, 'reason': None},
        {'component': 'bios', 'baseline_component': 'bios', 'target': '1.4.2', 'current': '1.4.2',
         'status': 'at_target', 'behind_by': None, 'reason': None}]}
    behind = node_compliance(baseline, node('b', 'Contoso'), recorded(bmc='2.5', bios='1.3'))
    assert behind['status'] == 'behind'
    assert [(item['status'], item['behind_by']) for item in behind['components']] == [('behind', 2), ('behind', 1)]
    # The stepping stone the node runs is passed; the one above it is a step; BMC before BIOS, as listed.
    assert behind['plan'] == [{'component': 'bmc', 'version': '2.8', 'url': 'http://127.0.0.1:8080/bmc-2.8.bin'},
                              {'component': 'bmc', 'version': '2.10', 'url': BMC_URL},
                              {'component': 'bios', 'version': '1.4.2', 'url': 'http://127.0.0.1:8080/bios-1.4.2.bin'}]
    far_behind = node_compliance(baseline, node('c', 'Contoso'), recorded(bmc='1.9', bios='1.4.2'))
    assert [step['version'] for step in far_behind['plan']] == ['2.5', '2.8', '2.10']
    assert far_behind['components'][0]['behind_by'] == 3
    ahead = node_compliance(baseline, node('d', 'Contoso'), recorded(bmc='3.0', bios='1.4.2'))
    assert ahead['status'] == 'ahead' and ahead['plan'] == [] and ahead['components'][0]['status'] == 'ahead'
    downgrade = node_compliance([r640(allow_downgrade=True)], node('d', 'Contoso'), recorded(bmc='3.0', bios='1.4.2'))
    assert downgrade['plan'] == [{'component': 'bmc', 'version': '2.10', 'url': BMC_URL}]
    odd = node_compliance(baseline, node('e', 'Contoso'), recorded(bmc='2.10-hotfix', bios='1.4.2'))
    assert odd['status'] == 'unknown' and odd['plan'] == []
    assert odd['components'][0]['reason'] == "version '2.10-hotfix' cannot be compared with the target '2.10'"
    missing = node_compliance(baseline, node('f', 'Contoso'), recorded(bmc='2.10'))
    assert missing['components'][1] == {
        'component': 'bios', 'baseline_component': 'bios', 'target': '1.4.2', 'current': None, 'status': 'unknown',
        'behind_by': None, 'reason': "its firmware interface records no 'bios' component"}
    # Behind on one component and unknown on another: the node has a plan, so it is behind.
    assert node_compliance(baseline, node('g', 'Contoso'), recorded(bmc='2.8'))['status'] == 'behind'


def test_a_node_without_components_or_model_is_unknown_with_the_reason():
    by_property = [{'name': 'fx2', 'match': {'properties': {'hw': 'fx2'}},
                    'components': [{'component': 'bios', 'version': '3.0', 'url': BMC_URL}]}]
    fake = node_compliance(by_property, node('f', interface='fake', hw='fx2'), [])
    assert fake['model'] == 'fx2' and fake['status'] == 'unknown' and fake['plan'] == []
    assert fake['reason'] == 'its firmware interface (fake) records no components'
    assert fake['components'][0]['reason'] == 'its firmware interface (fake) records no components'
    unmatched = node_compliance([r640()], node('u', interface='fake'), [])
    assert unmatched == {'model': None, 'status': 'unknown', 'components': [], 'plan': [], 'reason':
                         'no model of the baseline matches it (vendor unknown, model unknown); its firmware interface '
                         '(fake) records no components'}
    other = node_compliance([r640()], node('o', 'Fabrikam'), recorded(bmc='7.1', model='FX2'))
    assert other['reason'] == 'no model of the baseline matches it (vendor Fabrikam, model FX2)'
    both = node_compliance([r640(), dict(by_property[0], match={'vendor': 'contoso'})], node('b', 'Contoso'),
                           recorded(bmc='2.10'))
    assert both['model'] is None and both['reason'] == 'it matches more than one model: Contoso R640, fx2'


def test_the_section_counts_per_model_and_component():
    baseline = [r640()]
    labelled = [(name, node_compliance(baseline, node(name, 'Contoso', model='R640'), components))
                for name, components in (
        ('a', recorded(bmc='2.10', bios='1.4.2')), ('b', recorded(bmc='2.5', bios='1.3')),
        ('c', recorded(bmc='1.9', bios='9.9')), ('d', []))]
    labelled.append(('e', node_compliance(baseline, node('e', 'Fabrikam'), recorded(bmc='1'))))
    section = compliance_section(baseline, labelled)
    counts = [
        {'component': 'bmc', 'target': '2.10', 'at_target': 1, 'behind': 2, 'ahead': 0, 'unknown': 1, 'steps': 5},
        {'component': 'bios', 'target': '1.4.2', 'at_target': 1, 'behind': 1, 'ahead': 1, 'unknown': 1, 'steps': 1}]
    assert section == {'unmatched': ['e'], 'to_update': ['b', 'c'],
                       'models': [{'model': 'Contoso R640', 'nodes': 4, 'components': counts}]}


# -- nic:*: every NIC the node records ---------------------------------------------------------------------------

NIC_URL = 'http://127.0.0.1:8080/nic-22.40.bin'
NIC_STONE_URL = 'http://127.0.0.1:8080/nic-22.36.bin'


def with_nics(*nics, **model):
    """The R640 with a nic:* entry between its BMC and its BIOS (and the other entries of model, after)."""
    components = r640()['components']
    every_nic = {'component': 'nic:*', 'version': '22.40', 'url': NIC_URL,
                 'stepping_stones': [{'version': '22.36', 'url': NIC_STONE_URL}]}
    return dict(r640(), components=components[:1] + [every_nic] + components[1:] + list(nics), **model)


def nics(**versions):
    """Recorded NIC components, {serial: version}, named as Ironic names them."""
    return [{'component': 'nic:' + serial, 'current_version': version, 'vendor': 'Emulated NICs', 'model': 'EN-25G'}
            for serial, version in versions.items()]


def test_nic_star_is_every_nic_the_node_records_in_the_entry_s_place_sorted_by_name():
    compliance = node_compliance([with_nics()], node('a', 'Contoso'),
                                 recorded(bmc='2.10', bios='1.3') + nics(SN9='22.31', SN1='22.36'))

    assert [(item['component'], item['baseline_component'], item['status'], item['behind_by'])
            for item in compliance['components']] == [
        ('bmc', 'bmc', 'at_target', None),
        ('nic:SN1', 'nic:*', 'behind', 1), ('nic:SN9', 'nic:*', 'behind', 2),
        ('bios', 'bios', 'behind', 1)]
    # The concrete names in the plan (what Ironic's firmware.update takes), each NIC through the stepping stone.
    assert compliance['plan'] == [
        {'component': 'nic:SN1', 'version': '22.40', 'url': NIC_URL},
        {'component': 'nic:SN9', 'version': '22.36', 'url': NIC_STONE_URL},
        {'component': 'nic:SN9', 'version': '22.40', 'url': NIC_URL},
        {'component': 'bios', 'version': '1.4.2', 'url': 'http://127.0.0.1:8080/bios-1.4.2.bin'}]
    assert compliance['components'][1] == {
        'component': 'nic:SN1', 'baseline_component': 'nic:*', 'target': '22.40', 'current': '22.36',
        'status': 'behind', 'behind_by': 1, 'reason': None}
    # The same model's NIC on another node, another serial: the same entry.
    other = node_compliance([with_nics()], node('b', 'Contoso'), recorded(bmc='2.10', bios='1.4.2') + nics(SN5='22.40'))
    assert other['status'] == 'at_target' and other['plan'] == []
    assert [item['component'] for item in other['components']] == ['bmc', 'nic:SN5', 'bios']


def test_a_nic_named_in_the_model_is_judged_by_its_own_entry_and_nic_star_covers_the_others():
    slot = {'component': 'nic:NIC.Slot.1', 'version': '14.2', 'url': 'http://127.0.0.1:8080/slot1-14.2.bin'}
    compliance = node_compliance([with_nics(slot)], node('a', 'Contoso'), recorded(bmc='2.10', bios='1.4.2') + nics(
        **{'NIC.Slot.1': '14.1', 'SN2': '22.40'}))

    assert [(item['component'], item['baseline_component'], item['target'], item['status'])
            for item in compliance['components']] == [
        ('bmc', 'bmc', '2.10', 'at_target'), ('nic:SN2', 'nic:*', '22.40', 'at_target'),
        ('bios', 'bios', '1.4.2', 'at_target'), ('nic:NIC.Slot.1', 'nic:NIC.Slot.1', '14.2', 'behind')]
    assert compliance['plan'] == [{'component': 'nic:NIC.Slot.1', 'version': '14.2', 'url': slot['url']}]
    # Every NIC named by the model: nic:* has nothing left to cover, and no item.
    only_slot = node_compliance([with_nics(slot)], node('b', 'Contoso'),
                                recorded(bmc='2.10', bios='1.4.2') + nics(**{'NIC.Slot.1': '14.2'}))
    assert [item['component'] for item in only_slot['components']] == ['bmc', 'bios', 'nic:NIC.Slot.1']
    assert only_slot['status'] == 'at_target'


def test_a_node_that_records_no_nic_has_one_unknown_item_for_nic_star():
    compliance = node_compliance([with_nics()], node('a', 'Contoso'), recorded(bmc='2.10', bios='1.4.2'))

    assert compliance['components'][1] == {
        'component': 'nic:*', 'baseline_component': 'nic:*', 'target': '22.40', 'current': None, 'status': 'unknown',
        'behind_by': None, 'reason': 'its firmware interface records no NIC component (nic:<id>)'}
    assert compliance['status'] == 'unknown' and compliance['plan'] == []
    # No component at all: the node's own reason, as for every entry.
    fake = node_compliance([with_nics()], node('f', 'Contoso', interface='fake', model='R640'), [])
    assert [(item['component'], item['reason']) for item in fake['components']][1] == (
        'nic:*', 'its firmware interface (fake) records no components')


def test_a_node_with_one_nic_behind_and_one_at_target_is_behind_once_in_the_row_with_the_behind_nic_s_steps():
    baseline = [with_nics()]
    labelled = [(name, node_compliance(baseline, node(name, 'Contoso'), components)) for name, components in (
        ('mixed', recorded(bmc='2.10', bios='1.4.2') + nics(SN1='22.40', SN2='22.31')),
        ('current', recorded(bmc='2.10', bios='1.4.2') + nics(SN3='22.40', SN4='22.40')),
        ('newer', recorded(bmc='2.10', bios='1.4.2') + nics(SN5='22.40', SN6='23.1')),
        ('odd', recorded(bmc='2.10', bios='1.4.2') + nics(SN7='22.50', SN8='22.40-rc')),
        ('no-nic', recorded(bmc='2.10', bios='1.4.2')))]

    mixed = labelled[0][1]
    assert [(item['component'], item['status']) for item in mixed['components'] if item['baseline_component'] ==
            'nic:*'] == [('nic:SN1', 'at_target'), ('nic:SN2', 'behind')]
    assert mixed['plan'] == [{'component': 'nic:SN2', 'version': '22.36', 'url': NIC_STONE_URL},
                             {'component': 'nic:SN2', 'version': '22.40', 'url': NIC_URL}]
    section = compliance_section(baseline, labelled)
    (model,) = section['models']
    assert model['nodes'] == 5
    # The row counts nodes, by node_status's precedence over each node's NICs: behind > unknown > ahead > at_target.
    assert model['components'][1] == {'component': 'nic:*', 'target': '22.40', 'at_target': 1, 'behind': 1,
                                      'ahead': 1, 'unknown': 2, 'steps': 2}
    assert model['components'][0] == {'component': 'bmc', 'target': '2.10', 'at_target': 5, 'behind': 0,
                                      'ahead': 0, 'unknown': 0, 'steps': 0}
    assert section['to_update'] == ['mixed']


@pytest.mark.parametrize('name', ['nic:AB*', '*', 'nic:**', 'bios*', 'nic:*AB'])
def test_a_pattern_other_than_nic_star_is_refused_naming_the_fix(name):
    problems = baseline_problems([with_nics(), dict(r640(component=name), name='Other', match={'model': 'R650'})])
    assert problems == [
        "firmware_baseline[1] (Other).components[0].component '%s' is not a component Ironic records; use bios, bmc or "
        "nic:<id> (as the node's firmware components name it: GET /v1/nodes/<node>/firmware), or nic:* for every NIC "
        "the node records (the only pattern a baseline takes)." % name]


def test_nic_star_twice_in_a_model_is_refused_like_any_duplicate():
    twice = with_nics({'component': 'nic:*', 'version': '22.50', 'url': NIC_URL})
    assert baseline_problems([twice]) == [
        "firmware_baseline[0] (Contoso R640).components[3].component 'nic:*' is declared twice in this model; keep "
        "one entry (put its intermediate versions in stepping_stones)."]
    assert baseline_problems([with_nics({'component': 'nic:SN1', 'version': '22.50', 'url': NIC_URL})]) == []
