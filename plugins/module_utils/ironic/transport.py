# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transport to Ironic: one request to its API with the credentials and the negotiated microversion, its errors,
and the retries that make it safe to send again.

Locks, HTTP 503, a conductor Ironic's API cannot reach and dropped connections are retried with bounded, jittered
backoff; a write whose answer was lost is never sent again blindly (AnswerLost: the caller re-reads). A request that
gets no answer at all within the timeout (api_timeout) is tried NO_ANSWER_TRIES times in all: an Ironic that accepts
connections and never answers fails the request in about NO_ANSWER_TRIES x api_timeout, not RETRY_ATTEMPTS x
api_timeout. A keystone token Ironic says expired (HTTP 401) is renewed once, and the request sent again. The session
below it (ironic/http.py) opens the connections; the endpoint calls above it (ironic/nodes.py, ironic/resources.py)
name the URLs.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import email.utils
import json
import threading
import time

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import Wait
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import (
    CLIENT_MAX_VERSION, parse_version, too_old, version_string)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.http import ConnectionFailed, Session, TLSRefused

RETRY_ATTEMPTS = 8
RETRY_BASE_DELAY = 0.1
RETRY_MAX_DELAY = 5.0
# How many times a request is sent, at most, when each try gets no answer within the timeout (api_timeout): the
# timeout bounds one try, this bounds the request (2 x 60 s with the default api_timeout).
NO_ANSWER_TRIES = 2
# What SQLite says when a write waited for another past its timeout; Ironic answers HTTP 500 with it.
SQLITE_LOCKED = 'database is locked'
# What Ironic's API answers (HTTP 500) when the conductor its hash ring gives the node is not listening on its
# json-rpc port: keystoneauth's ConnectFailure, raised before the request reached any conductor. A conductor that
# died stays in the API's ring until Ironic notices it dead ([conductor]heartbeat_timeout) and the ring is built
# again, after which the same request goes to a live conductor of the node's group.
CONDUCTOR_UNREACHABLE = 'Unable to establish connection to '
# Requests sent again when their answer is lost: reading, PUTs that set a value, DELETE. A provision
# verb is a transition, not a value: sent twice, Ironic refuses the second. A POST could create twice and
# a JSON patch may not apply twice. For those, AnswerLost: the caller re-reads and goes on from there.
REPLAYED_METHODS = ('GET', 'HEAD', 'PUT', 'DELETE')
PAGE_LIMIT = 1000


class IronicError(BaremetalError):
    """An error answer from Ironic, or no answer at all."""

    def __init__(self, message, status=None, reason=None):
        super(IronicError, self).__init__(message)
        self.status = status
        self.reason = reason  # Ironic's own words, without the request they answer


class NotFound(IronicError):
    pass


class Unreachable(IronicError):
    """No connection to Ironic could be made, or no answer came to a request that is safe to send again (a read, a
    value PUT, a DELETE): trying again later is safe."""


class Busy(IronicError):
    """Ironic takes no more of this work for now (HTTP 503): its concurrent action limit
    ([conductor]max_concurrent_clean, max_concurrent_deploy) is reached, or no conductor worker is free. Nothing was
    done; the same request may be sent again once some of that work is over."""


class Locked(IronicError):
    """A conductor at work on the node holds its lock (HTTP 409 'locked'), often waiting for a slow BMC: through the
    retries, or at once with retry_busy=False. Nothing was done; the same request may be sent again once the
    conductor is done (resent_while_held)."""


class ConductorUnreachable(Locked):
    """Ironic's API could not pass the request on to the node's conductor (HTTP 500, CONDUCTOR_UNREACHABLE): one that
    died and that Ironic does not yet count as dead. Nothing was done; like a lock, it holds this node only, and the
    same request reaches a live conductor once Ironic drops the dead one from its hash ring."""


class AnswerLost(IronicError):
    """A write was sent but its answer never came: Ironic may or may not have applied it.

    Callers re-read what the write was meant to change and go on from what Ironic reports.
    """


def resent_while_held(send, waiting, on_held=None):
    """send(retry_busy=False), sent again while Ironic holds it off, Locked or Busy: nothing was done, so the same
    request is safe to send again. Between two, on_held(the answer) and waiting's next pause (a Wait: the task's
    timeout, at the poll's pace); past its deadline, the latest answer is raised. The one loop of the collection that
    waits out a lock within a task's timeout, instead of the transport's few retries."""
    waiting.reset()
    while True:
        try:
            return send(retry_busy=False)
        except (Locked, Busy) as exc:
            if on_held is not None:
                on_held(exc)
            if not waiting.pause():
                raise


