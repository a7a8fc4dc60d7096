# -*- coding: utf-8 -*-
"""baremetal_node_info's inventory, firmware and bios options against the session's real Ironic (fake-hardware).

fake-hardware's inspect interface stores no inventory, and the session's Ironic enables no ``agent`` inspect
interface (the one that takes an inventory at POST /v1/continue_inspection): a stored inventory, its plugin data and
their masking are tested in tests/unit/plugins/module_utils/node/test_info.py. The fake firmware interface records
no components; the fake BIOS interface stores what bios.apply_configuration sends, registry fields included.
"""

import re
import uuid

import pytest

from nodes import RawIronic
from proxy import FaultProxy, playing_ironic_api

# A BIOS registry as a Redfish BMC reports one; BootPin is secret by its registry type only.
REGISTRY = [
    {'name': 'ProcTurboMode', 'value': 'Enabled', 'attribute_type': 'Enumeration',
     'allowable_values': ['Enabled', 'Disabled'], 'read_only': False},
    {'name': 'BootPin', 'value': '424242', 'attribute_type': 'Password', 'read_only': False, 'max_length': 8},
]


@pytest.fixture(scope='module')
def raw(ironic):
    return RawIronic(ironic)


def facet_reads(ironic, mark):
    return sorted(request.path.split('?')[0] for request in ironic.requests_since(mark)
                  if request.path.split('?')[0].rsplit('/', 1)[-1] in ('inventory', 'firmware', 'bios', 'history'))


def test_a_node_without_a_stored_inventory_says_so_in_ironics_words(ironic, run_module, fresh_node):
    node = fresh_node()
    mark = ironic.log_mark()
    result = run_module('baremetal_node_info', node=node['name'], inventory=True)
    assert not result.get('failed'), result.get('msg')
    entry = result['nodes'][0]
    assert entry['inventory'] is None and entry['plugin_data'] is None
    # Ironic's own words; they name the node by its database id.
    assert re.fullmatch(r'Node inventory record for node \S+ could not be found\.', entry['inventory_note'])
    assert 'firmware' not in entry and 'bios' not in entry
    assert facet_reads(ironic, mark) == ['/v1/nodes/%s/inventory' % node['uuid']]


def test_firmware_and_bios_are_what_ironic_recorded_with_the_registry_and_secrets_masked(ironic, raw, run_module):
    node = raw.node_in('manageable')
    settled = raw.verb(node['uuid'], 'clean', clean_steps=[
        {'interface': 'bios', 'step': 'apply_configuration', 'args': {'settings': REGISTRY}}])
    assert settled['provision_state'] == 'manageable', settled['last_error']
    result = run_module('baremetal_node_info', node=node['uuid'], firmware=True, bios=True)
    assert not result.get('failed'), result.get('msg')
    entry = result['nodes'][0]
    assert entry['firmware'] == []  # the fake firmware interface records no components
    bios = dict((setting['name'], setting) for setting in entry['bios'])
    assert sorted(bios) == ['BootPin', 'ProcTurboMode']
    assert bios['ProcTurboMode']['value'] == 'Enabled'
    assert bios['ProcTurboMode']['allowable_values'] == ['Enabled', 'Disabled']
    assert bios['ProcTurboMode']['attribute_type'] == 'Enumeration' and bios['ProcTurboMode']['read_only'] is False
    assert bios['BootPin']['value'] == '********' and bios['BootPin']['max_length'] == 8
    assert '424242' not in str(result) and 'links' not in bios['BootPin']
    assert 'inventory' not in entry


def test_reads_are_one_per_node_and_facet_asked(ironic, run_module, fresh_node):
    resource_class = 'rc-%s' % uuid.uuid4().hex[:8]
    nodes = [fresh_node(resource_class=resource_class), fresh_node(resource_class=resource_class)]
    mark = ironic.log_mark()
    result = run_module('baremetal_node_info', resource_class=resource_class, firmware=True)
    assert not result.get('failed'), result.get('msg')
    assert [entry['firmware'] for entry in result['nodes']] == [[], []]
    assert facet_reads(ironic, mark) == sorted('/v1/nodes/%s/firmware' % node['uuid'] for node in nodes)
    mark = ironic.log_mark()
    assert not run_module('baremetal_node_info', resource_class=resource_class).get('failed')
    assert facet_reads(ironic, mark) == []


@pytest.mark.parametrize('facet, needed, older', [('inventory', '1.81', '1.80'), ('firmware', '1.86', '1.85')])
def test_a_facet_older_ironic_lacks_is_refused_before_any_node_is_read(ironic, run_module, fresh_node, facet, needed,
                                                                       older):
    fresh_node()
    mark = ironic.log_mark()
    with FaultProxy(ironic.port, answer=playing_ironic_api(older)) as proxy:
        result = run_module('baremetal_node_info', endpoint=proxy.endpoint, **{facet: True})
    assert result['failed']
    assert '%s needs Ironic API %s or newer; this server supports up to %s' % (facet, needed, older) in result['msg']
    assert [request.path for request in ironic.requests_since(mark) if request.path.startswith('/v1/nodes')] == []
