# -*- coding: utf-8 -*-
"""The driver layer over real HTTP against a scripted server on loopback: answers Ironic gives only under load
or in old releases (503, node or database locked, an old microversion), and pagination."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import client as _ironic
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import transport as _transport
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import POLL_LIST_ALL_RATIO, IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import (
    AnswerLost, Busy, IronicError, Unreachable)

# The states a poll may list nodes by (the engine passes those the conductor moves a node on from).
TRANSIENT_STATES = frozenset(('cleaning', 'deploying'))


def ironic_error(message):
    return {'error_message': json.dumps({'faultcode': 'Client', 'faultstring': message, 'debuginfo': None})}


class ScriptedIronic(object):
    """Answers each (method, path) from a queue of (status, body); the last answer repeats."""

    def __init__(self, max_version='1.115', port=0):
        self.script = {('GET', '/'): [(200, {'default_version': {'version': max_version, 'min_version': '1.1'}})]}
        self.requests = []
        script, requests = self.script, self.requests

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get('Content-Length') or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                requests.append((self.command, self.path, self.headers.get('X-OpenStack-Ironic-API-Version'), body))
                answers = script.get((self.command, self.path.split('?')[0]), [(404, ironic_error('no route'))])
                status, payload = answers.pop(0) if len(answers) > 1 else answers[0]
                if status is None:  # the request arrived; its answer is lost
                    self.close_connection = True
                    return
                data = json.dumps(payload).encode() if payload is not None else b''
                self.send_response(status)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_PATCH = do_DELETE = _answer

            def log_message(self, *args):
                pass

        self.server = HTTPServer(('127.0.0.1', port), Handler)
        self.port = self.server.server_address[1]
        self.endpoint = 'http://127.0.0.1:%d' % self.port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def on(self, method, path, *answers):
        self.script[(method, path)] = list(answers)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setattr(_transport, 'RETRY_BASE_DELAY', 0.001)
    scripted = ScriptedIronic()
    yield scripted
    scripted.close()


def test_503_and_node_locked_are_retried_then_succeed(server):
    server.on('PUT', '/v1/nodes/n1/states/power',
              (503, ironic_error('No free conductor workers available')),
              (409, ironic_error('Node n1 is locked by host c1, please retry after the current operation is completed.')),
              (202, None))
    client = IronicClient(server.endpoint)
    client.set_power_state('n1', 'power on')
    assert [request[0] for request in server.requests] == ['GET', 'PUT', 'PUT', 'PUT']
    assert client.api_calls == 4


CONCURRENT_ACTION_LIMIT = ('Unable to process request at this time. The concurrent action limit for cleaning has been '
                           'reached. Please contact your administrator and try again later.')


def test_a_provision_verb_ironic_is_too_busy_for_is_busy_at_once_for_the_executor_to_send_later(server):
    server.on('PUT', '/v1/nodes/n1/states/provision', (503, ironic_error(CONCURRENT_ACTION_LIMIT)), (202, None))
    client = IronicClient(server.endpoint)
    with pytest.raises(Busy) as caught:
        client.set_provision_state('n1', 'provide')
    assert 'HTTP 503' in str(caught.value) and 'concurrent action limit for cleaning' in str(caught.value)
    assert [request[0] for request in server.requests] == ['GET', 'PUT']


def test_a_locked_node_is_retried_for_a_provision_verb_too(server):
    server.on('PUT', '/v1/nodes/n1/states/provision',
              (409, ironic_error('Node n1 is locked by host c1, please retry after the current operation is completed.')),
              (202, None))
    client = IronicClient(server.endpoint)
    client.set_provision_state('n1', 'provide')
    assert [request[0] for request in server.requests] == ['GET', 'PUT', 'PUT']


def test_retries_are_bounded_and_end_with_ironics_message(server):
    server.on('GET', '/v1/nodes/n1', (503, ironic_error('No free conductor workers available')))
    client = IronicClient(server.endpoint)
    with pytest.raises(IronicError) as caught:
        client.get_node('n1')
    assert 'HTTP 503' in str(caught.value) and 'No free conductor workers available' in str(caught.value)
    assert client.api_calls == 1 + _transport.RETRY_ATTEMPTS


# What Ironic answers when SQLite's lock outlasts a write it does not retry itself: the OperationalError's text,
# with the statement and its parameters (here a BMC password).
DATABASE_LOCKED = ("(sqlite3.OperationalError) database is locked\n"
                   "[SQL: UPDATE nodes SET driver_info=? WHERE nodes.id = ?]\n"
                   "[parameters: ('{\"redfish_password\": \"s3cret\"}', 7)]\n"
                   "(Background on this error at: https://sqlalche.me/e/20/e3q8)")


def test_a_locked_sqlite_database_is_retried_then_succeeds(server):
    server.on('PATCH', '/v1/nodes/n1', (500, ironic_error(DATABASE_LOCKED)), (500, ironic_error(DATABASE_LOCKED)),
              (200, {'uuid': 'n1'}))
    client = IronicClient(server.endpoint)
    assert client.update_node('n1', [{'op': 'add', 'path': '/extra/a', 'value': 1}]) == {'uuid': 'n1'}
    assert [request[0] for request in server.requests] == ['GET', 'PATCH', 'PATCH', 'PATCH']


def test_a_database_locked_at_every_attempt_gives_up_saying_why_without_the_sql(server):
    server.on('POST', '/v1/nodes', (500, ironic_error(DATABASE_LOCKED)))
    client = IronicClient(server.endpoint)
    with pytest.raises(IronicError) as caught:
        client.create_node({'driver': 'fake-hardware'})
    assert str(caught.value) == (
        "Ironic refused POST /v1/nodes (HTTP 500): (sqlite3.OperationalError) database is locked, %d times in a row: "
        "Ironic's SQLite database cannot take this many writes at once. Lower concurrency, or run Ironic on MySQL "
        "or PostgreSQL." % _transport.RETRY_ATTEMPTS)
    assert caught.value.status == 500 and client.api_calls == 1 + _transport.RETRY_ATTEMPTS


@pytest.mark.parametrize('status, message', [
    (409, 'A port with MAC address 52:54:00:00:00:01 already exists.'),  # a conflict that waiting cannot fix
    (400, 'The requested action "active" can not be performed on node "n1" while it is in state "enroll".'),
    (500, "cannot access local variable 'auto_lessee' where it is not associated with a value"),
    (500, '(sqlite3.IntegrityError) UNIQUE constraint failed: nodes.name'),  # a database error that is no lock
])
def test_other_errors_fail_at_once_with_ironics_message(server, status, message):
    server.on('PUT', '/v1/nodes/n1/states/provision', (status, ironic_error(message)), (202, None))
    client = IronicClient(server.endpoint)
    with pytest.raises(IronicError) as caught:
        client.set_provision_state('n1', 'active')
    assert str(caught.value) == 'Ironic refused PUT /v1/nodes/n1/states/provision (HTTP %d): %s' % (status, message)
    assert client.api_calls == 2


def test_the_highest_common_microversion_is_sent(server):
    client = IronicClient(server.endpoint)
    server.on('GET', '/v1/nodes/n1', (200, {'uuid': 'n1'}))
    client.get_node('n1')
    assert server.requests[-1][2] == '1.115'


def test_a_verb_the_server_is_too_old_for_names_the_version_it_needs():
    old = ScriptedIronic(max_version='1.16')
    try:
        client = IronicClient(old.endpoint)
        with pytest.raises(IronicError) as caught:
            client.set_provision_state('n1', 'adopt')
        assert "the 'adopt' verb needs Ironic API 1.17 or newer; this server supports up to 1.16" in str(caught.value)
        assert [request[0] for request in old.requests] == ['GET']  # nothing was sent to the node
    finally:
        old.close()


def test_a_field_the_server_is_too_old_for_names_the_version_it_needs():
    old = ScriptedIronic(max_version='1.60')
    try:
        with pytest.raises(IronicError) as caught:
            IronicClient(old.endpoint).set_provision_state('n1', 'active', deploy_steps=[{'step': 'x'}])
        assert 'deploy_steps needs Ironic API 1.69 or newer' in str(caught.value)
    finally:
        old.close()


def test_a_config_drive_dictionary_needs_the_version_that_builds_it():
    old = ScriptedIronic(max_version='1.55')
    try:
        old.on('PUT', '/v1/nodes/n1/states/provision', (202, None))
        client = IronicClient(old.endpoint)
        client.set_provision_state('n1', 'active', configdrive='http://127.0.0.1:9/configdrive.iso')
        with pytest.raises(IronicError) as caught:
            client.set_provision_state('n1', 'active', configdrive={'user_data': '#cloud-config'})
        assert 'a config_drive dictionary needs Ironic API 1.56 or newer' in str(caught.value)
    finally:
        old.close()


@pytest.fixture
def sleeps(monkeypatch):
    """The delays the client slept before trying again, none of them slept."""
    slept = []
    monkeypatch.setattr(_transport.time, 'sleep', slept.append)
    return slept


def closed_loopback_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]  # nothing listens on it once the socket is closed


def test_a_refused_connection_before_any_answer_fails_at_once_saying_nothing_listens(sleeps):
    endpoint = 'http://127.0.0.1:%d' % closed_loopback_port()
    client = IronicClient(endpoint)
    with pytest.raises(Unreachable) as caught:
        client.get_node('n1')
    assert str(caught.value) == (
        'cannot reach Ironic at %s: nothing listens there (connection refused). Check the endpoint option, or the '
        'cloud chosen with cloud or OS_CLOUD, and that Ironic is running.' % endpoint)
    assert client.api_calls == 1 and sleeps == []


def test_after_a_first_answer_a_refused_connection_is_a_restart_and_is_waited_for(monkeypatch):
    first = ScriptedIronic()
    client = IronicClient(first.endpoint)
    assert client.version == (1, 115)
    first.close()
    slept, restarted = [], []

    def sleep_while_ironic_restarts(delay):
        slept.append(delay)
        if len(slept) == 2:
            restarted.append(ScriptedIronic(port=first.port))
            restarted[0].on('GET', '/v1/nodes/n1', (200, {'uuid': 'n1'}))
    monkeypatch.setattr(_transport.time, 'sleep', sleep_while_ironic_restarts)
    try:
        assert client.get_node('n1') == {'uuid': 'n1'}
    finally:
        for server in restarted:
            server.close()
    assert client.api_calls == 4 and len(slept) == 2  # GET /, two refused GETs, the answered one


def test_after_a_first_answer_a_refused_write_is_retried_then_unreachable_in_plain_words(sleeps):
    gone = ScriptedIronic()
    client = IronicClient(gone.endpoint)
    assert client.version == (1, 115)
    gone.close()
    with pytest.raises(Unreachable) as caught:
        client.set_provision_state('n1', 'manage')  # nothing was sent: safe to try again, and it was
    assert str(caught.value) == ('cannot reach Ironic at %s: Connection refused. Check that the endpoint is right and '
                                 'the service is running.' % gone.endpoint)
    assert client.api_calls == 1 + _transport.RETRY_ATTEMPTS and len(sleeps) == _transport.RETRY_ATTEMPTS - 1


def test_list_follows_pagination_with_a_marker(server):
    first = [{'uuid': 'u%d' % index} for index in range(3)]
    server.on('GET', '/v1/nodes', (200, {'nodes': first, 'next': 'http://x/v1/nodes?marker=u2'}),
              (200, {'nodes': [{'uuid': 'u3'}]}))
    nodes = IronicClient(server.endpoint).list_nodes(fields=('uuid',), provision_state='available')
    assert [node['uuid'] for node in nodes] == ['u0', 'u1', 'u2', 'u3']
    second_page = server.requests[-1][1]
    assert 'marker=u2' in second_page and 'provision_state=available' in second_page


def test_a_conductor_group_filter_is_sent_as_ironic_stores_groups(server):
    server.on('GET', '/v1/nodes', (200, {'nodes': []}))
    IronicClient(server.endpoint).list_nodes(fields=('uuid',), conductor_group='Rack1')
    assert 'conductor_group=rack1' in server.requests[-1][1]


def test_servicing_on_a_server_before_api_1_87_names_the_version_and_sends_nothing():
    old = ScriptedIronic(max_version='1.86')
    try:
        with pytest.raises(IronicError) as caught:
            IronicClient(old.endpoint).set_provision_state('n1', 'service', service_steps=[{'step': 'x'}])
        assert '1.87' in str(caught.value) and "'service' verb" in str(caught.value)
        assert [request[0] for request in old.requests] == ['GET']
    finally:
        old.close()


@pytest.mark.parametrize('max_version, answers, expected', [
    ('1.115', [(200, {'inventory': {'cpu': {'count': 8}}, 'plugin_data': {'secret': 'x'}})], {'cpu': {'count': 8}}),
    ('1.115', [(404, ironic_error('Node inventory record for node 2 could not be found.'))], None),
    ('1.80', [], None),  # no inventory endpoint before 1.81: not even asked
])
def test_the_inventory_is_read_where_ironic_keeps_one(max_version, answers, expected):
    scripted = ScriptedIronic(max_version=max_version)
    try:
        if answers:
            scripted.on('GET', '/v1/nodes/n1/inventory', *answers)
        assert IronicClient(scripted.endpoint).get_inventory('n1') == expected
        assert len([request for request in scripted.requests if 'inventory' in request[1]]) == len(answers)
    finally:
        scripted.close()


NO_INVENTORY = 'Node inventory record for node 1be26c0b-03f2-4d2e-ae87-c02d7f33c123 could not be found.'


def test_the_stored_inventory_comes_with_its_plugin_data(server):
    stored = {'inventory': {'cpu': {'count': 8}}, 'plugin_data': {'root_disk': {'name': '/dev/sda'}}}
    server.on('GET', '/v1/nodes/n1/inventory', (200, stored))
    assert IronicClient(server.endpoint).stored_inventory('n1') == dict(stored, inventory_note=None)
    assert server.requests[-1][1:3] == ('/v1/nodes/n1/inventory', '1.115')


def test_no_stored_inventory_is_said_in_ironics_own_words(server):
    # Ironic answers so for a node never inspected, and for every node when its [inventory]data_backend is none.
    server.on('GET', '/v1/nodes/n1/inventory', (404, ironic_error(NO_INVENTORY)))
    assert IronicClient(server.endpoint).stored_inventory('n1') == {
        'inventory': None, 'plugin_data': None, 'inventory_note': NO_INVENTORY}


def test_a_node_gone_is_no_missing_inventory(server):
    server.on('GET', '/v1/nodes/n1/inventory', (404, ironic_error('Node n1 could not be found.')))
    with pytest.raises(_transport.NotFound, match='Node n1 could not be found'):
        IronicClient(server.endpoint).stored_inventory('n1')


def test_the_stored_inventory_before_api_1_81_names_both_versions_and_is_not_asked():
    old = ScriptedIronic(max_version='1.80')
    try:
        with pytest.raises(IronicError, match='inventory needs Ironic API 1.81 or newer; this server supports up to 1.80'):
            IronicClient(old.endpoint).stored_inventory('n1')
        assert [request[1] for request in old.requests] == ['/']
    finally:
        old.close()


def test_a_lost_answer_to_a_provision_verb_is_not_sent_again(server):
    server.on('PUT', '/v1/nodes/n1/states/provision', (None, None))
    client = IronicClient(server.endpoint)
    with pytest.raises(AnswerLost):
        client.set_provision_state('n1', 'manage')
    assert [request[:2] for request in server.requests[1:]] == [('PUT', '/v1/nodes/n1/states/provision')]


@pytest.mark.parametrize('method, path, call', [
    ('POST', '/v1/nodes', lambda client: client.create_node({'driver': 'fake-hardware'})),
    ('PATCH', '/v1/nodes/n1', lambda client: client.update_node('n1', [{'op': 'remove', 'path': '/extra/a'}])),
])
def test_a_lost_answer_to_a_post_or_patch_is_not_sent_again(server, method, path, call):
    server.on(method, path, (None, None))
    with pytest.raises(AnswerLost):
        call(IronicClient(server.endpoint))
    assert len([request for request in server.requests if request[0] == method]) == 1


def test_a_lost_answer_to_a_read_or_a_value_put_is_sent_again(server):
    server.on('GET', '/v1/nodes/n1', (None, None), (200, {'uuid': 'n1'}))
    server.on('PUT', '/v1/nodes/n1/maintenance', (None, None), (202, None))
    client = IronicClient(server.endpoint)
    assert client.get_node('n1') == {'uuid': 'n1'}
    client.set_maintenance('n1', 'reason')
    assert [request[0] for request in server.requests[1:]] == ['GET', 'GET', 'PUT', 'PUT']


def test_polls_read_in_proportion_to_the_nodes_in_play(server):
    server.on('GET', '/v1/nodes', (200, {'nodes': [{'uuid': 'a', 'provision_state': 'cleaning'}]}))
    server.on('GET', '/v1/nodes/b', (200, {'uuid': 'b', 'provision_state': 'available'}))
    server.on('GET', '/v1/nodes/c', (200, {'uuid': 'c', 'provision_state': 'deploying'}))
    server.on('GET', '/v1/nodes/d', (404, ironic_error('Node d could not be found.')))
    client = IronicClient(server.endpoint)
    latest = client.poll_nodes({'a': {'provision_state': 'cleaning'}, 'b': {'provision_state': 'cleaning'},
                                'c': {'provision_state': 'deploying'}, 'd': {'provision_state': 'manageable'}},
                               TRANSIENT_STATES)
    assert sorted(latest) == ['a', 'b', 'c']  # d is gone
    paths = [request[1] for request in server.requests[1:]]
    lists = [path for path in paths if path.startswith('/v1/nodes?')]
    assert len(paths) == 4 and len(lists) == 1 and 'provision_state=cleaning' in lists[0]  # a list, GETs of b, c, d


@pytest.mark.parametrize('held, lists_all', [(POLL_LIST_ALL_RATIO * 2, True), (POLL_LIST_ALL_RATIO * 2 + 1, False)])
def test_polls_list_everything_while_ironic_holds_at_most_the_ratio_of_nodes_per_node_polled(server, held, lists_all):
    nodes = [{'uuid': 'u%d' % index, 'provision_state': 'manageable'} for index in range(held)]
    server.on('GET', '/v1/nodes', (200, {'nodes': nodes}))
    for node in nodes[:2]:
        server.on('GET', '/v1/nodes/%s' % node['uuid'], (200, node))
    client = IronicClient(server.endpoint)
    _nodes, complete = client.list_nodes(fields=('uuid',), first=held + 1)
    assert complete and client.node_count is None  # a list learns nothing by itself: its caller says what it read
    client.count_nodes(_nodes)
    assert client.node_count == held
    # Both were just sent a verb from a stable state: neither is in a list of a transient state.
    latest = client.poll_nodes({'u0': {'provision_state': 'enroll'}, 'u1': {'provision_state': 'enroll'}},
                               TRANSIENT_STATES)
    assert sorted(latest) == ['u0', 'u1']
    polls = [request[1].split('?')[0] for request in server.requests[2:]]
    assert polls == (['/v1/nodes'] if lists_all else ['/v1/nodes/u0', '/v1/nodes/u1'])


def test_node_history_is_the_latest_events_oldest_first(server):
    server.on('GET', '/v1/nodes/n1/history', (200, {'history': [{'event': 'new'}, {'event': 'old'}]}))
    client = IronicClient(server.endpoint)
    assert [event['event'] for event in client.node_history('n1', 2)] == ['old', 'new']
    assert 'sort_dir=desc' in server.requests[-1][1] and 'limit=2' in server.requests[-1][1]
    client._server_version = (1, 77)
    assert client.node_history('n1', 2) == []


def test_bios_is_read_with_its_registry_where_the_api_has_one():
    for version, query in (('1.74', '/v1/nodes/n1/bios?detail=true'), ('1.73', '/v1/nodes/n1/bios')):
        scripted = ScriptedIronic(max_version=version)
        try:
            scripted.on('GET', '/v1/nodes/n1/bios', (200, {'bios': [{'name': 'A', 'value': '1'}]}))
            assert IronicClient(scripted.endpoint).get_bios('n1') == [{'name': 'A', 'value': '1'}]
            assert scripted.requests[-1][1] == query
        finally:
            scripted.close()


def test_firmware_and_bios_name_the_version_they_need():
    old = ScriptedIronic(max_version='1.39')
    try:
        client = IronicClient(old.endpoint)
        with pytest.raises(IronicError, match='firmware components needs Ironic API 1.86 or newer'):
            client.get_firmware('n1')
        with pytest.raises(IronicError, match='BIOS settings needs Ironic API 1.40 or newer'):
            client.get_bios('n1')
        assert [request[0] for request in old.requests] == ['GET']
    finally:
        old.close()


def test_target_raid_config_is_put_as_the_body(server):
    server.on('PUT', '/v1/nodes/n1/states/raid', (204, None))
    layout = {'logical_disks': [{'size_gb': 'MAX', 'raid_level': '1'}]}
    IronicClient(server.endpoint).set_target_raid_config('n1', layout)
    assert server.requests[-1][0::3] == ('PUT', layout)


@pytest.mark.parametrize('max_version, absent', [('1.94', {'disable_power_off', 'health'}), ('1.108', {'health'}),
                                                 ('1.115', set())])
def test_a_field_newer_than_the_server_is_never_requested_and_is_absent_from_views(max_version, absent):
    server = ScriptedIronic(max_version=max_version)
    try:
        answer = dict((field, None) for field in _ironic.NODE_SUMMARY_FIELDS if field not in absent)
        server.on('GET', '/v1/nodes/n1', (200, answer))
        node = IronicClient(server.endpoint).get_node('n1', _ironic.NODE_SUMMARY_FIELDS)
        requested = set(server.requests[-1][1].split('fields=')[1].replace('%2C', ',').split(','))
        assert requested == set(_ironic.NODE_SUMMARY_FIELDS) - absent
        assert set(_ironic.summarize_node(node)) == set(_ironic.NODE_SUMMARY_FIELDS) - absent
    finally:
        server.close()


def test_the_whole_history_follows_pagination_oldest_first(server):
    server.on('GET', '/v1/nodes/n1/history',
              (200, {'history': [{'uuid': 'e1'}, {'uuid': 'e2'}], 'next': 'http://x/v1/nodes/n1/history?marker=e2'}),
              (200, {'history': [{'uuid': 'e3'}]}))
    assert [event['uuid'] for event in IronicClient(server.endpoint).whole_node_history('n1')] == ['e1', 'e2', 'e3']
    pages = [request[1] for request in server.requests if request[1].startswith('/v1/nodes/n1/history')]
    assert len(pages) == 2 and 'detail=true' in pages[0] and 'marker=e2' in pages[1]


def test_conductors_are_read_over_the_tasks_reads_and_none_before_api_1_49(server):
    server.on('GET', '/v1/conductors',
              (200, {'conductors': [{'hostname': 'c1', 'conductor_group': '', 'alive': False, 'updated_at': 'T0'},
                                    {'hostname': 'c2', 'conductor_group': '', 'alive': True, 'updated_at': 'T0'}]}),
              (200, {'conductors': [{'hostname': 'c1', 'conductor_group': '', 'alive': False, 'updated_at': 'T0'},
                                    {'hostname': 'c2', 'conductor_group': '', 'alive': True, 'updated_at': 'T5'}]}))
    client = IronicClient(server.endpoint)
    # c1 is dead once c2's heartbeat was seen to advance (_conductors.ConductorWatch): one watch per client.
    assert [client.conductors()['c1']['dead'] for _read in range(2)] == [False, True]
    assert server.requests[-1][2] == '1.115' and 'updated_at' in server.requests[-1][1]

    old = ScriptedIronic(max_version='1.48')
    try:
        assert IronicClient(old.endpoint).conductors() == {}
        assert [request[1] for request in old.requests] == ['/']
    finally:
        old.close()


@pytest.mark.parametrize('max_version, version, release, words', [
    ('1.90', (1, 90), (24, 1), 'Ironic 24.1 (API 1.90)'),
    ('1.101', (1, 101), (32, 0), 'Ironic 32.0 or 32.1 (API 1.101)'),
    ('1.120', (1, 115), (39, 0), 'Ironic newer than 39.0 (API 1.120)'),
])
def test_the_servers_release_is_read_from_its_newest_api_version_with_one_request(max_version, version, release, words):
    server = ScriptedIronic(max_version=max_version)
    try:
        client = IronicClient(server.endpoint)
        assert (client.version, client.release, client.describe_server()) == (version, release, words)
        assert client.server_version == capabilities.parse_version(max_version) and client.api_calls == 1
    finally:
        server.close()


def test_a_node_is_found_by_the_mac_address_of_a_port_and_an_unknown_address_finds_none(server):
    server.on('GET', '/v1/ports', (200, {'ports': [{'node_uuid': 'u-7'}]}), (200, {'ports': []}))
    server.on('GET', '/v1/nodes/u-7', (200, {'uuid': 'u-7', 'name': 'rack1-node07'}))
    client = IronicClient(server.endpoint)
    assert client.find_node_by_mac('52:54:00:12:34:56', ('uuid', 'name')) == {'uuid': 'u-7', 'name': 'rack1-node07'}
    ports = [path for method, path, _version, _body in server.requests if path.startswith('/v1/ports')]
    assert 'address=52%3A54%3A00%3A12%3A34%3A56' in ports[0] and 'fields=node_uuid' in ports[0]
    assert client.find_node_by_mac('52:54:00:00:00:99') is None
