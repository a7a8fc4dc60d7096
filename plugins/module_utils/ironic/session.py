# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The auth session to Ironic: the transport with credentials renewed when Ironic refuses them, and one negotiated
microversion sent with every request.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import (
    CLIENT_MAX_VERSION, parse_version, too_old, version_string)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError, Transport

PAGE_LIMIT = 1000


class AuthSession(Transport):
    """A session to one Ironic endpoint: its credentials and the microversion both sides speak."""

    def __init__(self, endpoint, session=None, token=None, renew_token=None, timeout=60):
        """token: a keystone token; renew_token(): a fresh token, asked for once when Ironic answers 401."""
        super(AuthSession, self).__init__(endpoint, session, timeout)
        if token:
            self._session.headers['X-Auth-Token'] = token
        self._renew_token = renew_token
        self.scope_note = None  # why these credentials may not see a node (see ironic/connection.py)
        self._server_version = None

    def _send_authenticated(self, method, url, **kwargs):
        """_send, with a fresh token and one more try when Ironic says the token expired (HTTP 401)."""
        for renew in (True, False):
            try:
                return self._send(method, url, **kwargs)
            except IronicError as exc:
                if exc.status != 401:
                    raise
                if not (renew and self._renew_token):
                    raise IronicError('%s. The credentials were refused: check auth_type and auth (username and '
                                      'password for http_basic), or the cloud they come from.'
                                      % str(exc).rstrip('.'), 401)
            self._session.headers['X-Auth-Token'] = self._renew_token()
        raise AssertionError('unreachable')

    @property
    def server_version(self):
        """The newest microversion the server supports (its root document's default_version)."""
        if self._server_version is None:
            root = self._send_authenticated('GET', self.endpoint + '/').json()
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

    def request(self, method, path, body=None, params=None, replay=True, retry_busy=True):
        headers = {'X-OpenStack-Ironic-API-Version': version_string(self.version)}
        response = self._send_authenticated(method, self.endpoint + '/v1' + path, body=body, params=params,
                                            headers=headers, replay=replay, retry_busy=retry_busy)
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

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
