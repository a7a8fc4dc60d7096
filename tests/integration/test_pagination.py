# -*- coding: utf-8 -*-
"""Past the API's page limit, on a real Ironic whose pages hold five nodes: listing and fleet polling follow
Ironic's pagination, one list request per page, never one GET per node."""

import re

PAGE = 5
NODES = 12
PAGES = 3  # 5 + 5 + 2


def test_listing_and_fleet_polling_follow_pagination(make_ironic, run_module):
    instance = make_ironic()
    instance.role_vars['ironic_standalone_api_max_limit'] = PAGE
    instance.start()
    names = ['paged-%02d' % index for index in range(NODES)]
    for name in names:
        instance.api('POST', '/nodes', {'name': name, 'driver': 'fake-hardware'})

    listed = run_module('baremetal_node_info', endpoint=instance.endpoint)
    assert [node['name'] for node in listed['nodes']] == names
    assert listed['api_calls'] == 1 + PAGES  # the version, then the pages

    mark = instance.log_mark()
    result = run_module('baremetal_provision_state', endpoint=instance.endpoint, nodes=names, state='available')
    assert result['totals']['failed'] == 0 and result['totals']['changed'] == NODES
    reads = [request.path for request in instance.requests_since(mark) if request.method == 'GET']
    lists = [path for path in reads if path.startswith('/v1/nodes?')]
    assert len(lists) % PAGES == 0 and len(lists) >= 2 * PAGES
    # A single GET replaces the list only while one node is left moving, so such GETs come in runs, one node
    # after another, never interleaved as a GET per node per poll would be.
    single = [match.group(1) for match in (re.match(r'^/v1/nodes/([^/?]+)', path) for path in reads) if match]
    runs = [uuid for index, uuid in enumerate(single) if index == 0 or single[index - 1] != uuid]
    assert len(runs) == len(set(runs)), runs

    mark = instance.log_mark()
    again = run_module('baremetal_provision_state', endpoint=instance.endpoint, nodes=names, state='available')
    assert again['changed'] is False and again['api_calls'] == 1 + PAGES
    assert instance.write_requests_since(mark) == []
