# -*- coding: utf-8 -*-
"""The transport over real HTTP against a scripted server on loopback: answers Ironic gives only under load or while
it restarts (503, node or database locked, refused connections), lost answers, the negotiated microversion, the
server's release, pagination."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import socket
from types import SimpleNamespace

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import transport as _transport
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.client import IronicClient
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.http import ConnectionFailed, Response
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import (
    AnswerLost, Busy, ConductorUnreachable, IronicError, Locked, Transport, Unreachable)

from ..common.fake_clock import FakeClock
from .scripted import ScriptedIronic, ironic_error


def test_503_and_node_locked_are_retried_then_succeed(server):
    server.on('PUT', '/v1/nodes/n1/states/power',
              (503, ironic_error('No free conductor workers available')),
              (409, ironic_error('Node n1 is locked by host c1, please retry after the current operation is completed.')),
              (202, None))
    client = IronicClient(server.endpoint)
    client.set_power_state('n1', 'power on')
    assert [request[0] for request in server.requests] == ['GET', 'PUT', 'PUT', 'PUT']
    assert client.api_calls == 4


def test_a_node_still_locked_after_the_retries_is_locked_and_another_409_is_not(server, sleeps):
    server.on('PUT', '/v1/nodes/n1/states/power', (409, ironic_error('Node n1 is locked by host c1, please retry.')))
    server.on('POST', '/v1/nodes', (409, ironic_error('A node with name n1 already exists.')))
    client = IronicClient(server.endpoint)
    with pytest.raises(Locked) as caught:
        client.set_power_state('n1', 'power on')
    assert caught.value.status == 409 and caught.value.reason == 'Node n1 is locked by host c1, please retry.'
    assert len([request for request in server.requests if request[0] == 'PUT']) == _transport.RETRY_ATTEMPTS
    with pytest.raises(IronicError) as caught:
        client.create_node({'name': 'n1', 'driver': 'fake-hardware'})
    assert not isinstance(caught.value, Locked)


CONCURRENT_ACTION_LIMIT = ('Unable to process request at this time. The concurrent action limit for cleaning has been '
                           'reached. Please contact your administrator and try again later.')


def test_a_provision_verb_ironic_is_too_busy_for_is_busy_at_once_for_the_executor_to_send_later(server):
    server.on('PUT', '/v1/nodes/n1/states/provision', (503, ironic_error(CONCURRENT_ACTION_LIMIT)), (202, None))
    client = IronicClient(server.endpoint)
    with pytest.raises(Busy) as caught:
        client.set_provision_state('n1', 'provide')
    assert 'HTTP 503' in str(caught.value) and 'concurrent action limit for cleaning' in str(caught.value)
    assert [request[0] for request in server.requests] == ['GET', 'PUT']


def test_a_locked_node_is_locked_at_once_for_a_provision_verb_which_the_scheduler_sends_again(server):
    server.on('PUT', '/v1/nodes/n1/states/provision',
              (409, ironic_error('Node n1 is locked by host c1, please retry after the current operation is completed.')),
              (202, None))
    client = IronicClient(server.endpoint)
    with pytest.raises(Locked):
        client.set_provision_state('n1', 'provide')
    assert [request[0] for request in server.requests] == ['GET', 'PUT']


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


# What Ironic's API answers when the conductor its hash ring gives the node does not listen on its json-rpc port (a
# conductor killed, not yet counted dead): the request reached no conductor.
CONDUCTOR_REFUSED = ("Unable to establish connection to http://127.0.131.3:8089: "
                     "HTTPConnectionPool(host='127.0.131.3', port=8089): Max retries exceeded with url: / "
                     "(Caused by NewConnectionError(\"HTTPConnection(host='127.0.131.3', port=8089): "
                     "Failed to establish a new connection: [Errno 111] Connection refused\"))")


def test_a_conductor_the_api_cannot_reach_is_retried_then_succeeds(server):
    server.on('DELETE', '/v1/nodes/n1/maintenance', (500, ironic_error(CONDUCTOR_REFUSED)),
              (500, ironic_error(CONDUCTOR_REFUSED)), (202, None))
    client = IronicClient(server.endpoint)
    client.unset_maintenance('n1')
    assert [request[0] for request in server.requests] == ['GET', 'DELETE', 'DELETE', 'DELETE']


def test_a_conductor_the_api_cannot_reach_holds_the_node_like_a_lock_for_a_caller_that_waits_itself(server):
    # In a task with a timeout (resent_while_held) and for the scheduler's steps, it is sent again within the timeout.
    server.on('DELETE', '/v1/nodes/n1/maintenance', (500, ironic_error(CONDUCTOR_REFUSED)))
    client = IronicClient(server.endpoint)
    with pytest.raises(ConductorUnreachable) as caught:
        client.unset_maintenance('n1', retry_busy=False)
    assert isinstance(caught.value, Locked) and caught.value.status == 500
    assert str(caught.value) == 'Ironic refused DELETE /v1/nodes/n1/maintenance (HTTP 500): %s' % CONDUCTOR_REFUSED
    assert client.api_calls == 2


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


def test_a_lost_answer_to_a_boot_device_read_is_not_sent_again(server):
    # Ironic answers it once the BMC has, and holds the node's lock meanwhile: a second read would meet the lock.
    server.on('GET', '/v1/nodes/n1/management/boot_device', (None, None), (409, ironic_error('Node n1 is locked')))
    with pytest.raises(AnswerLost):
        IronicClient(server.endpoint).get_boot_device('n1')
    assert [request[:2] for request in server.requests[1:]] == [('GET', '/v1/nodes/n1/management/boot_device')]


def test_a_lost_answer_to_a_read_or_a_value_put_is_sent_again(server):
    server.on('GET', '/v1/nodes/n1', (None, None), (200, {'uuid': 'n1'}))
    server.on('PUT', '/v1/nodes/n1/maintenance', (None, None), (202, None))
    client = IronicClient(server.endpoint)
    assert client.get_node('n1') == {'uuid': 'n1'}
    client.set_maintenance('n1', 'reason')
    assert [request[0] for request in server.requests[1:]] == ['GET', 'GET', 'PUT', 'PUT']


class SilentSession(object):
    """A session to an Ironic that accepts the connection and never answers: each request takes the whole timeout on
    the fake clock, then fails as http.Session fails then (sent, or not even connected: sent=False)."""

    def __init__(self, clock, sent=True, answers=()):
        self.clock = clock
        self.sent = sent
        self.answers = list(answers)  # answers given after the silent tries, in order
        self.headers = {}
        self.requests = []

    def request(self, method, url, body=None, params=None, headers=None, timeout=60):
        self.requests.append((method, url, timeout))
        if self.answers and len(self.requests) > 1:
            return self.answers.pop(0)
        self.clock.now += timeout
        raise ConnectionFailed('timed out', sent=self.sent, timed_out=True)


@pytest.fixture
def fake_time(monkeypatch):
    """The transport's clock and sleep, a FakeClock (the time it waited is the timeouts and the pauses it took)."""
    clock = FakeClock()
    monkeypatch.setattr(_transport, 'time', SimpleNamespace(monotonic=clock.clock, sleep=clock.sleep))
    return clock


