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
      - "A cloud with C(auth_type: none) and C(baremetal_endpoint_override) (or C(auth.endpoint)) points at a
        standalone Ironic; with C(auth_type: http_basic), C(auth.username) and C(auth.password) log in to it. Such
        clouds are read without importing openstacksdk, unless they need it (C(secure.yaml), C(profile),
        C(regions))."
      - Without O(cloud), O(endpoint) or E(OS_CLOUD), the E(OS_*) variables describe the cloud, as they do for
        openstacksdk, for example E(OS_AUTH_TYPE=none) and E(OS_BAREMETAL_ENDPOINT_OVERRIDE), or keystone's
        E(OS_AUTH_URL), E(OS_USERNAME), E(OS_PASSWORD), E(OS_PROJECT_NAME).
      - The options below, when set, win over the cloud's settings and over the E(OS_*) variables.
      - "The rule: from the same settings, the module reaches the same endpoint with the same credentials, TLS
        settings, region and interface as openstacksdk would, for example C(auth_type: none) with
        C(auth.endpoint), or E(OS_AUTH_TYPE=none) with E(OS_ENDPOINT). Where openstacksdk would mix the task's
        options with the credentials of the cloud or of the E(OS_*) variables, the task's options win instead:
        O(auth) replaces the authentication that E(OS_*) variables give (E(OS_TOKEN), E(OS_USERNAME)...) instead
        of adding to it; and an O(auth_type) other than the cloud's (or E(OS_AUTH_TYPE)) leaves out the cloud's
        credentials that its plugin does not take, so that O(endpoint) with O(auth_type=none) reaches Ironic
        whatever E(OS_TOKEN) the shell holds."
      - When the cloud (or the E(OS_*) variables) gives credentials of another plugin than O(auth_type) and the task
        gives no O(auth), the task fails with a message that names those settings (for example E(OS_TOKEN)
        written for E(OS_AUTH_TYPE=token)), before any request.
      - An empty E(OS_CLOUD) names no cloud.
    type: raw
  auth_type:
    description:
      - The authentication plugin, for example V(password), V(v3applicationcredential), V(http_basic) or V(none).
      - With O(endpoint) and no O(cloud), V(none) is the default; a keystone plugin (any other value) means
        "talk to O(endpoint), authenticate with keystone" (O(auth) or the E(OS_*) variables say how).
      - A token scoped to a project sees only the nodes that project owns or leases (Ironic's default policy); a
        node it cannot see is reported with that reason. Give C(system_scope) V(all) in O(auth) to see every node.
      - A keystone token that expires in the middle of a task is renewed once, and the request is sent again.
    type: str
  auth:
    description:
      - Authentication settings for O(auth_type), for example C(auth_url), C(username), C(password), C(project_name).
      - For V(http_basic), C(username) and C(password). Ironic's answer to wrong credentials (HTTP 401) fails the
        task at once, without retries.
    type: dict
  endpoint:
    description:
      - The URL of the Ironic API, for example V(http://127.0.0.1:6385). Overrides the endpoint of the cloud
        and of the service catalog.
      - An C(http://) or C(https://) URL with a host. A value without a scheme (V(127.0.0.1:6385)), with another
        scheme or that is no URL fails the task before any request, and so does such an endpoint from the cloud
        (C(baremetal_endpoint_override), C(auth.endpoint)) or from E(OS_ENDPOINT).
    type: str
  region_name:
    version_added: 0.2.0
    description:
      - The region whose baremetal endpoint is taken from the service catalog (keystone).
      - Falls back to the cloud's region (C(region_name) or the first of C(regions)), as openstacksdk chooses it.
    type: str
  interface:
    version_added: 0.2.0
    description:
      - The interface whose baremetal endpoint is taken from the service catalog (keystone).
      - Falls back to the cloud's C(interface), then V(public).
    type: str
    choices: [public, internal, admin]
    aliases: [endpoint_type]
  validate_certs:
    description:
      - Whether to verify the TLS certificate of the Ironic API (and of keystone).
      - When not set, the cloud's C(verify) and C(insecure) settings decide; when the cloud says nothing, V(true).
      - With V(true) and no CA bundle from O(ca_cert) or the cloud, the system's CA bundle is used (or
        E(REQUESTS_CA_BUNDLE)); with V(false) or O(ca_cert), no environment variable changes what is checked.
    type: bool
    aliases: [verify]
  ca_cert:
    description:
      - A CA bundle to verify the Ironic API's certificate with (and keystone's). Overrides the cloud's C(cacert).
    type: path
    aliases: [cacert]
  client_cert:
    description:
      - A client certificate to present to the Ironic API (and to keystone). Overrides the cloud's C(cert).
    type: path
    aliases: [cert]
  client_key:
    description:
      - The private key of O(client_cert). Overrides the cloud's C(key).
    type: path
    aliases: [key]
  api_timeout:
    description:
      - Seconds to wait for one answer from the Ironic API (and from keystone). It bounds one try of one request,
        connecting included.
      - A request that gets no answer at all within O(api_timeout) is tried twice in all (a read, or a C(PUT) that
        sets a value, or a C(DELETE)), then the task fails saying how long it waited and how many tries it made. An
        Ironic that accepts connections and never answers fails the task in about twice O(api_timeout), 2 minutes
        with the default, 10 seconds with V(5). A write that may have reached Ironic (a C(POST), a C(PATCH), a
        provision state change) is not sent again; the task reads the node again and goes on from what Ironic
        reports.
      - keystone's requests (the token, version discovery) have the same bound, each tried once.
      - Requests refused because the node is locked (HTTP 409) or Ironic's SQLite database is locked (HTTP 500
        C(database is locked)), HTTP 503 and dropped connections are retried a bounded number of times with
        backoff; every other error fails at once with Ironic's message.
      - What bounds the whole task is its C(timeout) option, where a module has one (the time it may wait for nodes to
        move). While it waits, an Ironic that stops answering (a restart) is polled again for up to 60 seconds
        before the nodes it waits for fail, counted from the first poll that got no answer.
    type: int
    default: 60
requirements:
  - python >= 3.11
  - openstacksdk (for keystone authentication only; clouds with C(auth_type) V(none) or V(http_basic) do not need it)
notes:
  - Set the connection options once for every module with
    C(module_defaults) and the action group C(group/baremetal.lifecycle.baremetal).
'''
