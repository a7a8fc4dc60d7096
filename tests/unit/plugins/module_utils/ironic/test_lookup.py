# -*- coding: utf-8 -*-
"""Finding nodes (ironic/lookup.py): selection filters, one GET or one list by the size of Ironic, no-node messages."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.lookup import (
    find_nodes, no_node_message, select_nodes, selection_filters)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import InputError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError

from .lookup_clients import FakeClient, InMemoryIronic


def test_a_selection_drops_unset_filters_and_checks_the_api_version():
    assert selection_filters(FakeClient((1, 82)), {'shard': 's1', 'owner': None}) == {'shard': 's1'}
    with pytest.raises(IronicError, match='filtering nodes by shard needs Ironic API 1.82'):
        selection_filters(FakeClient((1, 81)), {'shard': 's1'})
    assert selection_filters(FakeClient((1, 82)), {'all': True, 'owner': None}) == {}


@pytest.mark.parametrize('selection', [{}, {'owner': None, 'all': False}, {'shard': ''}])
def test_a_selection_without_a_filter_lists_no_node(selection):
    client = InMemoryIronic(5)
    with pytest.raises(InputError, match='select'):
        select_nodes(client, selection, ('uuid',))
    assert client.sent == []


def test_every_node_is_listed_only_when_asked_for_with_all():
    client = InMemoryIronic(5)
    assert len(select_nodes(client, {'all': True, 'owner': None}, ('uuid',))) == 5


def test_one_ident_is_read_with_one_get_and_one_that_matches_no_node_is_named():
    client = InMemoryIronic(50)
    assert find_nodes(client, ['node-7'], ('uuid', 'name')) == ({'node-7': client.nodes[7]}, [])
    assert find_nodes(client, ['node-x'], ('uuid', 'name')) == ({}, ['node-x'])
    assert client.gets() == ['/nodes/node-7', '/nodes/node-x'] and len(client.sent) == 2


def test_many_idents_in_an_ironic_that_holds_few_more_are_read_with_one_list():
    client = InMemoryIronic(5)
    found, missing = find_nodes(client, ['node-1', client.nodes[4]['uuid'], 'node-x'], ('uuid', 'name'))
    assert found == {'node-1': client.nodes[1], client.nodes[4]['uuid']: client.nodes[4]} and missing == ['node-x']
    assert [params['limit'] for params in client.reads('/nodes')] == [6] and len(client.sent) == 1
    assert client.node_count == 5


def test_many_idents_in_a_big_ironic_are_a_short_list_and_a_get_for_each_it_did_not_hold():
    client = InMemoryIronic(2500)
    idents = ['node-0', 'node-2400', client.nodes[2401]['uuid'], 'node-x']
    found, missing = find_nodes(client, idents, ('uuid', 'name'))
    assert sorted(found) == sorted(idents[:3]) and missing == ['node-x']
    assert [params['limit'] for params in client.reads('/nodes')] == [8]
    assert client.gets() == ['/nodes/node-2400', '/nodes/%s' % client.nodes[2401]['uuid'], '/nodes/node-x']
    assert client.node_count is None


def test_idents_past_half_a_page_list_every_node_page_by_page():
    client = InMemoryIronic(2500)
    found, missing = find_nodes(client, ['node-%d' % index for index in range(0, 1000, 2)], ('uuid', 'name'))
    assert len(found) == 500 and missing == []
    assert len(client.reads('/nodes')) == 3 and client.gets() == [] and client.node_count == 2500


def test_the_message_for_idents_that_match_no_node_names_each_and_says_how_to_find_nodes():
    client = InMemoryIronic(0)
    message = no_node_message(['a', 'b'], client)
    assert message.startswith("No node is named or has the UUID 'a', 'b'.") and message.endswith('baremetal_node.')
    client.scope_note = 'The token is scoped to project p.'
    assert no_node_message(['a'], client).endswith('baremetal_node. The token is scoped to project p.')