def silent_client(clock, timeout, **session):
    """A Transport to a SilentSession whose server version is known already: a request is only what it sends."""
    transport = Transport('http://127.0.0.1:6385', session=SilentSession(clock, **session), timeout=timeout)
    transport._server_version = capabilities.CLIENT_MAX_VERSION
    return transport, transport._session


@pytest.mark.parametrize('timeout', [5, 60])
def test_a_read_that_gets_no_answer_is_tried_twice_then_says_how_long_how_often_and_which_option(fake_time, timeout):
    transport, session = silent_client(fake_time, timeout)
    with pytest.raises(Unreachable) as caught:
        transport.request('GET', '/nodes')
    assert len(session.requests) == _transport.NO_ANSWER_TRIES == 2 and transport.api_calls == 2
    assert [request[2] for request in session.requests] == [timeout, timeout]
    seconds = fake_time.now
    assert 2 * timeout <= seconds < 2 * timeout + 1  # the two timeouts and one short pause
    assert str(caught.value) == (
        'Ironic at http://127.0.0.1:6385 accepted the connection but did not answer GET /v1/nodes: 2 tries of '
        'api_timeout (%d s) each, %d s in all. Check that Ironic is healthy (its API service, its conductor and '
        'database), or set api_timeout to give up sooner (or to wait longer for a slow Ironic).'
        % (timeout, round(seconds)))


