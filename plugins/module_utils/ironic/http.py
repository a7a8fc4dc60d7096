# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""HTTP to Ironic: the one place that opens a connection.

Python's own http.client, not requests: importing requests costs a module process more than Ironic's API needs
from it (bench/bench_startup.py: 66 ms against 9 ms). What the collection used of requests, this does the way
requests does it:

- keep-alive: one connection per thread and server, opened again when the server closed it while idle;
- TLS: ``verify`` True (the CA bundle named by REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE, else certifi's where it is
  installed, else the system's), False, or the path of a CA bundle; ``cert`` a client certificate's path, or
  (certificate, key);
- basic auth: ``auth`` (username, password);
- the proxy the environment names (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and NO_PROXY, read by urllib as requests
  reads them): a tunnel for https, the absolute URL for http;
- one timeout for connecting and for each read.

A request that gets no answer raises ConnectionFailed, which says whether it may have reached the server and whether
the timeout passed (no answer at all, as opposed to a refused or dropped connection).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import http.client
import json
import os
import select
import ssl
import threading
import urllib.request
from urllib.parse import unquote, urlencode, urlsplit


class ConnectionFailed(Exception):
    """No answer. sent: the request may have reached the server; refused: nothing listens at the address;
    timed_out: the timeout passed without an answer (or, when not sent, without a connection)."""

    def __init__(self, reason, sent, refused=False, timed_out=False):
        super(ConnectionFailed, self).__init__(reason)
        self.reason = reason
        self.sent = sent
        self.refused = refused
        self.timed_out = timed_out


class TLSRefused(Exception):
    """A certificate refused by either side: no retry cures it."""


class Response(object):
    """An answer; date: its Date header as the server sent it (its own clock, whole seconds), or None."""

    def __init__(self, status_code, reason, content, date=None):
        self.status_code = status_code
        self.reason = reason
        self.content = content
        self.date = date

    @property
    def text(self):
        return self.content.decode('utf-8', 'replace')

    def json(self):
        return json.loads(self.text)


def _ca_bundle():
    """What requests verifies against when verify is True."""
    bundle = os.environ.get('REQUESTS_CA_BUNDLE') or os.environ.get('CURL_CA_BUNDLE')
    if bundle:
        return bundle
    try:
        import certifi
    except ImportError:
        return None  # the system's
    return certifi.where()


def tls_context(verify, cert):
    """An SSLContext for verify (True, False or a CA bundle's path) and cert (a path, or (certificate, key))."""
    if verify is False:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    else:
        bundle = verify if isinstance(verify, str) else _ca_bundle()
        if bundle and os.path.isdir(bundle):
            context = ssl.create_default_context(capath=bundle)
        else:
            context = ssl.create_default_context(cafile=bundle)
    if cert:
        certificate, key = cert if isinstance(cert, (tuple, list)) else (cert, None)
        context.load_cert_chain(certificate, key)
    return context


def _proxy_for(scheme, host):
    """The proxy URL the environment names for this server, or None."""
    if not any(name.lower().endswith('_proxy') for name in os.environ):
        return None
    if urllib.request.proxy_bypass_environment(host):
        return None
    proxies = urllib.request.getproxies_environment()
    return proxies.get(scheme) or proxies.get('all')


def _basic(username, password):
    return 'Basic ' + base64.b64encode(('%s:%s' % (username, password)).encode('utf-8')).decode('ascii')


def _dropped(connection):
    """True when the server closed an idle keep-alive connection (its socket reads as ready: EOF)."""
    if connection.sock is None:
        return True
    try:
        return bool(select.select([connection.sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def _refusal(exc, server):
    """What to tell about a certificate refused by either side; None when exc is no such refusal."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return ('the TLS certificate of %s could not be verified (%s). Give the CA bundle that signed it with '
                'ca_cert (or the cloud\'s cacert), or set validate_certs: false for a test Ironic.'
                % (server, exc.verify_message or exc))
    reason = getattr(exc, 'reason', None)
    if isinstance(exc, ssl.SSLError) and 'ALERT' in str(reason) and 'CERTIFICATE' in str(reason):
        return ('%s refused the TLS client certificate, or wanted one (%s): set client_cert and client_key (or '
                'the cloud\'s cert and key).' % (server, reason))
    return None


def _reason(exc):
    """Why a connection failed, in the system's words ('Connection refused')."""
    return getattr(exc, 'strerror', None) or str(exc) or type(exc).__name__


class Session(object):
    """Requests to HTTP(S) servers with shared TLS settings, basic auth and headers; safe to use from threads."""

    def __init__(self, verify=True, cert=None, auth=None):
        self.verify = verify
        self.cert = cert
        self.auth = auth
        self.headers = {}
        self._context = None
        self._local = threading.local()

    def _tls(self):
        if self._context is None:
            self._context = tls_context(self.verify, self.cert)
        return self._context

    def _connection(self, scheme, netloc, timeout):
        """(connection, whether it is new, None or the headers of an http proxy that takes the absolute URL)."""
        pool = self._local.__dict__.setdefault('connections', {})
        connection, via_proxy = pool.get((scheme, netloc), (None, None))
        if connection is not None and not _dropped(connection):
            connection.timeout = timeout
            return connection, False, via_proxy
        if connection is not None:
            connection.close()
        target = urlsplit('%s://%s' % (scheme, netloc))
        host, port, via_proxy, tunnel_headers = target.hostname, target.port, None, {}
        proxy = _proxy_for(scheme, target.hostname)
        if proxy:
            proxied = urlsplit(proxy if '://' in proxy else 'http://' + proxy)
            host, port = proxied.hostname, proxied.port
            if proxied.username:
                tunnel_headers['Proxy-Authorization'] = _basic(unquote(proxied.username),
                                                               unquote(proxied.password or ''))
            if scheme == 'http':
                via_proxy, tunnel_headers = tunnel_headers, {}
        if scheme == 'https':
            connection = http.client.HTTPSConnection(host, port, timeout=timeout, context=self._tls())
            if proxy:
                connection.set_tunnel(target.hostname, target.port or 443, headers=tunnel_headers)
        else:
            connection = http.client.HTTPConnection(host, port, timeout=timeout)
        pool[(scheme, netloc)] = (connection, via_proxy)
        return connection, True, via_proxy

    def _forget(self, scheme, netloc):
        connection, _via_proxy = self._local.__dict__.get('connections', {}).pop((scheme, netloc), (None, None))
        if connection is not None:
            connection.close()

    def _failed(self, parts, exc, sent):
        """The exception to raise for exc, after dropping the connection it broke."""
        self._forget(parts.scheme, parts.netloc)
        refusal = _refusal(exc, parts.netloc) if isinstance(exc, ssl.SSLError) else None
        if refusal:
            return TLSRefused(refusal)
        return ConnectionFailed(_reason(exc), sent=sent, refused=isinstance(exc, ConnectionRefusedError),
                                timed_out=isinstance(exc, TimeoutError))

    def request(self, method, url, body=None, params=None, headers=None, timeout=60):
        """Send one request (body: JSON); the answer as a Response, whatever its status.

        Raises ConnectionFailed when no answer came, TLSRefused when a certificate was refused.
        """
        parts = urlsplit(url)
        path = parts.path or '/'
        query = '&'.join(part for part in (parts.query, urlencode(params or {})) if part)
        if query:
            path += '?' + query
        sent_headers = dict(self.headers, **(headers or {}))
        if self.auth:
            sent_headers['Authorization'] = _basic(*self.auth)
        payload = None
        if body is not None:
            payload = json.dumps(body).encode('utf-8')
            sent_headers['Content-Type'] = 'application/json'
        connection, new, via_proxy = self._connection(parts.scheme, parts.netloc, timeout)
        if via_proxy is not None:
            path = '%s://%s%s' % (parts.scheme, parts.netloc, path)
            sent_headers.update(via_proxy)
        if new:
            try:
                connection.connect()
            except OSError as exc:  # refused, unresolvable, timed out, a TLS handshake that failed
                raise self._failed(parts, exc, sent=False)
        try:
            connection.request(method, path, body=payload, headers=sent_headers)
            answer = connection.getresponse()
            content = answer.read()
        except (OSError, http.client.HTTPException) as exc:  # reset, closed without an answer, read timed out
            raise self._failed(parts, exc, sent=True)
        if answer.will_close:
            self._forget(parts.scheme, parts.netloc)
        return Response(answer.status, answer.reason, content, answer.getheader('Date'))