def _error_message(response):
    """Ironic wraps its message as JSON inside JSON: {"error_message": "{\"faultstring\": ...}"}."""
    try:
        body = response.json()
    except ValueError:
        return response.text.strip() or response.reason
    message = body.get('error_message', body) if isinstance(body, dict) else body
    if isinstance(message, dict) and isinstance(message.get('error'), dict):
        message = message['error']  # the auth middlewares' shape: {"error": {"message": ..., "code": 401}}
    if isinstance(message, str):
        try:
            message = json.loads(message)
        except ValueError:
            return message
    if isinstance(message, dict):
        return message.get('faultstring') or message.get('message') or str(message)
    return str(message)


def _is_node_locked(status, message):
    # 409 also means "name or MAC already taken"; only a lock is worth waiting for.
    return status == 409 and 'locked' in message.lower()


def _is_conductor_unreachable(status, message):
    return status == 500 and message.startswith(CONDUCTOR_UNREACHABLE)


def _is_database_locked(status, message):
    # SQLite refused a write made at the same time as another: the statement failed, so its transaction was
    # rolled back and wrote nothing. Ironic waits out most such locks itself; this is one it let through.
    return status == 500 and SQLITE_LOCKED in message


def _no_answer(endpoint, method, path, accepted, tries, timeout, seconds):
    """What to tell when every try of a request timed out: how long, how many tries, and the option to change."""
    if accepted:
        what = 'Ironic at %s accepted the connection but did not answer %s %s' % (endpoint, method, path)
        check = 'Check that Ironic is healthy (its API service, its conductor and database)'
    else:
        what = 'cannot reach Ironic at %s: no connection could be made for %s %s' % (endpoint, method, path)
        check = 'Check the endpoint, and that nothing on the way (a firewall) drops the packets'
    return ('%s: %d tries of api_timeout (%d s) each, %d s in all. %s, or set api_timeout to give up sooner (or to '
            'wait longer for a slow Ironic).' % (what, tries, timeout, round(seconds), check))


def _first_line(message):
    # A database error goes on with its SQL and parameters, which may quote driver_info.
    return message.split('\n', 1)[0]