def test_a_connection_never_made_within_the_timeout_is_tried_twice_and_said_so(fake_time):
    transport, session = silent_client(fake_time, 5, sent=False)
    with pytest.raises(Unreachable) as caught:
        transport.request('POST', '/nodes', body={})
    assert len(session.requests) == 2
    assert str(caught.value).startswith(
        'cannot reach Ironic at http://127.0.0.1:6385: no connection could be made for POST /v1/nodes: 2 tries of '
        'api_timeout (5 s) each, 10 s in all. Check the endpoint, and that nothing on the way (a firewall) drops '
        'the packets, or set api_timeout'), str(caught.value)


def test_a_read_answered_at_its_second_try_is_answered(fake_time):
    transport, session = silent_client(fake_time, 5, answers=[Response(200, 'OK', b'{"uuid": "n1"}')])
    assert transport.request('GET', '/nodes/n1') == {'uuid': 'n1'}
    assert len(session.requests) == 2


@pytest.mark.parametrize('method, replay', [('POST', True), ('PATCH', True), ('PUT', False)])
def test_a_write_that_gets_no_answer_is_not_sent_again_but_answer_lost(fake_time, method, replay):
    transport, session = silent_client(fake_time, 5)
    with pytest.raises(AnswerLost) as caught:
        transport.request(method, '/nodes/n1', body={}, replay=replay)
    assert len(session.requests) == 1
    assert str(caught.value) == 'the answer to %s /v1/nodes/n1 was lost: timed out' % method


def test_the_highest_common_microversion_is_sent(server):
    client = IronicClient(server.endpoint)
    server.on('GET', '/v1/nodes/n1', (200, {'uuid': 'n1'}))
    client.get_node('n1')
    assert server.requests[-1][2] == '1.115'


def test_list_follows_pagination_with_a_marker(server):
    first = [{'uuid': 'u%d' % index} for index in range(3)]
    server.on('GET', '/v1/nodes', (200, {'nodes': first, 'next': 'http://x/v1/nodes?marker=u2'}),
              (200, {'nodes': [{'uuid': 'u3'}]}))
    nodes = IronicClient(server.endpoint).list_nodes(fields=('uuid',), provision_state='available')
    assert [node['uuid'] for node in nodes] == ['u0', 'u1', 'u2', 'u3']
    second_page = server.requests[-1][1]
    assert 'marker=u2' in second_page and 'provision_state=available' in second_page


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


EXPIRED = {'error': {'message': 'The request you have made requires authentication.', 'code': 401}}


def test_a_token_ironic_refuses_is_renewed_once_and_the_request_sent_again_at_once(server, sleeps):
    server.on('GET', '/v1/nodes/n1', (401, EXPIRED), (200, {'uuid': 'n1'}))
    tokens = []
    client = IronicClient(server.endpoint, token='old', renew_token=lambda: tokens.append('new') or 'new')
    assert client.get_node('n1') == {'uuid': 'n1'}
    assert tokens == ['new'] and client._session.headers['X-Auth-Token'] == 'new'
    assert [request[1] for request in server.requests] == ['/', '/v1/nodes/n1', '/v1/nodes/n1'] and sleeps == []


@pytest.mark.parametrize('renew_token', [None, lambda: 'new'])
def test_credentials_refused_again_or_not_renewable_say_what_to_check(server, renew_token):
    server.on('GET', '/v1/nodes/n1', (401, EXPIRED))
    client = IronicClient(server.endpoint, token='old', renew_token=renew_token)
    with pytest.raises(IronicError) as caught:
        client.get_node('n1')
    assert str(caught.value) == (
        'Ironic refused GET /v1/nodes/n1 (HTTP 401): The request you have made requires authentication. The '
        'credentials were refused: check auth_type and auth (username and password for http_basic), or the cloud '
        'they come from.')
    assert caught.value.status == 401 and caught.value.reason is None
    assert len([request for request in server.requests if request[1] == '/v1/nodes/n1']) == (2 if renew_token else 1)


def test_a_renewed_token_starts_the_retries_over(server, sleeps):
    # The last retry of a busy Ironic meets an expired token: with a fresh one, the request has every retry again.
    busy = (503, ironic_error('No free conductor workers available'))
    answers = [busy] * (_transport.RETRY_ATTEMPTS - 1) + [(401, EXPIRED)] + [busy] * 3 + [(200, {'uuid': 'n1'})]
    server.on('GET', '/v1/nodes/n1', *answers)
    client = IronicClient(server.endpoint, renew_token=lambda: 'new')
    assert client.get_node('n1') == {'uuid': 'n1'}
    assert client.api_calls == 1 + len(answers) and len(sleeps) == _transport.RETRY_ATTEMPTS - 1 + 3
