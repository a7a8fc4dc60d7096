# -*- coding: utf-8 -*-
"""The capability table: what each Ironic offers, and its release read from its API version."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import capabilities


def test_releases_are_in_order_and_the_newest_serves_the_newest_api_the_client_speaks():
    assert capabilities.RELEASE_API_VERSIONS == tuple(sorted(capabilities.RELEASE_API_VERSIONS))
    apis = [api for _release, api in capabilities.RELEASE_API_VERSIONS]
    assert apis == sorted(apis)
    assert capabilities.RELEASE_API_VERSIONS[0][0] == capabilities.SUPPORTED_RELEASE
    assert capabilities.RELEASE_API_VERSIONS[-1][1] == capabilities.CLIENT_MAX_VERSION


@pytest.mark.parametrize('api, release, words', [
    ((1, 90), (24, 1), 'Ironic 24.1 (API 1.90)'),
    ((1, 91), (25, 0), 'Ironic 25.0 or 26.0 (API 1.91)'),
    ((1, 93), (26, 1), 'Ironic 26.1 (API 1.93)'),
    # 29.0 and 29.1 serve the same API: the older one is taken, so 29.1's edges are not relied on
    ((1, 96), (29, 0), 'Ironic 29.0 or 29.1 (API 1.96)'),
    ((1, 97), (29, 0), 'Ironic newer than 29.1 (API 1.97)'),
    ((1, 101), (32, 0), 'Ironic 32.0 or 32.1 (API 1.101)'),
    ((1, 110), (34, 0), 'Ironic newer than 34.0 (API 1.110)'),
    ((1, 111), (35, 0), 'Ironic 35.0 or 35.1 (API 1.111)'),
    ((1, 115), (39, 0), 'Ironic 39.0 (API 1.115)'),
    ((1, 120), (39, 0), 'Ironic newer than 39.0 (API 1.120)'),
    ((1, 89), capabilities.OLDER_RELEASE, 'Ironic older than 24.1 (API 1.89), which this collection does not support'),
])
def test_a_servers_release_follows_from_its_newest_api_version(api, release, words):
    assert capabilities.release_for_api(api) == release
    assert capabilities.describe_server(api) == words
