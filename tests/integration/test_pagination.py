# -*- coding: utf-8 -*-
"""Past the API's page limit, on a real Ironic whose pages hold five nodes: listing, the fleet lookup and
fleet polls that list many nodes follow Ironic's pagination, one list request per page."""

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
    lookup, polls = lists[:PAGES], lists[PAGES:]
    assert ['marker=' in path for path in lookup] == [False, True, True]  # one request per page
    # While all twelve move, Ironic holds no more than twice the nodes in play: a poll lists them all, page by page.
    assert [path for path in polls if 'marker=' in path]

    mark = instance.log_mark()
    again = run_module('baremetal_provision_state', endpoint=instance.endpoint, nodes=names, state='available')
    assert again['changed'] is False and again['api_calls'] == 1 + PAGES
    assert instance.write_requests_since(mark) == []