class Transport(object):
    """Requests to one Ironic endpoint: its credentials, the microversion both sides speak, and each HTTP exchange
    retried where that is safe; api_calls counts the exchanges."""

    def __init__(self, endpoint, session=None, token=None, renew_token=None, timeout=60):
        """session: an http.Session carrying TLS settings and basic auth (see ironic/connection.py); token: a keystone
        token; renew_token(): a fresh token, asked for once when Ironic answers 401."""
        self.endpoint = endpoint.rstrip('/')
        if self.endpoint.endswith('/v1'):
            self.endpoint = self.endpoint[:-3]
        self.timeout = timeout
        self.api_calls = 0
        self._session = session if session is not None else Session()
        self._session.headers['Accept'] = 'application/json'
        if token:
            self._session.headers['X-Auth-Token'] = token
        self._renew_token = renew_token
        self.scope_note = None  # why these credentials may not see a node (see ironic/connection.py)
        self._server_version = None
        # Until Ironic has answered once, a refused connection means nothing listens at the endpoint; after, that
        # Ironic is restarting, which is worth waiting for.
        self._answered = False
        # The Date header of the latest answer, per thread (answered_at): threads of one task share the transport.
        self._latest = threading.local()

    @property
    def server_version(self):
        """The newest microversion the server supports (its root document's default_version)."""
        if self._server_version is None:
            root = self.request('GET', '/', root=True)
            advertised = root.get('default_version') or {}
            self._server_version = parse_version(advertised.get('version') or '1.1')
        return self._server_version

    @property
    def version(self):
        """The highest microversion both this client and the server support."""
        return min(self.server_version, CLIENT_MAX_VERSION)

    @property
    def release(self):
        """The Ironic release the server is at least (capabilities.release_for_api): which state machine edges it has."""
        return capabilities.release_for_api(self.server_version)

    def describe_server(self):
        return capabilities.describe_server(self.server_version)

    def require(self, feature, version):
        if self.version < version:
            raise IronicError(too_old(feature, version, self.version))

    def supports(self, version):
        return self.version >= version

    def answered_at(self):
        """When Ironic answered this thread's latest request, by Ironic's own clock: its Date header (whole seconds,
        so up to 1 s early), an aware UTC datetime; None when it sent none or one that does not parse."""
        date = getattr(self._latest, 'date', None)
        try:
            when = email.utils.parsedate_to_datetime(date) if date else None
        except (TypeError, ValueError, IndexError):
            return None
        return when.replace(tzinfo=datetime.timezone.utc) if when is not None and when.tzinfo is None else when

    def pages(self, path, params, key):
        """The pages of a listing Ironic paginates (GET path with params, PAGE_LIMIT items a page unless params say
        otherwise), in order: (the items under key, whether it was the last page)."""
        params = dict(params, limit=params.get('limit') or PAGE_LIMIT)
        while True:
            page = self.request('GET', path, params=params)
            items = page.get(key, [])
            last = not page.get('next') or not items
            yield items, last
            if last:
                return
            params['marker'] = items[-1]['uuid']

    def request(self, method, path, body=None, params=None, replay=True, retry_busy=True, root=False):
        """One request to Ironic's API: path below /v1, sent at the negotiated microversion (with root, the path from
        the endpoint, sent without one: the root document names the versions); its JSON answer, None when there is
        none.

        Locks, 503 and dropped connections are tried again, with bounded, jittered backoff. replay=False: a lost
        answer raises AnswerLost even for a PUT. retry_busy=False: a 503 raises Busy and a node lock Locked at once,
        for a caller that has other work to do meanwhile (the scheduler sends the step again later). A token Ironic
        refuses (HTTP 401) is renewed once (renew_token), and the request starts over with it, retries and all.
        """
        url, headers = self.endpoint + path, None
        if not root:
            url = self.endpoint + '/v1' + path
            headers = {'X-OpenStack-Ironic-API-Version': version_string(self.version)}
        renew = self._renew_token is not None
        waiting = Wait(initial=RETRY_BASE_DELAY, factor=2, cap=RETRY_MAX_DELAY, jitter=1.0, clock=time.monotonic,
                       sleep=time.sleep)
        started, unanswered, attempt = waiting.clock(), 0, 0
        while attempt < RETRY_ATTEMPTS:  # bounded: RETRY_ATTEMPTS tries, twice at most with a renewed token
            attempt += 1
            self.api_calls += 1
            try:
                response = self._session.request(method, url, body=body, params=params, headers=headers,
                                                 timeout=self.timeout)
            except TLSRefused as exc:
                raise IronicError('request to Ironic at %s failed: %s' % (self.endpoint, exc))
            except ConnectionFailed as exc:
                unanswered += exc.timed_out
                self._raise_unanswered(exc, method, url, replay, attempt, unanswered, waiting.clock() - started)
            else:
                self._answered = True
                self._latest.date = getattr(response, 'date', None)
                if response.status_code < 400:
                    return response.json() if response.status_code != 204 and response.content else None
                if response.status_code == 401 and renew:
                    # The token expired: a fresh one, and the exchange from the start (no pause, a full budget).
                    self._session.headers['X-Auth-Token'] = self._renew_token()
                    waiting.reset()
                    renew, started, unanswered, attempt = False, waiting.clock(), 0, 0
                    continue
                self._raise_refused(response, method, url, retry_busy, attempt)
            waiting.pause()
        raise AssertionError('unreachable')

    def _raise_unanswered(self, exc, method, url, replay, attempt, unanswered, seconds):
        """Raise what a request that got no answer (exc: ConnectionFailed) ends with, unless it is to be tried again."""
        if not self._answered and exc.refused:
            raise Unreachable('cannot reach Ironic at %s: nothing listens there (connection refused). Check the '
                              'endpoint option, or the cloud chosen with cloud or OS_CLOUD, and that Ironic is '
                              'running.' % self.endpoint)
        # A write that may have reached the server is not sent again (it could apply twice):
        # the caller re-reads and goes on from what Ironic reports.
        if exc.sent and not (replay and method in REPLAYED_METHODS):
            raise AnswerLost('the answer to %s %s was lost: %s' % (method, url[len(self.endpoint):], exc))
        if exc.timed_out and unanswered == NO_ANSWER_TRIES:
            raise Unreachable(_no_answer(self.endpoint, method, url[len(self.endpoint):], exc.sent, unanswered,
                                         self.timeout, seconds))
        if attempt == RETRY_ATTEMPTS:
            raise Unreachable('cannot reach Ironic at %s: %s. Check that the endpoint is right and '
                              'the service is running.' % (self.endpoint, exc))

    def _raise_refused(self, response, method, url, retry_busy, attempt):
        """Raise the error an answer of HTTP 400 or more ends with, unless it is to be tried again."""
        message = _error_message(response)
        conductor_unreachable = _is_conductor_unreachable(response.status_code, message)
        node_locked = _is_node_locked(response.status_code, message) or conductor_unreachable
        database_locked = _is_database_locked(response.status_code, message)
        retryable = ((response.status_code == 503 or node_locked) and retry_busy) or database_locked
        if retryable and attempt < RETRY_ATTEMPTS:
            return
        if database_locked:
            message = ("%s, %d times in a row: Ironic's SQLite database cannot take this many writes at "
                       "once. Lower concurrency, or run Ironic on MySQL or PostgreSQL."
                       % (_first_line(message), RETRY_ATTEMPTS))
        refused = 'Ironic refused %s %s (HTTP %d): %s' % (method, url[len(self.endpoint):], response.status_code,
                                                          message)
        if response.status_code == 401:
            raise IronicError('%s. The credentials were refused: check auth_type and auth (username and password '
                              'for http_basic), or the cloud they come from.' % refused.rstrip('.'), 401)
        if conductor_unreachable:
            raise ConductorUnreachable(refused, response.status_code, message)
        error = Locked if node_locked else {404: NotFound, 503: Busy}.get(response.status_code, IronicError)
        raise error(refused, response.status_code, message)
