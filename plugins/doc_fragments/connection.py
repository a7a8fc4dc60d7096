# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # The connection options every module of this collection shares.
    DOCUMENTATION = r'''
options:
  cloud:
    description:
      - The cloud to talk to, as a name in C(clouds.yaml) or a dictionary of the same settings.
      - Falls back to the E(OS_CLOUD) environment variable. C(clouds.yaml) is found the way openstacksdk
        finds it, including E(OS_CLIENT_CONFIG_FILE).
      - "A cloud with C(auth_type: none) and C(baremetal_endpoint_override) points at a standalone Ironic."
    type: raw
  auth_type:
    description:
      - The authentication plugin, for example V(password), V(v3applicationcredential), V(http_basic) or V(none).
      - With O(endpoint), only V(none) (the default) and V(http_basic) are used.
    type: str
  auth:
    description:
      - Authentication settings for O(auth_type), for example C(auth_url), C(username), C(password), C(project_name).
      - For V(http_basic), C(username) and C(password).
    type: dict
  endpoint:
    description:
      - The URL of the Ironic API, for example V(http://127.0.0.1:6385), for a standalone Ironic that uses
        C(noauth) or C(http_basic). Overrides the endpoint found in the service catalog.
    type: str
  validate_certs:
    description:
      - Whether to verify the TLS certificate of the Ironic API.
    type: bool
    default: true
    aliases: [verify]
  ca_cert:
    description:
      - A CA bundle to verify the Ironic API's certificate with.
    type: path
    aliases: [cacert]
  client_cert:
    description:
      - A client certificate to present to the Ironic API.
    type: path
    aliases: [cert]
  client_key:
    description:
      - The private key of O(client_cert).
    type: path
    aliases: [key]
  api_timeout:
    description:
      - Seconds to wait for one answer from the Ironic API.
      - Requests refused because the node is locked (HTTP 409), HTTP 503 and dropped connections are
        retried a bounded number of times with backoff; every other error fails at once with Ironic's message.
    type: int
    default: 60
requirements:
  - python >= 3.11
  - requests
  - openstacksdk (for O(cloud) and keystone authentication)
notes:
  - Set the connection options once for every module with
    C(module_defaults) and the action group C(group/baremetal.lifecycle.baremetal).
'''
