# -*- coding: utf-8 -*-
"""ironic/allocations: the allocation requests, and the API version each needs, checked before it is sent."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import allocations
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError, NotFound


class Recorder(object):
    def __init__(self, version, answer=None):
        self.version = version
        self.answer = answer
        self.sent = []

    def require(self, feature, version):
        if self.version < version:
            raise IronicError('%s needs Ironic API %d.%d or newer' % ((feature,) + version))

    def request(self, method, path, body=None):
        self.sent.append((method, path, body))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_a_missing_allocation_is_none():
    assert allocations.find_allocation(Recorder((1, 52), NotFound('gone')), 'render-01') is None


@pytest.mark.parametrize('field, needed', [('node', '1.58'), ('owner', '1.60')])
def test_a_field_the_api_lacks_is_refused_before_the_post(field, needed):
    client = Recorder((1, 57))
    with pytest.raises(IronicError, match='%s needs Ironic API %s' % (field, needed)):
        allocations.create_allocation(client, {'name': 'a', 'resource_class': 'gpu', field: 'x'})
    assert client.sent == []


def test_each_request_goes_to_its_path():
    client = Recorder((1, 60), {'uuid': 'a-1'})
    allocations.create_allocation(client, {'name': 'a', 'owner': 'p'})
    allocations.update_allocation(client, 'a-1', [{'op': 'replace', 'path': '/extra', 'value': {}}])
    allocations.delete_allocation(client, 'a-1')
    assert [sent[:2] for sent in client.sent] == [
        ('POST', '/allocations'), ('PATCH', '/allocations/a-1'), ('DELETE', '/allocations/a-1')]
    with pytest.raises(IronicError, match='updating an allocation needs Ironic API 1.57'):
        allocations.update_allocation(Recorder((1, 56)), 'a-1', [])
    with pytest.raises(IronicError, match='allocations needs Ironic API 1.52'):
        allocations.find_allocation(Recorder((1, 51)), 'a')
