# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The table of record fields: each row complete, and what derives from it (the argument spec, node/record.py's
field lists, the API features a declaration needs, the node's view)."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import FEATURE_MIN_VERSION
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import record, record_fields

COMPARES = (record_fields.VALUE, record_fields.KEYS, record_fields.DOCUMENT, record_fields.INTERFACES,
            record_fields.OWN_REQUESTS, record_fields.ON_CREATION)


@pytest.mark.parametrize('field', record_fields.ROWS, ids=lambda field: field.name)
def test_each_row_is_complete(field):
    assert field.compare in COMPARES
    assert field.feature is None or field.feature in FEATURE_MIN_VERSION
    assert field.description and field.element
    assert field.view == (field.sample is not record_fields.NO_SAMPLE)
    assert field.type in ('str', 'bool', 'int', 'dict', 'list')
    assert (field.type == 'list') == (field.elements is not None)


def test_the_argument_spec_derives_from_the_rows():
    assert list(record_fields.RECORD_SPEC) == [field.name for field in record_fields.ROWS]
    assert record_fields.RECORD_SPEC['virtual_media'] == dict(type='list', elements='dict', options=dict(
        device_type=dict(type='str', required=True, choices=['cdrom', 'disk', 'floppy']),
        image_url=dict(type='str'),
        download_source=dict(type='str', default='http', choices=['http', 'local']),
        state=dict(type='str', default='present', choices=['present', 'absent'])))
    assert record_fields.RECORD_SPEC['shard'] == dict(type='str')


def test_the_field_lists_of_the_record_derive_from_the_rows():
    assert set(record.DICT_FIELDS) == {'driver_info', 'properties', 'extra', 'instance_info'}
    assert 'network_data' in record.SCALAR_FIELDS and record.DOCUMENT_FIELDS == ('network_data',)
    assert set(record.SCALAR_FIELDS) == set(name for name, field in record_fields.FIELDS.items()
                                            if field.compare in (record_fields.VALUE, record_fields.DOCUMENT))
    assert {'ports', 'traits', 'port_groups', 'virtual_media', 'port_memberships'} == set(record.SEPARATE_FIELDS)
    assert record.INTERFACES[0] == 'bios' and len(record.INTERFACES) == 13


def test_a_declared_field_needs_the_feature_its_row_names():
    assert record.required_features({'shard': 'a', 'driver': 'ipmi', 'extra': {}}) == ['shard']
    assert record.required_features({'boot_interface': 'pxe', 'bios_interface': 'no-bios'}) == [
        'bios_interface', 'interfaces']


def test_a_viewed_field_newer_than_every_supported_ironic_is_absent_where_ironic_lacks_it(monkeypatch):
    monkeypatch.setattr(record, 'NEWER_VIEW_FIELDS', ('lessee',))
    node = {'uuid': 'u', 'name': 'n', 'lessee': None, 'owner': None}
    assert 'lessee' in record.node_view(node, []) and record.node_view(node, [])['lessee'] is None
    del node['lessee']
    view = record.node_view(node, [])
    assert 'lessee' not in view and view['owner'] is None and view['shard'] is None
